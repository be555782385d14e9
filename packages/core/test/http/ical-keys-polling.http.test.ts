import ICAL from 'ical.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, EventList, RootDescriptor } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type ErrorBody, type TestServer } from '../../../../test-support/http.js'
import type { Document } from '../../../../test-support/openapi.js'

// Private feed keys and polling of the iCalendar routes (issue 20 items 3 and 4).

const NOW = new Date('2026-03-01T12:00:00Z')

const summaries = (text: string) =>
  new ICAL.Component(ICAL.parse(text)).getAllSubcomponents('vevent').map((v) => String(v.getFirstPropertyValue('summary')))

describe('private feed keys', () => {
  let calendar: Calendar
  let server: TestServer
  let authorToken: string
  let key: string
  let otherKey: string
  let draftId: number

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.base}${path}`, { headers })
    return { status: res.status, headers: res.headers, text: await res.text() }
  }

  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: 'https://cal.example.org' })
    server = await startServer(calendar)
    const author = await calendar.tokens.create({ role: 'author', login: 'ann' })
    authorToken = author.token
    await calendar.tokens.create({ role: 'author', login: 'bob' })
    await calendar.events.create({ title: 'Public concert', status: 'publish', start_date: '2026-04-01 10:00:00', end_date: '2026-04-01 11:00:00' })
    const as = { id: author.info.userId, role: 'author' as const }
    draftId = (await calendar.events.create({ title: 'Ann draft', status: 'draft', start_date: '2026-04-02 10:00:00', end_date: '2026-04-02 11:00:00' }, { as })).id as number
    await calendar.events.create({ title: 'Admin draft', status: 'draft', start_date: '2026-04-03 10:00:00', end_date: '2026-04-03 11:00:00' })
    key = (await calendar.feedKeys.create({ login: 'ann', name: 'phone' })).key
    otherKey = (await calendar.feedKeys.create({ login: 'bob' })).key
  })
  afterAll(async () => {
    await server.close()
    await calendar.close()
  })

  it("shows what the key's user sees in GET /events, where anonymous callers see published events only", async () => {
    const anonymous = await get('/events/ical')
    expect(summaries(anonymous.text)).toEqual(['Public concert'])
    const keyed = await get(`/events/ical?key=${key}`)
    expect(keyed.status).toBe(200)
    const list = await server.request<EventList>('GET', '/events', { token: authorToken })
    expect(summaries(keyed.text)).toEqual(list.body.events.map((e: { title: string }) => e.title))
    expect(summaries(keyed.text)).toEqual(['Public concert', 'Ann draft'])
    // Another author's key does not show Ann's draft.
    expect(summaries((await get(`/events/ical?key=${otherKey}`)).text)).toEqual(['Public concert'])
    expect(keyed.headers.get('cache-control')).toBe('private, no-cache')
    expect(anonymous.headers.get('cache-control')).toBe('public, max-age=300')
    // Single files too: the draft is readable with the key, not without.
    expect((await get(`/events/${draftId}/ical`)).status).toBe((await server.request('GET', `/events/${draftId}`)).status)
    const file = await get(`/events/${draftId}/ical?key=${key}`)
    expect([file.status, summaries(file.text)]).toEqual([200, ['Ann draft']])
    // The script API reads the key the same way.
    expect(summaries(await calendar.events.feed({ key }))).toEqual(['Public concert', 'Ann draft'])
  })

  it('answers an unknown, malformed or revoked key with the same 401, and a key with a bearer token as a 400', async () => {
    const unknown = await server.request<ErrorBody>('GET', `/events/ical?key=calfeed_0123456789_${'A'.repeat(43)}`)
    const malformed = await server.request<ErrorBody>('GET', '/events/ical?key=nonsense')
    const spare = (await calendar.feedKeys.create({ login: 'ann', name: 'spare' })).key
    expect((await get(`/events/ical?key=${spare}`)).status).toBe(200)
    expect(await calendar.feedKeys.revoke(spare)).toBe(true)
    expect(await calendar.feedKeys.revoke(spare)).toBe(false)
    const revoked = await server.request<ErrorBody>('GET', `/events/ical?key=${spare}`)
    for (const res of [unknown, malformed, revoked]) {
      expect(res.status).toBe(401)
      expect(res.body.code).toBe('rest_invalid_token')
      expect(res.body).toEqual(unknown.body)
      expect(JSON.stringify(res.body)).not.toContain('Ann draft')
    }
    const both = await server.request<ErrorBody>('GET', `/events/ical?key=${key}`, { token: authorToken })
    expect([both.status, Object.keys(both.body.data.params!)]).toEqual([400, ['key']])
    const listed = await calendar.feedKeys.list('ann')
    expect(listed.map((k) => [k.name, k.revokedUtc !== null])).toEqual([
      ['spare', true],
      ['phone', false],
    ])
    expect(JSON.stringify(listed)).not.toContain(key.slice(20))
  })

  it('is no credential anywhere else: as a bearer token, on a read or on a write it is the unknown token’s 401, and nothing is written', async () => {
    const before = (await calendar.events.list({ per_page: 50, status: 'publish,draft' })).events.length
    const asBearer = await server.request<ErrorBody>('POST', '/events', { token: key, body: { title: 'Sneaky', start_date: '2026-05-01 10:00:00', end_date: '2026-05-01 11:00:00' } })
    expect([asBearer.status, asBearer.body.code]).toEqual([401, 'rest_invalid_token'])
    const onWrite = await server.request<ErrorBody>('POST', `/events?key=${key}`, { body: { title: 'Sneaky', start_date: '2026-05-01 10:00:00', end_date: '2026-05-01 11:00:00' } })
    expect([onWrite.status, onWrite.body.code]).toEqual([401, 'rest_invalid_token'])
    const inBody = await server.request<ErrorBody>('POST', '/events', { body: { key, title: 'Sneaky', start_date: '2026-05-01 10:00:00', end_date: '2026-05-01 11:00:00' } })
    expect([inBody.status, inBody.body.code]).toEqual([401, 'rest_invalid_token'])
    const onDelete = await server.request<ErrorBody>('DELETE', `/events/${draftId}?key=${key}`)
    expect([onDelete.status, onDelete.body.code]).toEqual([401, 'rest_invalid_token'])
    const onList = await server.request<ErrorBody>('GET', `/events?key=${key}`)
    expect([onList.status, onList.body.code]).toEqual([401, 'rest_invalid_token'])
    const onJsonRead = await server.request('GET', `/events/${draftId}?key=${key}`)
    expect(onJsonRead.status).toBe(401)
    expect(JSON.stringify(onJsonRead.body)).not.toContain('Ann draft')
    expect((await calendar.events.list({ per_page: 50, status: 'publish,draft' })).events.length).toBe(before)
    // Any other `key` value keeps the contract's meaning: an unknown parameter, no effect.
    expect((await server.request('GET', '/events?key=whatever')).status).toBe(200)
  })

  it('is described in the OpenAPI document and the root descriptor of the feed routes', async () => {
    const doc = (await server.request<Document>('GET', '/doc')).body
    for (const path of ['/events/ical', '/events/{id}/ical', '/events/by-slug/{slug}/ical']) {
      const names = doc.paths[path]!.get!.parameters!.map((p: { name: string }) => p.name)
      expect(names, path).toContain('key')
      expect(Object.keys(doc.paths[path]!.get!.responses), path).toEqual(expect.arrayContaining(['200', '304']))
      expect(Object.keys(doc.paths[path]!.get!.responses['200']!.headers ?? {}), path).toEqual(expect.arrayContaining(['ETag', 'Last-Modified']))
    }
    expect(doc.paths['/events']!.get!.parameters!.map((p: { name: string }) => p.name)).not.toContain('key')
    const root = await server.request<RootDescriptor>('GET', '')
    expect(root.body.routes['/cal/events/v1/events/ical']!.endpoints[0]!.args).toHaveProperty('key')
    // The list's sync walk is not a feed parameter: apps poll with If-None-Match.
    for (const name of ['sync', 'sync_token', 'sync_page', 'page', 'per_page']) expect(root.body.routes['/cal/events/v1/events/ical']!.endpoints[0]!.args).not.toHaveProperty(name)
  })
})

describe('polling the iCalendar routes', () => {
  let calendar: Calendar
  let server: TestServer
  let eventId: number
  let key: string

  const get = async (path: string, headers: Record<string, string> = {}, method = 'GET') => {
    const res = await fetch(`${server.base}${path}`, { headers, method })
    return { status: res.status, headers: res.headers, text: await res.text() }
  }

  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: 'https://cal.example.org' })
    server = await startServer(calendar)
    await calendar.tokens.create({ role: 'editor', login: 'ed' })
    key = (await calendar.feedKeys.create({ login: 'ed' })).key
    eventId = (await calendar.events.create({ title: 'Polled', status: 'publish', start_date: '2026-04-01 10:00:00', end_date: '2026-04-01 11:00:00' })).id as number
    await calendar.events.create({ title: 'Also here', status: 'publish', start_date: '2026-04-05 10:00:00', end_date: '2026-04-05 11:00:00', timezone: 'Europe/Berlin' })
  })
  afterAll(async () => {
    await server.close()
    await calendar.close()
  })

  /**
   * Waits until a poll of a quiet calendar is a 304: the change log may count a point as changed
   * when it cannot tell (docs/change-tracking.md, rule 1), which is a full answer, never a stale one.
   */
  const quiet = async () => {
    let tag = (await get('/events/ical')).headers.get('etag')!
    for (let i = 0; i < 50; i++) {
      const res = await get('/events/ical', { 'if-none-match': tag })
      if (res.status === 304) return
      tag = res.headers.get('etag')!
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    throw new Error('no 304 in 50 polls of a quiet calendar')
  }

  const routes = () => ['/events/ical', `/events/ical?key=${key}`, '/events/ical?search=polled', `/events/${eventId}/ical`, '/events/by-slug/polled/ical']

  it('answers If-None-Match with the ETag with a 304 on every route, and the same bytes without it', async () => {
    await quiet()
    for (const path of routes()) {
      const first = await get(path)
      expect(first.status, path).toBe(200)
      const etag = first.headers.get('etag')!
      expect(etag, path).toMatch(/^"[^"]+"$/)
      expect(first.headers.get('last-modified'), path).toMatch(/ GMT$/)
      const again = await get(path, { 'if-none-match': etag })
      expect(again.status, path).toBe(304)
      expect(again.text, path).toBe('')
      expect(again.headers.get('etag'), path).toBe(etag)
      expect(again.headers.get('cache-control'), path).toBe(first.headers.get('cache-control'))
      expect(again.headers.get('content-type'), path).toBeNull()
      expect((await get(path, { 'if-none-match': `"other", ${etag}` })).status, path).toBe(304)
      expect((await get(path, { 'if-none-match': etag }, 'HEAD')).status, path).toBe(304)
      // Nothing changed: the full answer is the same text (DTSTAMP is the event's, not the request's).
      const full = await get(path)
      expect(full.text, path).toBe(first.text)
      expect((await get(path, { 'if-none-match': '"nope"' })).status, path).toBe(200)
      expect((await get(path, { 'if-none-match': 'not a tag list' })).status, path).toBe(200)
      // Another caller's copy is another representation.
      const other = path.includes('key=') ? path.replace(/[?&]key=[^&]+/, '') : `${path}${path.includes('?') ? '&' : '?'}key=${key}`
      expect((await get(other, { 'if-none-match': etag })).status, `${path} -> ${other}`).toBe(200)
    }
    // A second later still the same bytes: nothing in the text is the time of the request.
    const before = await get(`/events/${eventId}/ical`)
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const after = await get(`/events/${eventId}/ical`)
    expect(after.text).toBe(before.text)
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'))
  })

  it('answers If-Modified-Since from Last-Modified when no If-None-Match is sent', async () => {
    await quiet()
    for (const path of routes()) {
      const first = await get(path)
      const lastModified = first.headers.get('last-modified')!
      expect((await get(path, { 'if-modified-since': lastModified })).status, path).toBe(304)
      const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString()
      expect((await get(path, { 'if-modified-since': earlier })).status, path).toBe(200)
      expect((await get(path, { 'if-modified-since': 'yesterday-ish' })).status, path).toBe(200)
      // If-None-Match decides when both are sent.
      expect((await get(path, { 'if-modified-since': lastModified, 'if-none-match': '"nope"' })).status, path).toBe(200)
    }
  })

  it('serves the changed feed after an edit, a linked venue rename or a removal, on every route', async () => {
    const held = new Map<string, { etag: string; text: string }>()
    const snapshot = async () => {
      for (const path of routes()) {
        const res = await get(path)
        held.set(path, { etag: res.headers.get('etag')!, text: res.text })
      }
    }
    const expectChanged = async (what: string, paths = routes()) => {
      for (const path of paths) {
        const res = await get(path, { 'if-none-match': held.get(path)!.etag })
        expect(res.status, `${what}: ${path}`).toBe(200)
        expect(res.headers.get('etag'), `${what}: ${path}`).not.toBe(held.get(path)!.etag)
        expect(res.text, `${what}: ${path}`).not.toBe(held.get(path)!.text)
      }
    }
    await snapshot()
    await calendar.events.update(eventId, { title: 'Polled, renamed' })
    await expectChanged('title edit')
    await snapshot()
    const venue = await calendar.venues.create({ venue: 'Old Hall', status: 'publish' })
    await calendar.events.update(eventId, { venue: venue.id })
    await snapshot()
    await calendar.venues.update(venue.id as number, { venue: 'New Hall' })
    await expectChanged('venue rename', [`/events/ical`, `/events/${eventId}/ical`])
    await snapshot()
    const gone = (await calendar.events.create({ title: 'Short-lived', status: 'publish', start_date: '2026-04-06 10:00:00', end_date: '2026-04-06 11:00:00' })).id as number
    await snapshot()
    await calendar.events.delete(gone)
    await expectChanged('removal', ['/events/ical', `/events/ical?key=${key}`])
  })
})
