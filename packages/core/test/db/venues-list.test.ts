import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, EventInput, Principal } from '@cal-events/core'
import { BACKEND, freshCalendar } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const SITE = 'http://127.0.0.1:3000'
const COLLECTION = `${SITE}/cal/events/v1/venues/`
const anonymous = { as: null }
const as = (id: number, role: Principal['role']) => ({ as: { id, role } })
const contributor = as(201, 'contributor')
const editor = as(301, 'editor')

type Named = { venues: { venue?: string }[] }
const names = (list: Named) => list.venues.map((v) => v.venue)

describe(`venues list: filters, paging, visibility (${BACKEND})`, () => {
  let calendar: Calendar
  const ids: Record<string, number> = {}
  const eventIds: Record<string, number> = {}

  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: SITE })
    const v = calendar.venues
    ids.alpha = (await v.create({ venue: 'Alpha Hall', city: 'Springfield', date: '2026-01-01 10:00:00' })).id
    ids.beta = (await v.create({ venue: 'Beta Club', address: '12 Elm Street', phone: '555-0199', date: '2026-02-01 10:00:00' })).id
    ids.gamma = (await v.create({ venue: 'Gamma Room', description: 'A cosy basement', zip: '90210', date: '2026-03-01 10:00:00' })).id
    ids.zeta = (await v.create({ venue: 'Zeta Yard', province: 'Bayern', country: 'Germany', website: 'https://zeta.example', date: '2026-04-01 10:00:00' })).id
    ids.theta = (await v.create({ venue: 'Theta Court', date: '2026-04-15 10:00:00' })).id
    ids.epsilon = (await v.create({ venue: 'Epsilon Gone', date: '2026-05-01 10:00:00' })).id
    await v.delete(ids.epsilon)
    ids.delta = (await v.create({ venue: 'Delta Draft' }, contributor)).id
    ids.echo = (await v.create({ venue: 'Echo Draft' }, as(202, 'contributor'))).id

    const event = (title: string, start: string, venue: number, status: EventInput['status'] = 'publish') =>
      calendar.events.create({ title, start_date: start, end_date: start.replace('10:00', '11:00'), venue, status }).then((e) => e.id)
    eventIds.upcoming = await event('Upcoming at Alpha', '2027-01-10 10:00:00', ids.alpha)
    eventIds.draft = await event('Draft at Beta', '2027-01-11 10:00:00', ids.beta, 'draft')
    eventIds.past = await event('Past at Gamma', '2025-06-01 10:00:00', ids.gamma)
    eventIds.trashed = await event('Trashed at Zeta', '2027-02-01 10:00:00', ids.zeta)
    await calendar.events.delete(eventIds.trashed)
    eventIds.private = await event('Private at Theta', '2027-03-01 10:00:00', ids.theta, 'private')
  })
  afterAll(() => calendar.close())

  it('lists published venues newest first in the contract envelope', async () => {
    const list = await calendar.venues.list({}, anonymous)
    expect(names(list)).toEqual(['Theta Court', 'Zeta Yard', 'Gamma Room', 'Beta Club', 'Alpha Hall'])
    expect(Object.keys(list)).toEqual(['venues', 'rest_url', 'total', 'total_pages'])
    expect(list).toMatchObject({ rest_url: `${COLLECTION}?page=1&per_page=5`, total: 5, total_pages: 1 })
    expect(list.venues[0]).not.toHaveProperty('json_ld')
  })

  it('pages with next/previous links and answers 404 past the end', async () => {
    const first = await calendar.venues.list({ per_page: 2 })
    expect(Object.keys(first)).toEqual(['venues', 'rest_url', 'next_rest_url', 'total', 'total_pages'])
    expect(first).toMatchObject({ total: 7, total_pages: 4, next_rest_url: `${COLLECTION}?page=2&per_page=2` })
    const second = await calendar.venues.list({ per_page: 2, page: 2 }, anonymous)
    expect(names(second)).toEqual(['Gamma Room', 'Beta Club'])
    expect(second).toMatchObject({
      rest_url: `${COLLECTION}?page=2&per_page=2`,
      next_rest_url: `${COLLECTION}?page=3&per_page=2`,
      previous_rest_url: `${COLLECTION}?per_page=2`,
    })
    const last = await calendar.venues.list({ per_page: '2', page: '3' }, anonymous)
    expect(names(last)).toEqual(['Alpha Hall'])
    expect(last).not.toHaveProperty('next_rest_url')
    expect(last.previous_rest_url).toBe(`${COLLECTION}?page=2&per_page=2`)
    await expect(calendar.venues.list({ per_page: 2, page: 4 }, anonymous)).rejects.toMatchObject({ code: 'VENUE_ARCHIVE_PAGE_NOT_FOUND' })
    const empty = await calendar.venues.list({ search: 'no such thing' })
    expect(empty).toEqual({ venues: [], rest_url: `${COLLECTION}?page=1&per_page=5&search=no%20such%20thing`, total: 0, total_pages: 0 })
    await expect(calendar.venues.list({ search: 'no such thing', page: 2 })).rejects.toMatchObject({ code: 'VENUE_ARCHIVE_PAGE_NOT_FOUND' })
    expect((await calendar.venues.list({ per_page: 100 })).rest_url).toBe(`${COLLECTION}?page=1&per_page=50`)
    for (const bad of [{ per_page: 0 }, { page: 0 }, { page: 'x' }]) {
      await expect(calendar.venues.list(bad)).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    }
  })

  it('echoes the filters the client sent in rest_url, percent-encoded', async () => {
    const list = await calendar.venues.list({ per_page: 1, search: 'Elm Street', has_events: 'no' })
    expect(list.rest_url).toBe(`${COLLECTION}?page=1&per_page=1&search=Elm%20Street&has_events=no`)
  })

  it('searches name, description and the detail fields CONTRACT 7 names, case-insensitively', async () => {
    const search = async (term: string) => names(await calendar.venues.list({ search: term }, anonymous))
    expect(await search('springfield')).toEqual(['Alpha Hall'])
    expect(await search('ELM')).toEqual(['Beta Club'])
    expect(await search('555-0199')).toEqual(['Beta Club'])
    expect(await search('cosy')).toEqual(['Gamma Room'])
    expect(await search('90210')).toEqual(['Gamma Room'])
    expect(await search('bayern')).toEqual(['Zeta Yard'])
    expect(await search('theta')).toEqual(['Theta Court'])
    // country and website are not searched for venues; LIKE wildcards are literal.
    expect(await search('Germany')).toEqual([])
    expect(await search('zeta.example')).toEqual([])
    expect(await search('a_p')).toEqual([])
    expect(await search('%')).toEqual([])
    // Quotes and SQL-looking text are only text.
    expect(await search(`o'hara`)).toEqual([])
    expect(await search(`x' or ''='`)).toEqual([])
    expect(await search('title like $1')).toEqual([])
    await expect(calendar.venues.list({ search: ['a', 'b'] })).rejects.toMatchObject({ code: 'BAD_SEARCH_STRING' })
    await expect(calendar.venues.list({ search: '' })).rejects.toMatchObject({ code: 'INVALID_PARAM', data: { params: { search: expect.any(String) } } })
  })

  it('filters by a related event, which must exist and be visible to the caller', async () => {
    expect(names(await calendar.venues.list({ event: eventIds.upcoming }, anonymous))).toEqual(['Alpha Hall'])
    expect(names(await calendar.venues.list({ event: String(eventIds.draft) }))).toEqual(['Beta Club'])
    expect(names(await calendar.venues.list({ event: eventIds.trashed }))).toEqual(['Zeta Yard'])
    // Issue 15 item 6: a draft's or a trashed event's relations are not public; the answer is the missing id's.
    for (const event of [eventIds.draft, eventIds.trashed]) {
      await expect(calendar.venues.list({ event }, anonymous)).rejects.toMatchObject({ code: 'INVALID_PARAM', data: { params: { event: expect.any(String) } } })
    }
    for (const event of [999999, ids.alpha, 'abc']) {
      await expect(calendar.venues.list({ event }, anonymous)).rejects.toMatchObject({ code: 'INVALID_PARAM', data: { params: { event: expect.any(String) } } })
    }
  })

  it('filters by has_events: trashed and private events count, drafts do not', async () => {
    const withEvents = ['Theta Court', 'Zeta Yard', 'Gamma Room', 'Alpha Hall']
    expect(names(await calendar.venues.list({ has_events: true }))).toEqual(withEvents)
    expect(names(await calendar.venues.list({ has_events: 'yes' }, anonymous))).toEqual(withEvents)
    expect(names(await calendar.venues.list({ has_events: 'false' }, anonymous))).toEqual(['Beta Club'])
    expect(names(await calendar.venues.list({ has_events: 'whatever' }, anonymous))).toEqual(['Beta Club'])
    expect(names(await calendar.venues.list({ has_events: 1, search: 'room' }, anonymous))).toEqual(['Gamma Room'])
  })

  it('filters by only_with_upcoming over every upcoming published event', async () => {
    expect(names(await calendar.venues.list({ only_with_upcoming: 'true' }, anonymous))).toEqual(['Alpha Hall'])
    expect((await calendar.venues.list({ only_with_upcoming: 'false' }, anonymous)).total).toBe(5)
    // Ours: not limited to the first per_page upcoming events (CONTRACT 7).
    const extra: number[] = []
    for (let i = 0; i < 3; i++) {
      extra.push((await calendar.events.create({ title: `Filler ${i}`, start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 11:00:00' })).id)
    }
    expect(names(await calendar.venues.list({ only_with_upcoming: 1, per_page: 1 }, anonymous))).toEqual(['Alpha Hall'])
    for (const id of extra) await calendar.events.delete(id)
  })

  it('applies the status visibility rules of CONTRACT 6.5 to venues', async () => {
    expect(names(await calendar.venues.list({ per_page: 10 }, editor))).toEqual(['Echo Draft', 'Delta Draft', 'Theta Court', 'Zeta Yard', 'Gamma Room', 'Beta Club', 'Alpha Hall'])
    expect(names(await calendar.venues.list({ per_page: 10 }, contributor))).toEqual(['Delta Draft', 'Theta Court', 'Zeta Yard', 'Gamma Room', 'Beta Club', 'Alpha Hall'])
    expect(names(await calendar.venues.list({ status: 'draft' }, contributor))).toEqual(['Delta Draft'])
    expect(names(await calendar.venues.list({ status: 'trash' }, editor))).toEqual(['Epsilon Gone'])
    expect(names(await calendar.venues.list({ status: 'draft, trash' }, editor))).toEqual(['Echo Draft', 'Delta Draft', 'Epsilon Gone'])
    expect((await calendar.venues.list({ status: 'publish' }, anonymous)).total).toBe(5)
    await expect(calendar.venues.list({ status: 'draft' }, anonymous)).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    await expect(calendar.venues.list({ status: 'publish,private' }, as(150, 'subscriber'))).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    await expect(calendar.venues.list({ status: 'bogus' }, editor)).rejects.toMatchObject({ code: 'INVALID_PARAM' })
  })
})

describe(`venues list: statements per page (${BACKEND})`, () => {
  let calendar: Calendar
  let statements = 0
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: SITE, onQuery: () => statements++ })
    for (let i = 0; i < 22; i++) {
      const venue = await calendar.venues.create({ venue: `Venue ${i}`, city: 'Leeds', image: `https://img.example/v${i}.png` })
      await calendar.events.create({ title: `Event ${i}`, start_date: '2027-01-01 10:00:00', end_date: '2027-01-01 11:00:00', venue: venue.id })
    }
  })
  afterAll(() => calendar.close())

  const countFor = async (query: Record<string, unknown>) => {
    statements = 0
    const list = await calendar.venues.list(query)
    return { statements, size: list.venues.length, first: list.venues[0] }
  }

  it('costs one count and one page query whatever the page size', async () => {
    const one = await countFor({ per_page: 1 })
    const twenty = await countFor({ per_page: 20 })
    expect([one.size, twenty.size]).toEqual([1, 20])
    expect(twenty.first).toMatchObject({ image: { url: expect.stringMatching(/^https:\/\/img\.example\/v\d+\.png$/), extension: 'png' } })
    expect(one.statements).toBe(2)
    expect(twenty.statements).toBe(one.statements)
    const filtered = await countFor({ per_page: 20, has_events: 1, only_with_upcoming: 1, search: 'venue' })
    expect(filtered).toMatchObject({ size: 20, statements: 2 })
  })
})

