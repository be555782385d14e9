import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'

// Issue 21 item 5, after the recorded samples: a path asked with a method it does not serve says
// which methods it does (`Allow`), and answers to a signed-in caller are never cached.

const NO_CACHE = 'no-cache, must-revalidate, max-age=0, no-store, private'

describe('Allow and Cache-Control', () => {
  let calendar: Calendar
  let server: TestServer
  let token: string

  beforeAll(async () => {
    calendar = await freshCalendar()
    server = await startServer(calendar)
    token = (await calendar.tokens.create({ role: 'administrator', login: 'root' })).token
  })
  afterAll(async () => {
    await server?.close()
    await calendar?.close()
  })

  it('names the served methods on a 404 for a known path asked with another method', async () => {
    const cases: [string, string, string][] = [
      ['DELETE', '/events', 'GET, POST'],
      ['PUT', '/categories', 'GET, POST'],
      ['OPTIONS', '/events/1', 'GET, DELETE, POST, PUT, PATCH'],
      ['POST', '', 'GET'],
    ]
    for (const [method, path, allow] of cases) {
      const res = await server.request(method, path, { token })
      expect(res.status, `${method} ${path}`).toBe(404)
      expect(res.body).toMatchObject({ code: 'rest_no_route', data: { status: 404 } })
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow)
    }
    // An unknown path has no methods to name.
    expect((await server.request('GET', '/nowhere')).headers.get('allow')).toBeNull()
  })

  it('sends the reference\'s no-cache headers to signed-in callers only, errors included', async () => {
    const anonymous = await server.request('GET', '/events')
    expect(anonymous.status).toBe(200)
    // Issue 18: anonymous reads may be kept briefly by shared caches and revalidated by ETag.
    expect(anonymous.headers.get('cache-control')).toBe('public, max-age=5')
    const unauth = await server.request('POST', '/events', { body: { title: 'x', start_date: '2027-01-01 10:00:00', end_date: '2027-01-01 11:00:00' } })
    expect(unauth.status).toBe(401)
    expect(unauth.headers.get('cache-control')).toBeNull()
    const signedIn = await server.request('GET', '/events', { token })
    expect(signedIn.headers.get('cache-control')).toBe(NO_CACHE)
    expect(signedIn.headers.get('expires')).toBe('Wed, 11 Jan 1984 05:00:00 GMT')
    const invalid = await server.request('POST', '/events', { token, body: { title: 'missing dates' } })
    expect(invalid.status).toBe(400)
    expect(invalid.headers.get('cache-control')).toBe(NO_CACHE)
    const created = await server.request('POST', '/tags', { token, body: { name: 'Fresh' } })
    expect(created.status).toBe(201)
    expect(created.headers.get('cache-control')).toBe(NO_CACHE)
  })
})
