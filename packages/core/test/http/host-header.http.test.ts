import http from 'node:http'
import net from 'node:net'
import v8 from 'node:v8'
import vm from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { freshCalendar, querySql } from '../../../../test-support/test-db.js'
import { ADAPTER, startServer, type TestServer } from '../../../../test-support/http.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const EVENT = { title: 'Host test', start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 11:00:00', status: 'publish' }

interface RawReply {
  status: number
  // JSON bodies are checked field by field; a loose type keeps the assertions short.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
  text: string
}

/** Sends one request byte for byte (fetch and http.request refuse or rewrite odd Host values). */
function rawRequest(base: string, method: string, path: string, host: string | null, body?: unknown, token?: string): Promise<RawReply> {
  const url = new URL(base)
  const payload = body === undefined ? '' : JSON.stringify(body)
  const lines = [`${method} ${url.pathname}${path} HTTP/1.1`]
  if (host !== null) lines.push(`Host: ${host}`)
  if (token) lines.push(`Authorization: Bearer ${token}`)
  if (payload) lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(payload)}`)
  lines.push('Connection: close', '', payload)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname)
    const chunks: Buffer[] = []
    socket.on('data', (c) => chunks.push(c))
    socket.on('error', reject)
    socket.on('end', () => {
      const all = Buffer.concat(chunks).toString('utf8')
      const split = all.indexOf('\r\n\r\n')
      const text = all.slice(split + 4)
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        parsed = undefined
      }
      resolve({ status: Number(all.slice(9, 12)), body: parsed, text })
    })
    socket.write(lines.join('\r\n'))
  })
}

async function counts(): Promise<string> {
  const rows = await querySql<{ n: string }>(`select (select count(*) from events)::text || '/' || (select count(*) from venues)::text as n`)
  return rows[0]!.n
}

describe('Host header, no public URL configured', () => {
  let calendar: Calendar
  let server: TestServer
  let token: string
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
    server = await startServer(calendar)
    token = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
  })
  afterAll(async () => {
    await server.close()
    await calendar.close()
  })

  // A path, query or fragment in a Host read as the origin's path (`evil.example/../x` went into
  // every rest_url); a port must be 1-65535 (RFC 3986 3.2.3 allows an empty one, no client needs it).
  // Behind the fetch adapter the host's server builds the Request's URL from the Host: on Node,
  // @hono/node-server answers most of these with its own empty 400 before the handler runs (as
  // Deno and Bun refuse them), so only Express hands them to the calendar.
  it.skipIf(ADAPTER === 'fetch').each(['[', 'exa mple', '', 'a<b', 'host:99999', '[zz]', 'ex%41mple', 'a@b', '.', 'evil.example/../x', 'evil.example/x', 'evil.example/', 'a\\b', 'host:0', 'host:', 'host:00', 'a:1:2'])('answers Host %j with 400 in the error shape, on every route', async (host) => {
    const before = await counts()
    for (const [method, path, body] of [
      ['GET', '/events', undefined],
      ['GET', '/doc', undefined],
      ['GET', '', undefined],
      ['GET', '/no/such/route', undefined],
      ['POST', '/events', EVENT],
      ['POST', '/venues', { venue: 'Hall' }],
    ] as const) {
      const reply = await rawRequest(server.base, method, path, host, body, token)
      expect(reply.status, `${method} ${path}`).toBe(400)
      expect(reply.body).toEqual({ code: 'rest_invalid_host', message: expect.any(String), data: { status: 400 } })
    }
    expect(await counts()).toBe(before)
  })

  it('reflects a well-formed Host into rest_url (no public URL to use instead)', async () => {
    for (const host of ['cal.example.net:8080', '127.0.0.1:1', '[::1]:3000', 'CAL.Example.NET']) {
      const reply = await rawRequest(server.base, 'GET', '/events', host)
      expect(reply.status).toBe(200)
      expect(reply.body.rest_url).toBe(`http://${new URL(`http://${host}`).host}/cal/events/v1/events/?page=1&per_page=5`)
    }
    const created = await rawRequest(server.base, 'POST', '/events', 'cal.example.net', EVENT, token)
    expect(created.status).toBe(201)
    expect(created.body.rest_url).toMatch(/^http:\/\/cal\.example\.net\/cal\/events\/v1\/events\/\d+$/)
  })

  it('keeps one OpenAPI document however many Hosts ask for it (600 Hosts: heap bounded)', async () => {
    v8.setFlagsFromString('--expose-gc')
    const gc = vm.runInNewContext('gc') as () => void
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 })
    const url = new URL(server.base)
    const get = (host: string) =>
      new Promise<{ status: number; server: string }>((resolve, reject) => {
        const req = http.request({ agent, host: url.hostname, port: url.port, path: `${url.pathname}/doc`, headers: { host } }, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c) => chunks.push(c))
          res.on('end', () => resolve({ status: res.statusCode!, server: JSON.parse(Buffer.concat(chunks).toString()).servers[0].url }))
        })
        req.on('error', reject)
        req.end()
      })
    expect(await get('warm.example')).toEqual({ status: 200, server: 'http://warm.example/cal/events/v1' })
    gc()
    const heapBefore = process.memoryUsage().heapUsed
    // 600 Hosts: a copy per Host would keep some 75 MB (the bound's three times); 2,000 took over
    // 120 s with files side by side on a loaded two-core machine.
    for (let i = 0; i < 600; i += 8) {
      const replies = await Promise.all(Array.from({ length: 8 }, (_, j) => get(`h${i + j}.example`)))
      replies.forEach((reply, j) => expect(reply).toEqual({ status: 200, server: `http://h${i + j}.example/cal/events/v1` }))
    }
    agent.destroy()
    gc()
    const grownMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6
    // One document per Host kept about 250 MB of JSON alive for 2,000 Hosts.
    expect(grownMb).toBeLessThan(25)
  }, 120_000)
})

describe('Host header with a public URL configured', () => {
  let calendar: Calendar
  let server: TestServer
  let token: string
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: 'https://cal.example.org' })
    server = await startServer(calendar, '/api')
    token = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
  })
  afterAll(async () => {
    await server.close()
    await calendar.close()
  })

  it('never reflects the Host: url, rest_url, global_id, links and the document use the public URL', async () => {
    const created = await rawRequest(server.base, 'POST', '/events', 'evil.example', { ...EVENT, venue: { venue: 'Hall' }, categories: ['Jazz'] }, token)
    expect(created.status).toBe(201)
    expect(created.body.rest_url).toBe(`https://cal.example.org/api/cal/events/v1/events/${created.body.id}`)
    for (const path of ['', '/doc', '/events', `/events/${created.body.id}`, '/venues', '/categories']) {
      const reply = await rawRequest(server.base, 'GET', path, 'evil.example')
      expect(reply.status, path).toBe(200)
      expect(reply.text, path).not.toContain('evil.example')
      expect(reply.text, path).toContain('https://cal.example.org')
    }
    // A malformed Host is still refused: it is bad input, whatever the configuration.
    expect((await rawRequest(server.base, 'GET', '/events', 'exa mple')).status).toBe(400)
  })
})
