import { request as httpRequest } from 'node:http'
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scratchDatabase } from '../../../test-support/scratch-db.js'
import { loadConfig } from '@cal-events/cli'
import { startServer, type CalendarServer } from '@cal-events/cli'

// The hot-read cache's fast path in front of Express (src/fast-path.ts, docs/response-cache.md): a
// kept answer must reach the client exactly as the Express app sends it with the cache off, in every
// encoding the client negotiates, and never older than a write another server acknowledged.

const ADMIN_TOKEN = 'fast-path-admin-token-0123456789'
const database = scratchDatabase('fast_path')

interface Raw {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

/** A request over plain node:http: the bytes as sent, nothing decompressed or added. */
function raw(base: string, method: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

/** The body as the client reads it once its content coding is undone. */
function decoded(res: Raw): string {
  const coding = res.headers['content-encoding']
  const body = coding === 'gzip' ? gunzipSync(res.body) : coding === 'br' ? brotliDecompressSync(res.body) : coding === 'deflate' ? inflateSync(res.body) : res.body
  return body.toString('utf8')
}

/** Headers that say what the representation is: all but the per-connection and per-request ones. */
function representation(res: Raw): Record<string, unknown> {
  const framing = new Set(['date', 'connection', 'keep-alive', 'x-request-id', 'content-length', 'transfer-encoding'])
  return Object.fromEntries(Object.entries(res.headers).filter(([name]) => !framing.has(name)))
}

describe('example server: kept answers written before Express', () => {
  // One public URL, so both servers write the same links (and tags).
  const common = { DATABASE_URL: database.url, PORT: '0', CAL_ADMIN_TOKEN: ADMIN_TOKEN, CAL_LOG_LEVEL: 'info', CAL_PUBLIC_URL: 'http://cal.test' }
  let cached: CalendarServer
  let uncached: CalendarServer
  /** Requests the cache-on server's Express router handed to the calendar (the fast path hands none). */
  let handled = 0

  beforeAll(async () => {
    await database.create()
    cached = await startServer(loadConfig({ ...common, CAL_DEMO: '1' }), { write: () => true })
    // Another server on the same database with the cache off: what a client must see either way.
    uncached = await startServer(loadConfig({ ...common, CAL_DEMO: '0', CAL_RESPONSE_CACHE_MB: '0' }), { write: () => true })
    const handle = cached.calendar.handle.bind(cached.calendar)
    cached.calendar.handle = (request) => {
      handled++
      return handle(request)
    }
  }, 120_000)
  afterAll(async () => {
    await cached?.close()
    await uncached?.close()
    await database.drop()
  })

  /** Reads `path` on the cache-on server until a read is served without the calendar's handler. */
  async function warm(path: string): Promise<void> {
    for (let i = 0; i < 3; i++) await raw(cached.url, 'GET', path)
    const before = handled
    expect((await raw(cached.url, 'GET', path)).status).toBe(200)
    expect(handled - before).toBe(0)
  }

  it('sends the cache-off headers and bytes for GET, HEAD and 304, compressed as the client asks', async () => {
    const list = await raw(cached.url, 'GET', '/events')
    // Large enough to be compressed, so every branch of the negotiation is taken.
    expect(list.body.length).toBeGreaterThan(1024)
    const tag = list.headers.etag as string
    for (const path of ['/events', '/events?per_page=1', '/categories']) {
      await warm(path)
      const before = handled
      for (const encoding of [undefined, 'gzip', 'br', 'deflate', 'gzip, deflate, br', 'br;q=0.5, gzip', 'identity', '*;q=0']) {
        for (const method of ['GET', 'HEAD']) {
          const headers: Record<string, string> = encoding === undefined ? {} : { 'accept-encoding': encoding }
          const [on, off] = await Promise.all([raw(cached.url, method, path, headers), raw(uncached.url, method, path, headers)])
          expect({ path, encoding, method, status: on.status, headers: representation(on) }).toEqual({ path, encoding, method, status: off.status, headers: representation(off) })
          expect(decoded(on)).toBe(decoded(off))
          if (method === 'HEAD') expect(on.body.length).toBe(0)
          // A body sent whole carries its length; the one `compression` streams has none to compare.
          else if (off.headers['content-length'] !== undefined) expect(on.headers['content-length']).toBe(off.headers['content-length'])
          else expect(Number(on.headers['content-length'])).toBe(on.body.length)
        }
      }
      expect(handled - before).toBe(0)
    }
    const [on, off] = await Promise.all([raw(cached.url, 'GET', '/events', { 'if-none-match': tag, 'accept-encoding': 'gzip' }), raw(uncached.url, 'GET', '/events', { 'if-none-match': tag, 'accept-encoding': 'gzip' })])
    expect(on.status).toBe(304)
    expect({ status: on.status, headers: representation(on), body: on.body.length }).toEqual({ status: off.status, headers: representation(off), body: off.body.length })
  })

  it('never serves a kept answer older than a write the other server acknowledged, with many reading', async () => {
    const created = await fetch(`${uncached.url}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Fast 0', start_date: '2031-09-01 10:00:00', end_date: '2031-09-01 11:00:00' }),
    })
    const id = ((await created.json()) as { id: number }).id
    const path = `/events/${id}`
    for (let i = 1; i <= 4; i++) {
      await warm(path)
      let written = false
      const stale: string[] = []
      const readers = Array.from({ length: 10 }, async () => {
        for (let r = 0; r < 5; r++) {
          const after = written
          const title = (JSON.parse(decoded(await raw(cached.url, 'GET', path, { 'accept-encoding': 'gzip' }))) as { title: string }).title
          if (after && title !== `Fast ${i}`) stale.push(title)
        }
      })
      const updated = await fetch(`${uncached.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Fast ${i}` }),
      })
      expect(updated.status).toBe(200)
      written = true
      await Promise.all(readers)
      expect(stale).toEqual([])
    }
  })
})
