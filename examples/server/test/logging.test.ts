import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshCalendar, workerDatabaseUrl } from '../../../test-support/test-db.js'
import { loadConfig } from '@cal-events/cli'
import express from 'express'
import type { AddressInfo } from 'node:net'
import { createLogger, redactUrl, requestLogger } from '@cal-events/cli'
import { startServer, type CalendarServer } from '@cal-events/cli'

const TOKEN = 'logging-test-admin-token-0123456789'

/** A JSON log line, as these tests read it. */
interface LogLine {
  [field: string]: unknown
  level?: string | number
  msg?: string
  req?: { id: string; method: string; url: string }
  res?: { statusCode: number }
}
/** The line of a request. */
type RequestLine = LogLine & Required<Pick<LogLine, 'req' | 'res'>>

describe('request logging of the example server', () => {
  const lines: LogLine[] = []
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  let server: CalendarServer
  beforeAll(async () => {
    await (await freshCalendar()).close()
    const url = await workerDatabaseUrl()
    server = await startServer(loadConfig({ DATABASE_URL: url, PORT: '0', CAL_DEMO: '0', CAL_ADMIN_TOKEN: TOKEN, CAL_VARIANT: 'B' }), sink)
  })
  afterAll(() => server.close())

  it('writes one JSON line per request with a request id, and never a token or password', async () => {
    const created = await fetch(`${server.url}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', cookie: 'sid=very-secret-cookie' },
      body: JSON.stringify({ title: 'Logged', start_date: '2027-01-01 10:00:00', end_date: '2027-01-01 11:00:00' }),
    })
    expect(created.status).toBe(201)
    const id = ((await created.json()) as { id: number }).id
    await fetch(`${server.url}/events/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ password: 'hunter2-body' }),
    })
    const read = await fetch(`${server.url}/events/${id}?password=hunter2-query&ml_language=en`, { headers: { 'x-request-id': 'client-42' } })
    expect(read.headers.get('x-request-id')).toBe('client-42')
    const forged = await fetch(`${server.url}/events`, { headers: { 'x-request-id': 'bad id {"level":60}' } })
    expect(forged.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    await new Promise((r) => setTimeout(r, 50))

    const requests = lines.filter((l): l is RequestLine => Boolean(l.req))
    expect(requests.length).toBeGreaterThanOrEqual(4)
    for (const line of requests) {
      expect(line).toMatchObject({ req: { id: expect.any(String), method: expect.any(String) }, res: { statusCode: expect.any(Number) } })
    }
    expect(requests.find((l) => l.req.id === 'client-42')?.req.url).toBe(`/cal/events/v1/events/${id}?password=[redacted]&ml_language=en`)
    const everything = JSON.stringify(lines)
    for (const secret of [TOKEN, 'hunter2-body', 'hunter2-query', 'very-secret-cookie']) expect(everything).not.toContain(secret)
  })

  it('redacts secret query values however they are spelled', () => {
    expect(redactUrl('/x?Password=a&b=1&token[]=t&ok')).toBe('/x?Password=[redacted]&b=1&token[]=[redacted]&ok')
    expect(redactUrl('/x')).toBe('/x')
  })

  it('at warn level logs 4xx, 5xx and aborted requests but not successes', async () => {
    const seen: RequestLine[] = []
    const out = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) seen.push(JSON.parse(line))
        done()
      },
    })
    const app = express()
    app.use(requestLogger(createLogger('warn', out)))
    app.get('/ok', (_req, res) => void res.send('ok'))
    app.get('/missing', (_req, res) => void res.status(404).send('no'))
    app.get('/boom', (_req, res) => void res.status(500).send('x'))
    app.get('/slow', () => {}) // never answers; the client gives up
    const listener = app.listen(0, '127.0.0.1')
    await new Promise((r) => listener.once('listening', r))
    const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`
    try {
      for (const path of ['/ok', '/missing', '/boom']) await (await fetch(base + path)).text()
      await fetch(`${base}/slow`, { signal: AbortSignal.timeout(100) }).catch(() => {})
      await new Promise((r) => setTimeout(r, 100))
    } finally {
      listener.closeAllConnections()
      listener.close()
    }
    expect(seen.map((l) => [l.req.url, l.res.statusCode, l.level, l.msg])).toEqual([
      ['/missing', 404, 40, 'request completed'],
      ['/boom', 500, 50, 'request completed'],
      ['/slow', 200, 40, 'request aborted'],
    ])
  })
})
