import { request as httpRequest, createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import express from 'express'
import { getRequestListener } from '@hono/node-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { createCalendarRouter } from '@cal-events/http-express'
import { createFetchHandler } from '@cal-events/http-fetch'
import { freshCalendar } from '../../../test-support/test-db.js'

// The same calendar behind both adapters, the same raw requests to each: every status, header and
// byte must match (but the connection's own headers and Express's X-Powered-By).

const ORIGIN = 'https://calendar.example.org'
const APP = 'https://app.example.org'
const MOUNT = '/api'
const NS = `${MOUNT}/cal/events/v1`
const IGNORED = new Set(['date', 'connection', 'keep-alive', 'x-powered-by'])

interface RawAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer(handler!).listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port }))
  })
}

/** One request with exactly these headers and body bytes (no client-side decoding or additions). */
function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: Uint8Array | string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: { host: 'calendar.test', ...headers }, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: comparable(res.headers), body: Buffer.concat(chunks).toString('latin1') }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

function comparable(headers: IncomingHttpHeaders): Record<string, string | string[] | undefined> {
  const kept = Object.fromEntries(Object.entries(headers).filter(([name]) => !IGNORED.has(name)))
  // A feed's tag ends in the database's transaction snapshot, which any transaction on the server moves.
  if (typeof kept.etag === 'string') kept.etag = kept.etag.replace(/\.[\d:,]+"$/, '.<snapshot>"')
  return kept
}

type Case = [name: string, method: string, path: string, headers?: Record<string, string>, body?: Uint8Array | string]

describe('the fetch adapter answers as the Express adapter', () => {
  let calendar: Calendar
  let express5: { server: Server; port: number }
  let fetchy: { server: Server; port: number }
  let admin: string
  const json = (value: unknown) => JSON.stringify(value)
  const event = { title: 'Parity', start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 11:00:00', status: 'publish' as const }

  beforeAll(async () => {
    calendar = await freshCalendar({ cors: { origins: [APP] }, wpCompat: true, maxBodyBytes: 4096 })
    admin = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
    await calendar.events.create(event)
    const app = express()
    app.use(MOUNT, createCalendarRouter(calendar, { origin: () => ORIGIN }))
    express5 = await listen(app)
    fetchy = await listen(getRequestListener(createFetchHandler(calendar, { basePath: MOUNT, origin: () => ORIGIN }), { overrideGlobalObjects: false }))
  })
  afterAll(async () => {
    for (const s of [express5, fetchy]) if (s) await new Promise((resolve) => s.server.close(resolve))
    await calendar?.close()
  })

  it('reads, lists, feeds, conditional requests, HEAD, CORS and the WordPress path', async () => {
    const list = await send(express5.port, 'GET', `${NS}/events`)
    const etag = String(list.headers.etag)
    const cases: Case[] = [
      ['root', 'GET', NS],
      ['root with slash', 'GET', `${NS}/`],
      ['doc', 'GET', `${NS}/doc`],
      ['list', 'GET', `${NS}/events?per_page=1`],
      ['list, twice (kept answer)', 'GET', `${NS}/events?per_page=1`],
      ['list HEAD', 'HEAD', `${NS}/events`],
      ['list 304', 'GET', `${NS}/events`, { 'if-none-match': etag }],
      ['list, signed in', 'GET', `${NS}/events`, { authorization: `Bearer ${admin}` }],
      ['double slash', 'GET', `${NS}//events/`],
      ['unknown id', 'GET', `${NS}/events/987654`],
      ['bad parameter', 'GET', `${NS}/events?per_page=abc`],
      ['no route', 'GET', `${NS}/nothing-here`],
      ['feed', 'GET', `${NS}/events/ical`],
      ['feed HEAD', 'HEAD', `${NS}/events/ical`],
      ['preflight', 'OPTIONS', `${NS}/events`, { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' }],
      ['listed origin', 'GET', `${NS}/events`, { origin: APP }],
      ['WordPress path', 'GET', `${MOUNT}/wp-json/tribe/events/v1/events`],
      ['bad token', 'GET', `${NS}/events`, { authorization: 'Bearer cal_nope_nope' }],
    ]
    await expectSameAnswers(cases)
  })

  it('bodies: JSON, forms, encodings, malformed, too large, unsupported', async () => {
    const body = json({ ...event, title: 'Body' })
    const auth = { authorization: `Bearer ${admin}` }
    const cases: Case[] = [
      ['malformed JSON', 'POST', `${NS}/events`, { ...auth, 'content-type': 'application/json' }, '{"title": '],
      ['JSON array', 'POST', `${NS}/events`, { ...auth, 'content-type': 'application/json' }, '[1]'],
      ['not UTF-8', 'POST', `${NS}/events`, { ...auth, 'content-type': 'application/json' }, new Uint8Array([0x7b, 0xff, 0x7d])],
      ['too large', 'POST', `${NS}/events`, { ...auth, 'content-type': 'application/json' }, json({ title: 'x'.repeat(5000) })],
      ['too large once inflated', 'POST', `${NS}/events`, { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' }, gzipSync(json({ title: 'x'.repeat(5000) }))],
      ['unsupported encoding', 'POST', `${NS}/events`, { ...auth, 'content-type': 'application/json', 'content-encoding': 'compress' }, body],
      ['broken gzip', 'POST', `${NS}/events`, { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' }, 'not gzip at all'],
      ['invalid event, anonymous', 'POST', `${NS}/events`, { 'content-type': 'application/json' }, json({ title: '' })],
      ['form with a bad date', 'POST', `${NS}/events`, { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, 'title=Form&start_date=soon'],
      ['gzip JSON, bad id', 'POST', `${NS}/events/987654`, { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' }, gzipSync(body)],
      ['deflate JSON, bad id', 'POST', `${NS}/events/987654`, { ...auth, 'content-type': 'application/json', 'content-encoding': 'deflate' }, deflateSync(body)],
      ['br JSON, bad id', 'PUT', `${NS}/events/987654`, { ...auth, 'content-type': 'application/json', 'content-encoding': 'br' }, brotliCompressSync(body)],
      ['delete unknown', 'DELETE', `${NS}/events/987654`, auth],
      ['write with a stale If-Match', 'PUT', `${NS}/events/1`, { ...auth, 'content-type': 'application/json', 'if-match': '"stale"' }, body],
      ['If-Match on an unknown event', 'DELETE', `${NS}/events/987654`, { ...auth, 'if-match': '"stale"' }],
    ]
    await expectSameAnswers(cases)
  })

  it('replays an idempotent create the same way through either adapter', async () => {
    const create = (port: number) =>
      send(port, 'POST', `${NS}/events`, { authorization: `Bearer ${admin}`, 'content-type': 'application/json', 'idempotency-key': 'k-1' }, json({ ...event, title: 'Same' }))
    const first = await create(fetchy.port)
    expect(first.status).toBe(201)
    // The same key again through each adapter: the recorded answer.
    const viaExpress = await create(express5.port)
    expect(viaExpress.status).toBe(201)
    expect(await create(fetchy.port)).toEqual(viaExpress)
  })

  async function expectSameAnswers(cases: Case[]): Promise<void> {
    for (const [name, method, path, headers, body] of cases) {
      const viaExpress = await send(express5.port, method, path, headers, body)
      const viaFetch = await send(fetchy.port, method, path, headers, body)
      expect(viaFetch, name).toEqual(viaExpress)
    }
  }
})
