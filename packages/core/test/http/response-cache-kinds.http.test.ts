import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCalendar, type Calendar, type CategoryList, type EventResource, type TermResource } from '@cal-events/core'
import { freshCalendar, querySql, workerCalendarDatabase } from '../../../../test-support/test-db.js'
import { startServer, type TestServer, venueOf } from '../../../../test-support/http.js'

// Issue 30 item 1: operations declare what they read (`OperationPolicy.reads`), and the hot-read
// cache keeps an answer across changes of anything else: the change check names the kinds of
// change since its point. A kept answer must still be what a calendar without the cache answers,
// after a write of any kind: a read left out of a declaration shows here as a stale answer.

const START = new Date('2026-11-21T03:39:06Z')

/** The cache's check and its point (see `reads`). */
const CHECK_OR_POINT = /( as "?now"?| cal_check_changes\(\$1::pg_snapshot\) c)( \/\* schema-qualified \*\/)?$/

describe('hot-read cache by kind of change', () => {
  let calendar: Calendar
  let uncachedCalendar: Calendar
  let server: TestServer
  let uncached: TestServer
  let admin: string
  /**
   * Statements that read data: neither the cache's check nor its point (both end `as now`, or the check
   * is a call of `cal_check_changes` where statements are not named; behind a pooler then its mark, `SCHEMA_QUALIFIED`).
   */
  let reads = 0
  const ids = { event: 0, venue: 0, organizer: 0, category: 0, tag: 0 }
  const common = { now: () => START, publicBaseUrl: 'http://cal.test' }

  /** A GET with the number of statements that read data for it (0: served from the cache). */
  async function read<B = unknown>(path: string) {
    const before = reads
    const res = await server.request<B>('GET', path)
    return { ...res, statements: reads - before }
  }

  /** Reads `path` until it is kept (its second read keeps it), then checks it is served without reading data (only a 200 is kept). */
  async function warm(path: string) {
    await read(path)
    await read(path)
    const third = await read(path)
    if (third.status === 200) expect(third.statements, path).toBe(0)
  }

  beforeAll(async () => {
    calendar = await freshCalendar({ ...common, onQuery: (text) => void (CHECK_OR_POINT.test(text) ? 0 : reads++) })
    uncachedCalendar = await createCalendar({ ...common, database: await workerCalendarDatabase(2), migrate: false, responseCache: false })
    server = await startServer(calendar)
    uncached = await startServer(uncachedCalendar)
    admin = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
    const category = await server.request<TermResource>('POST', '/categories', { token: admin, body: { name: 'Music' } })
    const tag = await server.request<TermResource>('POST', '/tags', { token: admin, body: { name: 'Jazz' } })
    const created = await server.request<EventResource>('POST', '/events', {
      token: admin,
      body: {
        title: 'Kept Concert',
        start_date: '2026-12-01 10:00:00',
        end_date: '2026-12-01 12:00:00',
        venue: { venue: 'Old Hall', image: 'https://example.org/hall.png' },
        organizer: [{ organizer: 'Ann' }],
        categories: [category.body.id],
        tags: [tag.body.id],
        image: 'https://example.org/poster.png',
      },
    })
    expect(created.status).toBe(201)
    Object.assign(ids, {
      event: created.body.id,
      venue: venueOf(created.body)?.id,
      organizer: created.body.organizer[0]!.id,
      category: category.body.id,
      tag: tag.body.id,
    })
  })
  afterAll(async () => {
    await server?.close()
    await uncached?.close()
    await uncachedCalendar?.close()
    await calendar?.close()
  })

  const paths = () => [
    '/events',
    `/events/${ids.event}`,
    '/venues',
    `/venues/${ids.venue}`,
    '/organizers',
    `/organizers/${ids.organizer}`,
    '/categories',
    '/categories?hide_empty=false',
    `/categories/${ids.category}`,
    '/tags?hide_empty=1',
  ]

  it('keeps a category list across a venue edit, and drops it on an event edit', async () => {
    const categories = '/categories?hide_empty=false'
    await warm(categories)
    await warm(`/events/${ids.event}`)
    const renamed = await server.request('POST', `/venues/${ids.venue}`, { token: admin, body: { venue: 'New Hall' } })
    expect(renamed.status).toBe(200)
    expect((await read(categories)).statements).toBe(0)
    const event = await read<EventResource>(`/events/${ids.event}`)
    expect(event.statements).toBeGreaterThan(0)
    expect(venueOf(event.body)?.venue).toBe('New Hall')
    // A draft's category counts nothing, and one only drafts carry is not shown: the change reaches the kept list.
    expect((await read<CategoryList>(categories)).body.categories[0]!.count).toBe(1)
    await warm(categories)
    expect((await server.request('POST', `/events/${ids.event}`, { token: admin, body: { status: 'draft' } })).status).toBe(200)
    const list = await read<CategoryList>(categories)
    expect(list.statements).toBeGreaterThan(0)
    expect(list.body.categories).toEqual([])
    expect((await server.request('POST', `/events/${ids.event}`, { token: admin, body: { status: 'publish' } })).status).toBe(200)
  })

  // Each write changes something some answer shows, past the API (the change log's triggers see it).
  const writes: Record<string, () => string> = {
    // Undone by the next write: a private event answers 401 to anonymous readers, which is never kept.
    'an event title': () => `update events set title = title || '!' where id = ${ids.event}`,
    "an event's status": () => `update events set status = 'private' where id = ${ids.event}`,
    "an event's status again": () => `update events set status = 'publish' where id = ${ids.event}`,
    "an event's cost": () => `update events set cost_values = array[cardinality(cost_values)::text] where id = ${ids.event}`,
    'a venue': () => `update venues set title = title || '!', city = 'Lyon' where id = ${ids.venue}`,
    'an organizer': () => `update organizers set title = title || '!' where id = ${ids.organizer}`,
    'a term': () => `update terms set name = name || '!' where id in (${ids.category}, ${ids.tag})`,
    "an event's categories": () =>
      `with gone as (delete from event_terms where event_id = ${ids.event} and term_id = ${ids.category} returning 1)
       insert into event_terms (event_id, term_id) select ${ids.event}, ${ids.category} where not exists (select from gone)`,
    "an event's organizers": () =>
      `with gone as (delete from event_organizers where event_id = ${ids.event} returning 1)
       insert into event_organizers (event_id, organizer_id) select ${ids.event}, ${ids.organizer} where not exists (select from gone)`,
    'an image': () => `update images set url = url || '?v' where id in (select image_id from venues where id = ${ids.venue})`,
  }

  it.each(Object.keys(writes))('serves after a change of %s what a calendar without the cache serves', async (name) => {
    for (const path of paths()) await warm(path)
    await querySql(writes[name]!())
    const served: string[] = []
    for (const path of paths()) {
      const [on, off] = [await read(path), await uncached.request('GET', path)]
      expect(on.status, path).toBe(off.status)
      expect(on.body, `${path} after a change of ${name}`).toEqual(off.body)
      if (on.statements === 0) served.push(path)
    }
    // Not every kept answer was dropped: each change leaves some answer that does not read it.
    expect(served.length, `kept answers after a change of ${name}`).toBeGreaterThan(0)
  })
})
