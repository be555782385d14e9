import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { BACKEND, freshCalendar, querySql } from '../../../../test-support/test-db.js'

// Issue 33: a create or an update costs few SQL statements, BEGIN and COMMIT counted (the budget
// is 6): the checks in one statement, the event and its links in one, the answer read once.
// Before, the bench's create cost 16 through the script API (18 over HTTP with the token check).
const NOW = new Date('2026-11-21T03:39:06Z')

describe(`statements per event write (${BACKEND})`, () => {
  let calendar: Calendar
  let statements: string[] = []
  let venue: number
  let organizers: number[]
  let categories: number[]
  let tags: number[]
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, onQuery: (sql) => statements.push(sql) })
    venue = (await calendar.venues.create({ venue: 'Hall' })).id as number
    organizers = [(await calendar.organizers.create({ organizer: 'A' })).id as number, (await calendar.organizers.create({ organizer: 'B' })).id as number]
    categories = [(await calendar.categories.create({ name: 'Jazz' })).id as number, (await calendar.categories.create({ name: 'Rock' })).id as number]
    tags = [(await calendar.tags.create({ name: 'x' })).id as number, (await calendar.tags.create({ name: 'y' })).id as number]
  })
  afterAll(() => calendar.close())

  const body = (i: number) => ({
    title: `Bench Meetup ${i}`,
    description: 'Doors open at seven.',
    start_date: '2026-12-01 18:00:00',
    end_date: '2026-12-01 21:00:00',
    timezone: 'Europe/Berlin',
    venue,
    organizer: organizers,
    categories,
    tags,
    cost: '$10',
  })

  async function counted<T>(write: () => Promise<T>): Promise<{ result: T; count: number }> {
    statements = []
    const result = await write()
    // A fold of the term counts' deltas runs after every 16th write: not this write's own work.
    return { result, count: statements.filter((s) => !/cal_fold_term_counts|^vacuum/.test(s)).length }
  }

  it('creates an event with a venue, two organizers, categories and tags in at most 5 statements', async () => {
    const { result, count } = await counted(() => calendar.events.create(body(1)))
    expect(count).toBeLessThanOrEqual(5)
    expect((result.venue as { id: number }).id).toBe(venue)
    expect((result.organizer as { id: number }[]).map((o) => o.id)).toEqual(organizers)
    expect((result.categories as { id: number; count: number }[]).map((c) => [c.id, c.count])).toEqual(categories.map((id) => [id, 1]))
    expect(result.slug).toBe('bench-meetup-1')
    // The same title again: the next free slug, picked in the same statement.
    const again = await counted(() => calendar.events.create(body(1)))
    expect(again.count).toBeLessThanOrEqual(5)
    expect(again.result.slug).toBe('bench-meetup-1-2')
  })

  it('updates fields, organizers and terms in at most 6 statements, a title alone in 5', async () => {
    const created = await calendar.events.create(body(2))
    const { result, count } = await counted(() =>
      calendar.events.update(created.id as number, { title: 'Renamed', organizer: [organizers[1]!], categories: [categories[1]!], tags: [] }),
    )
    // Reading the event (it decides permissions), the checks of the organizer ids, BEGIN, the
    // write, COMMIT, the answer.
    expect(count).toBeLessThanOrEqual(6)
    expect(result.title).toBe('Renamed')
    expect((result.organizer as { id: number }[]).map((o) => o.id)).toEqual([organizers[1]])
    expect((result.categories as { id: number }[]).map((c) => c.id)).toEqual([categories[1]])
    expect(result.tags).toEqual([])
    const title = await counted(() => calendar.events.update(created.id as number, { title: 'Renamed again' }))
    expect(title.count).toBeLessThanOrEqual(5)
    expect(title.result.title).toBe('Renamed again')
  })

  it('creates and updates over HTTP with a token in at most 6 statements, the new ETag from the read-back', async () => {
    const { token } = await calendar.tokens.create({ login: 'admin', role: 'administrator' })
    const send = (method: string, path: string, body: Record<string, unknown>) =>
      calendar.handle({ method, path: `/cal/events/v1${path}`, query: '', headers: { authorization: `Bearer ${token}` }, body, origin: 'http://cal.test' })
    // The token's first use records it (one statement more, once).
    await send('POST', '/events', body(4))
    const created = await counted(() => send('POST', '/events', body(5)))
    expect(created.result.status).toBe(201)
    // The token, the checks, BEGIN, the write, COMMIT, the answer (its ETag needs no other read).
    expect(created.count).toBeLessThanOrEqual(6)
    const id = (created.result.body as { id: number }).id
    const get = await calendar.handle({ method: 'GET', path: `/cal/events/v1/events/${id}`, query: '', headers: { authorization: `Bearer ${token}` }, origin: 'http://cal.test' })
    expect(created.result.headers.ETag).toBe(get.headers.ETag)
    const updated = await counted(() => send('PATCH', `/events/${id}`, { title: 'Over HTTP' }))
    expect(updated.result.status).toBe(200)
    // The token, BEGIN, the event (the update's transaction holds it), the write, the answer, COMMIT.
    expect(updated.count).toBeLessThanOrEqual(6)
    const after = await calendar.handle({ method: 'GET', path: `/cal/events/v1/events/${id}`, query: '', headers: { authorization: `Bearer ${token}` }, origin: 'http://cal.test' })
    expect(updated.result.headers.ETag).toBe(after.headers.ETag)
  })

  it('creates over HTTP with a kept token in 5 statements each when requests arrive together', async () => {
    const { token } = await calendar.tokens.create({ login: 'concurrent', role: 'administrator' })
    const send = (i: number) =>
      calendar.handle({ method: 'POST', path: '/cal/events/v1/events', query: '', headers: { authorization: `Bearer ${token}` }, body: body(100 + i), origin: 'http://cal.test' })
    expect((await send(0)).status).toBe(201)
    const n = 16
    const { result, count } = await counted(() => Promise.all(Array.from({ length: n }, (_, i) => send(i + 1))))
    expect(result.map((r) => r.status)).toEqual(Array(n).fill(201))
    // The token is no statement of its own: the change check that carries the version of the
    // tokens (one, or two when a request arrives while the first is on its way) serves them all.
    expect(count).toBeLessThanOrEqual(n * 5 + 2)
  })

  it('keeps term counts right when one update changes the status and the terms', async () => {
    const created = await calendar.events.create({ ...body(3), status: 'draft', categories: [categories[0]!], tags: [] })
    const before = await calendar.categories.get(categories[1]!)
    await calendar.events.update(created.id as number, { status: 'publish', categories: [categories[1]!] })
    const recount = async (id: number) =>
      Number((await querySql<{ n: string }>(`select count(*) as n from event_terms et join events e on e.id = et.event_id where et.term_id = ${id} and e.status = 'publish'`))[0]!.n)
    for (const id of categories) expect((await calendar.categories.get(id)).count).toBe(await recount(id))
    expect((await calendar.categories.get(categories[1]!)).count).toBe((before.count as number) + 1)
  })
})
