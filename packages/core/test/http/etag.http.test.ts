import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCalendar, type Calendar, type EventResource, type TermResource } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type TestServer, venueOf } from '../../../../test-support/http.js'

// Issue 18 item 1: every GET carries a strong ETag that follows everything in the answer
// (embedded venue, term counts, the list window) and who asks; If-None-Match answers 304.

const NOW = new Date('2026-11-21T03:39:06Z')
const event = (extra: Record<string, unknown> = {}) => ({
  title: 'Tagged Event',
  start_date: '2026-12-01 10:00:00',
  end_date: '2026-12-01 12:00:00',
  ...extra,
})

const backends: [string, () => Promise<Calendar>][] = [
  ['PostgreSQL', () => freshCalendar({ now: () => NOW })],
  ['PGlite', () => createCalendar({ now: () => NOW })],
]

describe.each(backends)('ETag and If-None-Match on %s', (_name, open) => {
  let calendar: Calendar
  let server: TestServer
  let admin: string
  let ids: { event: number; venue: number; organizer: number; category: number; tag: number }

  beforeAll(async () => {
    calendar = await open()
    server = await startServer(calendar)
    admin = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
    const category = await server.request<TermResource>('POST', '/categories', { token: admin, body: { name: 'Music' } })
    const tag = await server.request<TermResource>('POST', '/tags', { token: admin, body: { name: 'Loud' } })
    const created = await server.request<EventResource>('POST', '/events', {
      token: admin,
      body: event({ venue: { venue: 'Old Hall' }, organizer: [{ organizer: 'Ann' }], categories: [category.body.id], tags: [tag.body.id] }),
    })
    expect(created.status).toBe(201)
    ids = {
      event: created.body.id,
      venue: venueOf(created.body)!.id,
      organizer: created.body.organizer[0]!.id,
      category: category.body.id,
      tag: tag.body.id,
    }
  })
  afterAll(async () => {
    await server?.close()
    await calendar?.close()
  })

  const routes = () => [
    '',
    '/doc',
    '/events',
    `/events/${ids.event}`,
    '/events/by-slug/tagged-event',
    '/venues',
    `/venues/${ids.venue}`,
    '/venues/by-slug/old-hall',
    '/organizers',
    `/organizers/${ids.organizer}`,
    '/organizers/by-slug/ann',
    '/categories',
    `/categories/${ids.category}`,
    '/tags',
    `/tags/${ids.tag}`,
  ]

  it('answers 304 with no body and the same ETag on every GET route, and HEAD alike', async () => {
    for (const path of routes()) {
      const first = await server.request('GET', path)
      expect(first.status, path).toBe(200)
      const etag = first.headers.get('etag')
      expect(etag, path).toMatch(/^"[A-Za-z0-9_-]{32}"$/)
      expect(first.headers.get('cache-control'), path).toBe('public, max-age=5')
      expect(first.headers.get('vary'), path).toBe('Authorization')
      // Same answer, same tag.
      expect((await server.request('GET', path)).headers.get('etag'), path).toBe(etag)
      const again = await server.request('GET', path, { headers: { 'if-none-match': etag! } })
      expect(again.status, path).toBe(304)
      expect(again.body, path).toBeUndefined()
      expect(again.headers.get('etag'), path).toBe(etag)
      expect(again.headers.get('cache-control'), path).toBe('public, max-age=5')
      expect(again.headers.get('vary'), path).toBe('Authorization')
      // A list of tags with ours among them, or a weak form of it, matches too (weak comparison).
      expect((await server.request('GET', path, { headers: { 'if-none-match': `"nope", W/${etag}` } })).status, path).toBe(304)
      const head = await server.request('HEAD', path)
      expect(head.status, path).toBe(200)
      expect(head.headers.get('etag'), path).toBe(etag)
      const headConditional = await server.request('HEAD', path, { headers: { 'if-none-match': etag! } })
      expect(headConditional.status, path).toBe(304)
      // Another tag, `*` and malformed values: a stale or unknown tag gets the full answer; a
      // malformed header is ignored (never an error).
      expect((await server.request('GET', path, { headers: { 'if-none-match': '"stale"' } })).status, path).toBe(200)
      expect((await server.request('GET', path, { headers: { 'if-none-match': '*' } })).status, path).toBe(304)
      for (const bad of ['no-quotes', '"unterminated', '""x', ',', 'W/']) {
        const res = await server.request('GET', path, { headers: { 'if-none-match': bad } })
        expect(res.status, `${path} ${bad}`).toBe(200)
        expect(res.headers.get('etag')).toBe(etag)
      }
    }
  })

  it('gives a signed-in caller its own tag and private caching', async () => {
    for (const path of routes()) {
      const anonymous = await server.request('GET', path)
      const signedIn = await server.request('GET', path, { token: admin })
      expect(signedIn.status, path).toBe(200)
      expect(signedIn.headers.get('etag'), path).not.toBe(anonymous.headers.get('etag'))
      expect(signedIn.headers.get('cache-control'), path).toMatch(/private/)
      const conditional = await server.request('GET', path, { token: admin, headers: { 'if-none-match': signedIn.headers.get('etag')! } })
      expect(conditional.status, path).toBe(304)
      expect(conditional.headers.get('cache-control'), path).toMatch(/private/)
      // The anonymous tag is no good to the signed-in caller, and the other way round.
      expect((await server.request('GET', path, { token: admin, headers: { 'if-none-match': anonymous.headers.get('etag')! } })).status, path).toBe(200)
      expect((await server.request('GET', path, { headers: { 'if-none-match': signedIn.headers.get('etag')! } })).status, path).toBe(200)
    }
  })

  it('changes the event tags when the embedded venue is renamed', async () => {
    const paths = [`/events/${ids.event}`, '/events/by-slug/tagged-event', '/events']
    const before = await Promise.all(paths.map(async (p) => (await server.request('GET', p)).headers.get('etag')))
    const renamed = await server.request('POST', `/venues/${ids.venue}`, { token: admin, body: { venue: 'New Hall' } })
    expect(renamed.status).toBe(200)
    for (const [i, path] of paths.entries()) {
      const res = await server.request('GET', path, { headers: { 'if-none-match': before[i]! } })
      expect(res.status, path).toBe(200)
      expect(res.headers.get('etag'), path).not.toBe(before[i])
      expect(JSON.stringify(res.body)).toContain('New Hall')
    }
  })

  it('changes list and term tags when an item enters the window or a term count moves', async () => {
    const paths = ['/events', `/categories/${ids.category}`, '/categories', `/tags/${ids.tag}`, '/tags']
    const before = await Promise.all(paths.map(async (p) => (await server.request('GET', p)).headers.get('etag')))
    const added = await server.request<EventResource>('POST', '/events', { token: admin, body: event({ title: 'Second', categories: [ids.category], tags: [ids.tag] }) })
    expect(added.status).toBe(201)
    for (const [i, path] of paths.entries()) {
      const res = await server.request('GET', path, { headers: { 'if-none-match': before[i]! } })
      expect(res.status, path).toBe(200)
      expect(res.headers.get('etag'), path).not.toBe(before[i])
    }
    // Leaving the window: moved past the default end (24 months on), the list is back to one event.
    const listed = await server.request('GET', '/events')
    const moved = await server.request('POST', `/events/${added.body.id}`, { token: admin, body: { start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' } })
    expect(moved.status).toBe(200)
    const after = await server.request<{ total: number }>('GET', '/events', { headers: { 'if-none-match': listed.headers.get('etag')! } })
    expect(after.status).toBe(200)
    expect(after.body.total).toBe(1)
  })

  it('keeps errors and writes free of tags', async () => {
    const missing = await server.request('GET', '/events/999999')
    expect(missing.status).toBe(404)
    expect(missing.headers.get('etag')).toBeNull()
    const missingConditional = await server.request('GET', '/events/999999', { headers: { 'if-none-match': '*' } })
    expect(missingConditional.status).toBe(404)
    expect(missingConditional.body).toMatchObject({ data: { status: 404 } })
  })
})