describe(`venues in variant B (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ variant: 'B', now: () => NOW, publicBaseUrl: SITE })
  })
  afterAll(() => calendar.close())

  it('lists every language, prefers the active language by slug, then the default one', async () => {
    const en = await calendar.venues.create({ venue: 'Plaza' })
    const es = await calendar.venues.create({ venue: 'Plaza!' }, { language: 'es' })
    expect([en.slug, es.slug]).toEqual(['plaza', 'plaza'])
    const mercado = await calendar.venues.create({ venue: 'Mercado' })

    for (const language of ['en', 'es']) {
      const list = await calendar.venues.list({}, { language })
      expect(list).toMatchObject({ total: 3, rest_url: `${COLLECTION}?page=1&per_page=10` })
    }
    expect((await calendar.venues.getBySlug('plaza')).id).toBe(en.id)
    expect((await calendar.venues.getBySlug('plaza', { language: 'es' })).id).toBe(es.id)
    expect((await calendar.venues.getBySlug('mercado', { language: 'es' })).id).toBe(mercado.id)
    expect((await calendar.venues.updateBySlug('plaza', { city: 'Madrid' }, { language: 'es' }))).toMatchObject({ id: es.id, city: 'Madrid' })
    expect((await calendar.venues.get(en.id))).not.toHaveProperty('city')
    await expect(calendar.venues.list({}, { language: 'fr' })).rejects.toMatchObject({ code: 'INVALID_PARAM', data: { params: { ml_language: expect.any(String) } } })
    expect((await calendar.venues.deleteBySlug('plaza', { language: 'es' })).id).toBe(es.id)
    expect((await calendar.venues.getBySlug('plaza', { language: 'es' })).id).toBe(en.id)
  })
})
