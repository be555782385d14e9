import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCalendar, type Calendar, type EventResource } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type ErrorBody, type TestServer, venueOf } from '../../../../test-support/http.js'
import type { Document } from '../../../../test-support/openapi.js'

// Issue 18 item 2: updates and deletes honour If-Match (and If-Unmodified-Since); a stale tag is a
// 412 `precondition-failed` that writes nothing; writes answer the new ETag, the one a GET by the
// same caller gives.

const NOW = new Date('2026-11-21T03:39:06Z')
const event = (extra: Record<string, unknown> = {}) => ({
  title: 'Guarded Event',
  start_date: '2026-12-01 10:00:00',
  end_date: '2026-12-01 12:00:00',
  ...extra,
})

const backends: [string, () => Promise<Calendar>][] = [
  ['PostgreSQL', () => freshCalendar({ now: () => NOW })],
  ['PGlite', () => createCalendar({ now: () => NOW })],
]

describe.each(backends)('If-Match and If-Unmodified-Since on %s', (_name, open) => {
  let calendar: Calendar
  let server: TestServer
  let alice: string
  let bob: string

  beforeAll(async () => {
    calendar = await open()
    server = await startServer(calendar)
    alice = (await calendar.tokens.create({ role: 'editor', login: 'alice' })).token
    bob = (await calendar.tokens.create({ role: 'editor', login: 'bob' })).token
  })
  afterAll(async () => {
    await server?.close()
    await calendar?.close()
  })

  const tagOf = async (path: string, token: string) => {
    const res = await server.request('GET', path, { token })
    expect(res.status, path).toBe(200)
    return res.headers.get('etag')!
  }
  const create = async (path: string, body: Record<string, unknown>) => {
    const res = await server.request<{ id: number }>('POST', path, { token: alice, body })
    expect(res.status, path).toBe(201)
    return res.body.id
  }

  it('two editors hold a tag each: the first save wins, the second gets 412 and the first save stays', async () => {
    const id = await create('/events', event())
    const path = `/events/${id}`
    const aliceTag = await tagOf(path, alice)
    const bobTag = await tagOf(path, bob)
    // Tags are per caller: an editor's tag is not another editor's.
    expect(aliceTag).not.toBe(bobTag)

    const first = await server.request('PUT', path, { token: alice, headers: { 'if-match': aliceTag }, body: { title: 'Alice was here' } })
    expect(first.status).toBe(200)
    const newTag = first.headers.get('etag')
    expect(newTag).toMatch(/^"[A-Za-z0-9_-]{32}"$/)
    expect(newTag).not.toBe(aliceTag)
    // The write's tag is what a GET by the same caller answers now, so edits can be chained.
    expect(await tagOf(path, alice)).toBe(newTag)

    const second = await server.request('PUT', path, { token: bob, headers: { 'if-match': bobTag }, body: { title: 'Bob was here' } })
    expect(second.status).toBe(412)
    expect(second.body).toMatchObject({ code: 'precondition-failed', data: { status: 412 } })
    expect(second.headers.get('etag')).toBeNull()
    expect((await server.request<EventResource>('GET', path, { token: bob })).body.title).toBe('Alice was here')

    // Bob re-reads, retries with the fresh tag, and Alice chains on the tag her save returned: stale now.
    const retried = await server.request('PATCH', path, { token: bob, headers: { 'if-match': await tagOf(path, bob) }, body: { title: 'Bob, after reading' } })
    expect(retried.status).toBe(200)
    const chained = await server.request('POST', path, { token: alice, headers: { 'if-match': newTag! }, body: { title: 'Alice again' } })
    expect(chained.status).toBe(412)
    expect((await server.request<EventResource>('GET', path, { token: alice })).body.title).toBe('Bob, after reading')
  })

  it('refuses a delete with a stale tag, then deletes with the current one', async () => {
    const id = await create('/events', event({ title: 'To trash' }))
    const path = `/events/${id}`
    const stale = await tagOf(path, alice)
    expect((await server.request('POST', path, { token: alice, body: { description: 'edited' } })).status).toBe(200)
    const refused = await server.request<ErrorBody>('DELETE', path, { token: alice, headers: { 'if-match': stale } })
    expect(refused.status).toBe(412)
    expect(refused.body.code).toBe('precondition-failed')
    expect((await server.request<EventResource>('GET', path, { token: alice })).body.status).toBe('publish')
    const deleted = await server.request<EventResource>('DELETE', path, { token: alice, headers: { 'if-match': await tagOf(path, alice) } })
    expect(deleted.status).toBe(200)
    expect(deleted.body.status).toBe('trash')
    // A delete answers the item as trashed, which no GET shows: no tag.
    expect(deleted.headers.get('etag')).toBeNull()
  })

  it('takes "*" as "the item exists", a list with one current tag, and never a weak tag', async () => {
    const id = await create('/events', event({ title: 'Star' }))
    const path = `/events/${id}`
    const star = await server.request('PUT', path, { token: alice, headers: { 'if-match': '*' }, body: { title: 'Star 2' } })
    expect(star.status).toBe(200)
    // On a missing item the normal not-found answer comes first (RFC 9110 13.2.1).
    const missing = await server.request<ErrorBody>('PUT', '/events/999999', { token: alice, headers: { 'if-match': '*' }, body: { title: 'x' } })
    expect(missing.status).toBe(404)
    expect(missing.body.code).toBe('rest-event-not-found')
    const missingVenue = await server.request('DELETE', '/venues/999999', { token: alice, headers: { 'if-match': '"abc"' } })
    expect(missingVenue.status).toBe(400)

    const current = await tagOf(path, alice)
    const listed = await server.request('PUT', path, { token: alice, headers: { 'if-match': `"stale", ${current}` }, body: { title: 'Star 3' } })
    expect(listed.status).toBe(200)
    const weak = await server.request<ErrorBody>('PUT', path, { token: alice, headers: { 'if-match': `W/${listed.headers.get('etag')}` }, body: { title: 'weak' } })
    expect(weak.status).toBe(412)
    expect(weak.body.code).toBe('precondition-failed')
    expect((await server.request<EventResource>('GET', path, { token: alice })).body.title).toBe('Star 3')
  })

  it('takes any listed tag, wherever it stands and with empty list elements (RFC 9110 5.6.1, 13.1.1)', async () => {
    const id = await create('/events', event({ title: 'Listed' }))
    const path = `/events/${id}`
    const forms = ['"stale", CUR', 'CUR, "stale"', '"a",CUR,"b"', ', CUR', '"stale", , CUR', 'CUR,,"x",', ' ,, CUR ,']
    for (const [i, form] of forms.entries()) {
      const current = await tagOf(path, alice)
      const res = await server.request('PATCH', path, { token: alice, headers: { 'if-match': form.replace('CUR', current) }, body: { title: `Listed ${i}` } })
      expect(res.status, form).toBe(200)
      // A list without the current tag, empty elements or not, is a 412 and writes nothing.
      const stale = await server.request('PATCH', path, { token: alice, headers: { 'if-match': form.replace('CUR', current) }, body: { title: 'lost' } })
      expect(stale.status, form).toBe(412)
    }
    expect((await server.request<EventResource>('GET', path, { token: alice })).body.title).toBe(`Listed ${forms.length - 1}`)
    // The same lists in If-None-Match revalidate a read.
    const current = await tagOf(path, alice)
    for (const form of forms) {
      const res = await server.request('GET', path, { token: alice, headers: { 'if-none-match': form.replace('CUR', current) } })
      expect(res.status, form).toBe(304)
    }
  })

  it('answers a malformed If-Match with 400 and writes nothing; a malformed If-None-Match is ignored', async () => {
    const id = await create('/events', event({ title: 'Malformed' }))
    const path = `/events/${id}`
    for (const bad of ['no-quotes', '"unterminated', '""x', ',', 'W/', '', '"a" "b"']) {
      const res = await server.request('PUT', path, { token: alice, headers: { 'if-match': bad }, body: { title: 'changed' } })
      expect(res.status, bad).toBe(400)
      expect(res.body, bad).toMatchObject({ code: 'rest_invalid_if_match', data: { status: 400 } })
      const del = await server.request('DELETE', path, { token: alice, headers: { 'if-match': bad } })
      expect(del.status, bad).toBe(400)
    }
    const got = await server.request<EventResource>('GET', path, { token: alice })
    expect(got.body.title).toBe('Malformed')
    expect(got.body.status).toBe('publish')
    const ignored = await server.request('PUT', path, { token: alice, headers: { 'if-none-match': 'no-quotes' }, body: { title: 'ok' } })
    expect(ignored.status).toBe(200)
    // A valid If-None-Match: "*" (or the current tag) on a write to an existing item is a 412.
    const noneStar = await server.request('PUT', path, { token: alice, headers: { 'if-none-match': '*' }, body: { title: 'no' } })
    expect(noneStar.status).toBe(412)
    const noneCurrent = await server.request('PUT', path, { token: alice, headers: { 'if-none-match': await tagOf(path, alice) }, body: { title: 'no' } })
    expect(noneCurrent.status).toBe(412)
    expect((await server.request<EventResource>('GET', path, { token: alice })).body.title).toBe('ok')
  })

  it('guards every item route: event, venue and organizer by id and by slug, category and tag', async () => {
    const eventId = await create('/events', event({ title: 'Route Event' }))
    const venueId = await create('/venues', { venue: 'Route Hall' })
    const organizerId = await create('/organizers', { organizer: 'Route Crew' })
    const categoryId = await create('/categories', { name: 'Route Category' })
    const tagId = await create('/tags', { name: 'Route Tag' })
    const cases: { read: string; write: string; body: Record<string, unknown>; field: string; value: string }[] = [
      { read: `/events/${eventId}`, write: `/events/${eventId}`, body: { title: 'E1' }, field: 'title', value: 'E1' },
      { read: `/events/${eventId}`, write: '/events/by-slug/route-event', body: { title: 'E2' }, field: 'title', value: 'E2' },
      { read: `/venues/${venueId}`, write: `/venues/${venueId}`, body: { city: 'V1' }, field: 'city', value: 'V1' },
      { read: `/venues/${venueId}`, write: '/venues/by-slug/route-hall', body: { city: 'V2' }, field: 'city', value: 'V2' },
      { read: `/organizers/${organizerId}`, write: `/organizers/${organizerId}`, body: { phone: '1' }, field: 'phone', value: '1' },
      { read: `/organizers/${organizerId}`, write: '/organizers/by-slug/route-crew', body: { phone: '2' }, field: 'phone', value: '2' },
      { read: `/categories/${categoryId}`, write: `/categories/${categoryId}`, body: { description: 'C1' }, field: 'description', value: 'C1' },
      { read: `/tags/${tagId}`, write: `/tags/${tagId}`, body: { description: 'T1' }, field: 'description', value: 'T1' },
    ]
    for (const c of cases) {
      const before = await tagOf(c.read, alice)
      // GET by slug and by id answer the same tag, so either may guard a write by the other.
      if (c.write.includes('by-slug')) expect(await tagOf(c.write, alice), c.write).toBe(before)
      const ok = await server.request('PUT', c.write, { token: alice, headers: { 'if-match': before }, body: c.body })
      expect(ok.status, c.write).toBe(200)
      expect(ok.headers.get('etag'), c.write).toBe(await tagOf(c.read, alice))
      const stale = await server.request<ErrorBody>('PUT', c.write, { token: alice, headers: { 'if-match': before }, body: { ...c.body, [c.field]: 'lost' } })
      expect(stale.status, c.write).toBe(412)
      expect(stale.body.code, c.write).toBe('precondition-failed')
      expect((await server.request<Record<string, unknown>>('GET', c.read, { token: alice })).body[c.field], c.write).toBe(c.value)
    }
    // Deletes: a stale tag keeps the item; the current one deletes it.
    const deletes: { read: string; write: string }[] = [
      { read: `/events/${eventId}`, write: '/events/by-slug/route-event' },
      { read: `/venues/${venueId}`, write: '/venues/by-slug/route-hall' },
      { read: `/organizers/${organizerId}`, write: `/organizers/${organizerId}` },
      { read: `/categories/${categoryId}`, write: `/categories/${categoryId}` },
      { read: `/tags/${tagId}`, write: `/tags/${tagId}` },
    ]
    for (const d of deletes) {
      const refused = await server.request('DELETE', d.write, { token: alice, headers: { 'if-match': '"0000000000000000000000000000000x"' } })
      expect(refused.status, d.write).toBe(412)
      expect((await server.request('GET', d.read, { token: alice })).status, d.write).toBe(200)
      const deleted = await server.request('DELETE', d.write, { token: alice, headers: { 'if-match': await tagOf(d.read, alice) } })
      expect(deleted.status, d.write).toBe(200)
    }
  })

  it("a venue rename changes an embedding event's tag: If-Match with the event's old tag is a 412", async () => {
    const created = await server.request<EventResource>('POST', '/events', { token: alice, body: event({ title: 'Embedding', venue: { venue: 'Embedded Hall' } }) })
    expect(created.status).toBe(201)
    const path = `/events/${created.body.id}`
    // The create's tag is the GET's tag too.
    const tag = await tagOf(path, alice)
    expect(created.headers.get('etag')).toBe(tag)
    const renamed = await server.request('POST', `/venues/${venueOf(created.body)?.id}`, { token: bob, body: { venue: 'Renamed Hall' } })
    expect(renamed.status).toBe(200)
    const stale = await server.request('PUT', path, { token: alice, headers: { 'if-match': tag }, body: { title: 'Overwrite' } })
    expect(stale.status).toBe(412)
    expect((await server.request<EventResource>('GET', path, { token: alice })).body.title).toBe('Embedding')
  })

  it('honours If-Unmodified-Since on posts (seconds, HTTP-date), ignores it beside If-Match, when invalid, and on terms', async () => {
    const id = await create('/events', event({ title: 'Since' }))
    const path = `/events/${id}`
    // The clock is fixed: the event was modified at NOW.
    const before = new Date(NOW.getTime() - 1000).toUTCString()
    const at = NOW.toUTCString()
    const refused = await server.request<ErrorBody>('PUT', path, { token: alice, headers: { 'if-unmodified-since': before }, body: { title: 'no' } })
    expect(refused.status).toBe(412)
    expect(refused.body.code).toBe('precondition-failed')
    // The obsolete forms are read too (RFC 9110 5.6.7).
    const asctime = await server.request('PUT', path, { token: alice, headers: { 'if-unmodified-since': 'Sat Nov 21 03:39:05 2026' }, body: { title: 'no' } })
    expect(asctime.status).toBe(412)
    const rfc850 = await server.request('PUT', path, { token: alice, headers: { 'if-unmodified-since': 'Saturday, 21-Nov-26 03:39:05 GMT' }, body: { title: 'no' } })
    expect(rfc850.status).toBe(412)
    expect((await server.request<EventResource>('GET', path, { token: alice })).body.title).toBe('Since')
    expect((await server.request('PUT', path, { token: alice, headers: { 'if-unmodified-since': at }, body: { title: 'at' } })).status).toBe(200)
    for (const invalid of ['yesterday', 'Sat, 31 Feb 2026 00:00:00 GMT', '2026-11-21T03:39:06Z']) {
      const res = await server.request('PUT', path, { token: alice, headers: { 'if-unmodified-since': invalid }, body: { title: invalid } })
      expect(res.status, invalid).toBe(200)
    }
    // If-Match wins: a current tag passes although the date is older.
    const both = await server.request('PUT', path, { token: alice, headers: { 'if-match': await tagOf(path, alice), 'if-unmodified-since': before }, body: { title: 'both' } })
    expect(both.status).toBe(200)
    const del = await server.request('DELETE', path, { token: alice, headers: { 'if-unmodified-since': before } })
    expect(del.status).toBe(412)
    // Terms keep no modified time: the header is ignored.
    const tagId = await create('/tags', { name: 'Timeless' })
    expect((await server.request('PUT', `/tags/${tagId}`, { token: alice, headers: { 'if-unmodified-since': before }, body: { description: 'd' } })).status).toBe(200)
  })

  it('lets exactly one of two concurrent saves with the same tag through', async () => {
    const id = await create('/events', event({ title: 'Race' }))
    const path = `/events/${id}`
    const tag = await tagOf(path, alice)
    const saves = await Promise.all(
      ['One', 'Two', 'Three'].map((title) => server.request<EventResource>('PUT', path, { token: alice, headers: { 'if-match': tag }, body: { title } })),
    )
    const statuses = saves.map((r) => r.status).sort()
    expect(statuses).toEqual([200, 412, 412])
    const winner = saves.find((r) => r.status === 200)!
    expect((await server.request<EventResource>('GET', path, { token: alice })).body.title).toBe(winner.body.title)
  })

  it("guards an occurrence delete with the series' tag and answers the series' new tag", async () => {
    const series = await server.request<EventResource>('POST', '/events', {
      token: alice,
      body: event({ title: 'Series', start_date: '2027-03-16 10:00:00', end_date: '2027-03-16 11:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'] }),
    })
    expect(series.status, JSON.stringify(series.body)).toBe(201)
    const path = `/events/${series.body.id}`
    const tag = await tagOf(path, alice)
    expect((await server.request('POST', path, { token: alice, body: { description: 'changed' } })).status).toBe(200)
    const stale = await server.request('DELETE', `${path}/occurrences/20270323T100000Z`, { token: alice, headers: { 'if-match': tag } })
    expect(stale.status).toBe(412)
    expect((await server.request('GET', `${path}/occurrences/20270323T100000Z`, { token: alice })).status).toBe(200)
    const ok = await server.request('DELETE', `${path}/occurrences/20270323T100000Z`, { token: alice, headers: { 'if-match': await tagOf(path, alice) } })
    expect(ok.status, JSON.stringify(ok.body)).toBe(200)
    expect(ok.headers.get('etag')).toBe(await tagOf(path, alice))
    expect((await server.request('GET', `${path}/occurrences/20270323T100000Z`, { token: alice })).status).toBe(404)
  })

  it("guards a change of one occurrence with that occurrence's tag and answers its new tag", async () => {
    const id = await create('/events', event({ title: 'Weekly', start_date: '2027-04-06 10:00:00', end_date: '2027-04-06 11:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'] }))
    const occurrence = `/events/${id}/occurrences/20270413T100000Z`
    // The first change (no exception yet) with the tag of the occurrence as computed from the series.
    const fresh = await tagOf(occurrence, alice)
    const first = await server.request('PATCH', occurrence, { token: alice, headers: { 'if-match': fresh }, body: { title: 'Weekly (moved)' } })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(first.headers.get('etag')).toBe(await tagOf(occurrence, alice))
    // The tag it replaced, and the series' tag, are stale for the occurrence: 412, nothing written.
    for (const tag of [fresh, await tagOf(`/events/${id}`, alice)]) {
      const stale = await server.request<ErrorBody>('PATCH', occurrence, { token: alice, headers: { 'if-match': tag }, body: { title: 'lost' } })
      expect(stale.status).toBe(412)
      expect(stale.body.code).toBe('precondition-failed')
    }
    expect((await server.request<EventResource>('GET', occurrence, { token: alice })).body.title).toBe('Weekly (moved)')
    // Another editor's change makes alice's tag stale.
    const aliceTag = await tagOf(occurrence, alice)
    expect((await server.request('PATCH', occurrence, { token: bob, headers: { 'if-match': await tagOf(occurrence, bob) }, body: { title: 'Bob' } })).status).toBe(200)
    expect((await server.request('PUT', occurrence, { token: alice, headers: { 'if-match': aliceTag }, body: { title: 'Alice' } })).status).toBe(412)
    const ok = await server.request<EventResource>('POST', occurrence, { token: alice, headers: { 'if-match': await tagOf(occurrence, alice) }, body: { title: 'Alice' } })
    expect([ok.status, ok.body.title]).toEqual([200, 'Alice'])
    expect(ok.headers.get('etag')).toBe(await tagOf(occurrence, alice))
  })

  it("guards a split (this and following) with the series' tag; answers 201, Location and the new series' tag", async () => {
    const id = await create('/events', event({ title: 'Club', start_date: '2027-05-04 18:00:00', end_date: '2027-05-04 19:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'] }))
    const path = `/events/${id}`
    const following = `${path}/occurrences/20270518T180000Z/following`
    const tag = await tagOf(path, alice)
    expect((await server.request('POST', path, { token: alice, body: { description: 'changed' } })).status).toBe(200)
    const stale = await server.request('PATCH', following, { token: alice, headers: { 'if-match': tag }, body: { title: 'Club (new)' } })
    expect(stale.status).toBe(412)
    expect((await server.request<EventResource>('GET', path, { token: alice })).body.recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=6'])
    const split = await server.request<EventResource>('PATCH', following, { token: alice, headers: { 'if-match': await tagOf(path, alice) }, body: { title: 'Club (new)' } })
    expect(split.status, JSON.stringify(split.body)).toBe(201)
    expect(split.body).toMatchObject({ title: 'Club (new)', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] })
    expect(split.headers.get('location')).toBe(`${server.base}/events/${split.body.id}`)
    expect(split.headers.get('etag')).toBe(await tagOf(`/events/${split.body.id}`, alice))
    expect((await server.request<EventResource>('GET', path, { token: alice })).body.recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=2'])
    // The same split again: the old series has no such occurrence any more.
    expect((await server.request<ErrorBody>('PATCH', following, { token: alice, body: { title: 'Club (new)' } })).body.code).toBe('rest-event-occurrence-not-found')
  })

  it("lets only who may edit the series split it (contributor 403, anonymous 401, the series' author 201)", async () => {
    const carl = (await calendar.tokens.create({ role: 'contributor', login: 'carl' })).token
    const dora = (await calendar.tokens.create({ role: 'author', login: 'dora' })).token
    const id = await create('/events', event({ title: 'Choir', start_date: '2027-06-01 19:00:00', end_date: '2027-06-01 20:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] }))
    const following = `/events/${id}/occurrences/20270615T190000Z/following`
    expect((await server.request('PATCH', following, { token: carl, body: { title: 'x' } })).status).toBe(403)
    expect((await server.request('PATCH', following, { token: dora, body: { title: 'x' } })).status).toBe(403)
    expect((await server.request('PATCH', following, { body: { title: 'x' } })).status).toBe(401)
    expect((await server.request<EventResource>('GET', `/events/${id}`, { token: alice })).body.recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=4'])
    const own = await server.request<EventResource>('POST', '/events', { token: dora, body: event({ title: 'Dora', start_date: '2027-06-02 19:00:00', end_date: '2027-06-02 20:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] }) })
    expect(own.status).toBe(201)
    const split = await server.request('PATCH', `/events/${own.body.id}/occurrences/20270616T190000Z/following`, { token: dora, body: { title: 'Dora (summer)' } })
    expect(split.status, JSON.stringify(split.body)).toBe(201)
    expect(split.body).toMatchObject({ author: own.body.author, status: 'publish' })
  })

  it('says all of it in the OpenAPI document: parameters, 412, 304 and ETag headers', async () => {
    const doc = (await server.request<Document>('GET', '/doc')).body
    const writes: [string, string][] = [
      ['/events/{id}', 'put'], ['/events/by-slug/{slug}', 'delete'], ['/venues/{id}', 'patch'], ['/organizers/by-slug/{slug}', 'post'],
      ['/categories/{id}', 'delete'], ['/tags/{id}', 'put'],
    ]
    for (const [path, method] of writes) {
      const op = doc.paths[path]![method]!
      const headers = op.parameters!.filter((p: { in: string }) => p.in === 'header').map((p: { name: string }) => p.name)
      expect(headers, `${method} ${path}`).toEqual(expect.arrayContaining(['If-Match', 'If-Unmodified-Since', 'If-None-Match']))
      expect(JSON.stringify(op.responses['412']), `${method} ${path}`).toContain('precondition-failed')
      expect(JSON.stringify(op.responses['400']), `${method} ${path}`).toContain('rest_invalid_if_match')
      if (method !== 'delete') expect(op.responses['200']!.headers!.ETag, `${method} ${path}`).toBeDefined()
    }
    expect(doc.paths['/events']!.post!.responses['201']!.headers!.ETag).toBeDefined()
    expect(doc.paths['/events']!.post!.responses['412']).toBeUndefined()
    for (const path of ['/events', '/events/{id}', '/tags/{id}', '/', '/doc']) {
      const op = doc.paths[path]!.get!
      expect(op.responses['200']!.headers!.ETag, path).toBeDefined()
      expect(op.responses['304'], path).toBeDefined()
      expect(op.parameters!.map((p: { name: string }) => p.name), path).toContain('If-None-Match')
      expect(op.responses['412'], path).toBeUndefined()
    }
  })

  it('sends an ETag on creates and updates without preconditions, and leaves everything else as it was', async () => {
    for (const [path, body] of [
      ['/events', event({ title: 'Plain' })],
      ['/venues', { venue: 'Plain Hall' }],
      ['/organizers', { organizer: 'Plain Crew' }],
      ['/categories', { name: 'Plain Category' }],
      ['/tags', { name: 'Plain Tag' }],
    ] as const) {
      const created = await server.request<{ id: number }>('POST', path, { token: alice, body })
      expect(created.status, path).toBe(201)
      const item = `${path}/${created.body.id}`
      expect(created.headers.get('etag'), path).toBe(await tagOf(item, alice))
      const updated = await server.request('POST', item, { token: alice, body: { description: 'plain' } })
      expect(updated.status, path).toBe(200)
      expect(updated.headers.get('etag'), path).toBe(await tagOf(item, alice))
    }
  })
})

const compatBackends: [string, () => Promise<Calendar>][] = [
  ['PostgreSQL', () => freshCalendar({ now: () => NOW, wpCompat: true })],
  ['PGlite', () => createCalendar({ now: () => NOW, wpCompat: true })],
]

describe.each(compatBackends)('conditional writes under concurrency and on the compatibility path, %s', (_name, open) => {
  let calendar: Calendar
  let server: TestServer
  let admin: string

  beforeAll(async () => {
    calendar = await open()
    server = await startServer(calendar)
    admin = (await calendar.tokens.create({ role: 'administrator', login: 'root' })).token
  })
  afterAll(async () => {
    await server?.close()
    await calendar?.close()
  })

  const tagOf = async (path: string) => (await server.request('GET', path, { token: admin })).headers.get('etag')!

  it('deletes a category and its child at once, both conditional, without a deadlock (tree lock before row lock)', async () => {
    for (let round = 0; round < 8; round++) {
      const parent = await server.request<{ id: number }>('POST', '/categories', { token: admin, body: { name: `Parent ${round}` } })
      const child = await server.request<{ id: number }>('POST', '/categories', { token: admin, body: { name: `Child ${round}`, parent: parent.body.id } })
      const [parentPath, childPath] = [`/categories/${parent.body.id}`, `/categories/${child.body.id}`]
      const [parentTag, childTag] = [parent.headers.get('etag')!, child.headers.get('etag')!]
      const answers = await Promise.all([
        server.request('DELETE', childPath, { token: admin, headers: { 'if-match': childTag } }),
        server.request('DELETE', parentPath, { token: admin, headers: { 'if-match': parentTag } }),
        server.request('PUT', childPath, { token: admin, headers: { 'if-match': childTag }, body: { description: 'moved?' } }),
      ])
      // Whoever runs second finds a changed (412) or missing (400) item; never a 5xx.
      for (const res of answers) expect([200, 400, 412], JSON.stringify(res.body)).toContain(res.status)
      expect(answers[1]!.status, JSON.stringify(answers[1]!.body)).toBe(200)
    }
  })

  it('binds tags to the path they were read under (the bodies differ in their links)', async () => {
    const wp = server.base.replace('/cal/events/v1', '/wp-json/tribe/events/v1')
    const send = (method: string, url: string, headers: Record<string, string>, body?: unknown) =>
      fetch(url, { method, headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) })
    const created = await send('POST', `${wp}/events`, {}, { title: 'Compat', start_date: '2026-12-02 10:00:00', end_date: '2026-12-02 11:00:00' })
    expect(created.status).toBe(201)
    const id = ((await created.json()) as { id: number }).id
    const wpTag = (await send('GET', `${wp}/events/${id}`, {})).headers.get('etag')
    expect(created.headers.get('etag')).toBe(wpTag)
    const ourTag = await tagOf(`/events/${id}`)
    expect(ourTag).not.toBe(wpTag)
    expect((await send('PUT', `${wp}/events/${id}`, { 'if-match': ourTag }, { title: 'Wrong path tag' })).status).toBe(412)
    const ok = await send('PUT', `${wp}/events/${id}`, { 'if-match': wpTag! }, { title: 'Right path tag' })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('etag')).toBe((await send('GET', `${wp}/events/${id}`, {})).headers.get('etag'))
  })
})
