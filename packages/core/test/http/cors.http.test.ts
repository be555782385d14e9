import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'

// CORS (issue 21): off by default; a listed origin may do everything with credentials, `*` lets
// any other origin read anonymously. Every case over real HTTP; the browser test is cors.browser.

const APP = 'https://app.example.org'
const OTHER = 'https://elsewhere.example.net'
const EVENT = { title: 'Cors', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' }

const preflight = (server: TestServer, path: string, origin: string, method: string, headers = 'authorization, content-type') =>
  fetch(`${server.base}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  })

const list = (value: string | null) => (value ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)

describe('CORS', () => {
  let off: Calendar
  let listed: Calendar
  let open: Calendar
  let offServer: TestServer
  let listedServer: TestServer
  let openServer: TestServer
  let token: string

  beforeAll(async () => {
    off = await freshCalendar()
    listed = await freshCalendar({ cors: { origins: [APP] } })
    open = await freshCalendar({ cors: { origins: ['*', APP], maxAgeSeconds: 60 } })
    offServer = await startServer(off)
    listedServer = await startServer(listed)
    openServer = await startServer(open)
    token = (await listed.tokens.create({ role: 'editor', login: 'ed' })).token
    await listed.events.create({ ...EVENT, status: 'publish' })
  })
  afterAll(async () => {
    for (const s of [offServer, listedServer, openServer]) await s?.close()
    for (const c of [off, listed, open]) await c?.close()
  })

  it('is off by default: no CORS headers, OPTIONS stays 404 rest_no_route (with Allow)', async () => {
    const pre = await preflight(offServer, '/events', APP, 'POST')
    expect(pre.status).toBe(404)
    expect(await pre.json()).toMatchObject({ code: 'rest_no_route' })
    expect(pre.headers.get('allow')).toBe('GET, POST')
    expect(pre.headers.get('access-control-allow-origin')).toBeNull()
    const get = await fetch(`${offServer.base}/events`, { headers: { origin: APP } })
    expect(get.status).toBe(200)
    for (const name of ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-expose-headers']) {
      expect(get.headers.get(name), name).toBeNull()
    }
    // Reads vary on who asks (issue 18), never on Origin while CORS is off.
    expect(get.headers.get('vary')).toBe('Authorization')
  })

  it('answers a listed origin\'s preflight with 204, the route\'s methods and the allowed headers', async () => {
    const pre = await preflight(listedServer, '/events', APP, 'POST')
    expect(pre.status).toBe(204)
    expect(await pre.text()).toBe('')
    expect(pre.headers.get('access-control-allow-origin')).toBe(APP)
    expect(pre.headers.get('access-control-allow-credentials')).toBe('true')
    expect(list(pre.headers.get('access-control-allow-methods'))).toEqual(['get', 'post'])
    expect(list(pre.headers.get('access-control-allow-headers'))).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'if-match', 'if-none-match', 'idempotency-key']),
    )
    expect(pre.headers.get('access-control-max-age')).toBe('600')
    expect(list(pre.headers.get('vary'))).toContain('origin')
    const item = await preflight(listedServer, '/events/1', APP, 'PATCH')
    expect(item.status).toBe(204)
    expect(list(item.headers.get('access-control-allow-methods'))).toEqual(['get', 'delete', 'post', 'put', 'patch'])
    const term = await preflight(listedServer, '/categories/3', APP, 'DELETE')
    expect(list(term.headers.get('access-control-allow-methods'))).toContain('delete')
    // Trailing slash of rest_urls, and HEAD's preflight-free reads, work the same.
    expect((await preflight(listedServer, '/events/', APP, 'GET')).status).toBe(204)
  })

  it('lets a listed origin read and write with credentials and read the exposed headers', async () => {
    const get = await fetch(`${listedServer.base}/events`, { headers: { origin: APP } })
    expect(get.status).toBe(200)
    expect(get.headers.get('access-control-allow-origin')).toBe(APP)
    expect(get.headers.get('access-control-allow-credentials')).toBe('true')
    expect(list(get.headers.get('access-control-expose-headers'))).toEqual(
      expect.arrayContaining(['x-cal-total', 'x-cal-totalpages', 'etag', 'location']),
    )
    expect(list(get.headers.get('vary'))).toContain('origin')
    const post = await fetch(`${listedServer.base}/events`, {
      method: 'POST',
      headers: { origin: APP, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(EVENT),
    })
    expect(post.status).toBe(201)
    expect(post.headers.get('access-control-allow-origin')).toBe(APP)
    // Errors are readable too, so a page can show the contract's message.
    const missing = await fetch(`${listedServer.base}/events/999999`, { headers: { origin: APP } })
    expect(missing.status).toBe(404)
    expect(missing.headers.get('access-control-allow-origin')).toBe(APP)
    const bad = await fetch(`${listedServer.base}/events`, { headers: { origin: APP, authorization: 'Bearer nope' } })
    expect(bad.status).toBe(401)
    expect(bad.headers.get('access-control-allow-origin')).toBe(APP)
    // Answers of the adapter's body reader too (413 before the calendar saw the request).
    const big = await fetch(`${listedServer.base}/events`, {
      method: 'POST',
      headers: { origin: APP, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'x'.repeat(1024 * 1024 + 10) }),
    })
    expect(big.status).toBe(413)
    expect(big.headers.get('access-control-allow-origin')).toBe(APP)
    const unknown = await preflight(listedServer, '/nowhere', APP, 'GET')
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get('access-control-allow-origin')).toBe(APP)
  })

  it('gives an unlisted origin nothing to read, but still varies on Origin', async () => {
    const pre = await preflight(listedServer, '/events', OTHER, 'POST')
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBeNull()
    expect(pre.headers.get('access-control-allow-methods')).toBeNull()
    const get = await fetch(`${listedServer.base}/events`, { headers: { origin: OTHER } })
    expect(get.status).toBe(200)
    expect(get.headers.get('access-control-allow-origin')).toBeNull()
    expect(get.headers.get('access-control-allow-credentials')).toBeNull()
    expect(list(get.headers.get('vary'))).toContain('origin')
    // Prefix and case tricks are other origins.
    for (const origin of [`${APP}.evil.test`, APP.toUpperCase(), 'null', `${APP}:443`]) {
      const res = await fetch(`${listedServer.base}/events`, { headers: { origin } })
      expect(res.headers.get('access-control-allow-origin'), origin).toBeNull()
    }
    const none = await fetch(`${listedServer.base}/events`)
    expect(none.headers.get('access-control-allow-origin')).toBeNull()
    expect(list(none.headers.get('vary'))).toContain('origin')
  })

  it('with `*`, lets any origin read anonymously, never with credentials, never a write', async () => {
    const get = await fetch(`${openServer.base}/events`, { headers: { origin: OTHER } })
    expect(get.headers.get('access-control-allow-origin')).toBe('*')
    expect(get.headers.get('access-control-allow-credentials')).toBeNull()
    expect(list(get.headers.get('access-control-expose-headers'))).toContain('x-cal-total')
    const pre = await preflight(openServer, '/events/1', OTHER, 'DELETE')
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe('*')
    expect(list(pre.headers.get('access-control-allow-methods'))).toEqual(['get'])
    expect(list(pre.headers.get('access-control-allow-headers'))).not.toContain('authorization')
    expect(pre.headers.get('access-control-max-age')).toBe('60')
    // A "simple" POST needs no preflight; its answer must still not be readable by that page.
    const post = await fetch(`${openServer.base}/events`, { method: 'POST', headers: { origin: OTHER, 'content-type': 'text/plain' }, body: '{}' })
    expect(post.headers.get('access-control-allow-origin')).toBeNull()
    // The listed origin keeps its full grant beside `*`.
    const mine = await preflight(openServer, '/events', APP, 'POST')
    expect(mine.headers.get('access-control-allow-origin')).toBe(APP)
    expect(mine.headers.get('access-control-allow-credentials')).toBe('true')
  })

  it('rejects origins that could never match when the calendar is created', async () => {
    for (const origins of [['https://app.example.org/path'], ['app.example.org'], ['ftp://x.example'], [''], 'https://a.example' as never]) {
      await expect(freshCalendar({ cors: { origins } }), JSON.stringify(origins)).rejects.toThrow(/cors/)
    }
  })
})
