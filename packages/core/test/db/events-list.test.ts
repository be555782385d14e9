import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, Principal, VenueResource } from '@cal-events/core'
import { BACKEND, execSql, freshCalendar } from '../../../../test-support/test-db.js'

// Request time of the reference recordings: the default window starts 2026-11-20 00:00.
const NOW = new Date('2026-11-21T03:39:06Z')
const EDITOR: Principal = { id: 900, role: 'editor' }
const titles = (list: { events: { title: string }[] }) => list.events.map((e) => e.title)

describe(`GET /events filters (${BACKEND})`, () => {
  let calendar: Calendar
  const ids: Record<string, number> = {}
  let venueA: number
  let venueB: number
  let organizer: number
  let parentCat: number
  let childCat: number
  let tag: number

  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: 'http://cal.example.org' })
    const ev = (title: string, start: string, end: string, extra: Record<string, unknown> = {}) =>
      calendar.events.create({ title, start_date: start, end_date: end, ...extra }).then((e) => (ids[title] = e.id))
    // Venue and organizer inline, so this file does not depend on the venue routes.
    const first = await calendar.events.create({
      title: 'Concert',
      description: 'Loud guitars tonight',
      start_date: '2026-11-25 20:00:00',
      end_date: '2026-11-25 23:00:00',
      venue: { venue: 'Hall A', geo_lat: 51.5, geo_lng: -0.12 },
      organizer: [{ organizer: 'Promoter' }],
      categories: ['Music'],
      tags: ['loud'],
      featured: true,
    })
    ids.Concert = first.id
    venueA = (first.venue as VenueResource).id
    organizer = first.organizer[0]!.id
    parentCat = first.categories[0]!.id
    tag = first.tags[0]!.id
    const second = await calendar.events.create({
      title: 'Jazz night',
      excerpt: 'Smooth saxophone',
      start_date: '2026-11-26 20:00:00',
      end_date: '2026-11-26 22:00:00',
      venue: { venue: 'Hall B' },
      categories: ['Jazz'],
    })
    ids['Jazz night'] = second.id
    venueB = (second.venue as VenueResource).id
    childCat = second.categories[0]!.id
    await execSql(`update terms set parent_id = ${parentCat} where id = ${childCat}`)
    await ev('Yesterday talk', '2026-11-20 10:00:00', '2026-11-20 11:00:00')
    await ev('Old talk', '2026-11-18 10:00:00', '2026-11-18 11:00:00')
    await ev('Far future', '2029-01-10 10:00:00', '2029-01-10 11:00:00')
    await ev('Draft plan', '2026-11-27 10:00:00', '2026-11-27 11:00:00', { status: 'draft' })
    await ev('Hidden', '2026-11-28 10:00:00', '2026-11-28 11:00:00', { hide_from_listings: true })
    await ev('Child', '2026-11-29 10:00:00', '2026-11-29 11:00:00')
    await execSql(`update events set post_parent = ${ids.Concert} where id = ${ids.Child}`)
    // Reference test (CONTRACT 6.2): A 16:00–16:30 and B 20:00–20:30 on one day.
    await ev('Ref A', '2018-01-01 16:00:00', '2018-01-01 16:30:00')
    await ev('Ref B', '2018-01-01 20:00:00', '2018-01-01 20:30:00')
  })
  afterAll(() => calendar.close())

  it('applies the default window: from 00:00 yesterday to two years ahead, published and listed only, by start', async () => {
    const list = await calendar.events.list({ per_page: 50 }, { as: null })
    expect(titles(list)).toEqual(['Yesterday talk', 'Concert', 'Jazz night', 'Child'])
    expect(list.total).toBe(4)
    expect(list.total_pages).toBe(1)
  })

  it('reads start_date and end_date as whole days unless strict', async () => {
    const list = await calendar.events.list({ start_date: '2018-01-01 15:00:00', end_date: '2018-01-01 18:00:00' }, { as: null })
    expect(titles(list)).toEqual(['Ref A', 'Ref B'])
  })

  it('keeps the default end when only start_date is given', async () => {
    const list = await calendar.events.list({ start_date: '2026-11-18', per_page: 50 }, { as: null })
    expect(titles(list)).toEqual(['Old talk', 'Yesterday talk', 'Concert', 'Jazz night', 'Child'])
  })

  it('matches every search word in title, excerpt or description, case-insensitively', async () => {
    expect(titles(await calendar.events.list({ search: 'GUITARS tonight' }))).toEqual(['Concert'])
    expect(titles(await calendar.events.list({ search: 'saxophone' }))).toEqual(['Jazz night'])
    expect(titles(await calendar.events.list({ search: 'guitars saxophone' }))).toEqual([])
  })

  it('matches quotes, backslashes and LIKE wildcards literally', async () => {
    const odd = await calendar.events.create({
      title: `O'Brien's 100% \\ night_out`,
      start_date: '2026-11-26 20:00:00',
      end_date: '2026-11-26 21:00:00',
    })
    try {
      for (const word of [`o'brien's`, '100%', '\\', 'night_out', `'`]) {
        expect(titles(await calendar.events.list({ search: word })), word).toEqual([`O'Brien's 100% \\ night_out`])
      }
      for (const word of ['100_', 'night%out', `'); select 1; --`, '\\\\']) expect(titles(await calendar.events.list({ search: word })), word).toEqual([])
    } finally {
      await calendar.events.delete(odd.id)
    }
  })

  it('filters categories by id or slug, including descendants, and tags', async () => {
    expect(titles(await calendar.events.list({ categories: [parentCat] }))).toEqual(['Concert', 'Jazz night'])
    expect(titles(await calendar.events.list({ categories: 'jazz' }))).toEqual(['Jazz night'])
    expect(titles(await calendar.events.list({ tags: [tag] }))).toEqual(['Concert'])
    expect(titles(await calendar.events.list({ tags: 'loud' }))).toEqual(['Concert'])
    await expect(calendar.events.list({ categories: 'no-such' })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    await expect(calendar.events.list({ tags: [99999] })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
  })

  it('filters by venue and organizer ids, which must exist', async () => {
    expect(titles(await calendar.events.list({ venue: [venueB] }))).toEqual(['Jazz night'])
    expect(titles(await calendar.events.list({ venue: `${venueA},${venueB}` }))).toEqual(['Concert', 'Jazz night'])
    expect(titles(await calendar.events.list({ organizer: [organizer] }))).toEqual(['Concert'])
    await expect(calendar.events.list({ venue: [99999] })).rejects.toMatchObject({ code: 'INVALID_PARAM', data: { params: { venue: expect.any(String) } } })
    await expect(calendar.events.list({ organizer: 'x' })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
  })

  it('filters featured, geoloc and post_parent', async () => {
    expect(titles(await calendar.events.list({ featured: true }))).toEqual(['Concert'])
    expect(titles(await calendar.events.list({ featured: 'false' }, { as: null }))).toEqual(['Yesterday talk', 'Jazz night', 'Child'])
    expect(titles(await calendar.events.list({ geoloc: true }))).toEqual(['Concert'])
    expect(titles(await calendar.events.list({ geoloc: 0 }, { as: null }))).toEqual(['Yesterday talk', 'Jazz night', 'Child'])
    expect(titles(await calendar.events.list({ geoloc: 1, geoloc_lat: 51, geoloc_lng: 0 }))).toEqual(['Concert'])
    await expect(calendar.events.list({ geoloc_lat: 51 })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    await expect(calendar.events.list({ geoloc_lat: 91, geoloc_lng: 0 })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    expect(titles(await calendar.events.list({ post_parent: ids.Concert }))).toEqual(['Child'])
    await expect(calendar.events.list({ post_parent: 99999 })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
  })

  it('lets include ignore the date window but never show hidden events', async () => {
    const list = await calendar.events.list({ include: `${ids['Old talk']},${ids['Far future']},${ids.Hidden}` }, { as: null })
    expect(titles(list)).toEqual(['Old talk', 'Far future'])
    await expect(calendar.events.list({ include: '0' })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
  })

  it('shows drafts only to callers who can edit, and validates status', async () => {
    await expect(calendar.events.list({ status: 'draft' }, { as: null })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    expect((await calendar.events.list({ status: 'publish' }, { as: null })).total).toBe(4)
    expect(titles(await calendar.events.list({ status: 'draft' }, { as: EDITOR }))).toEqual(['Draft plan'])
    expect((await calendar.events.list({ status: 'publish, draft', per_page: 50 }, { as: EDITOR })).total).toBe(5)
    expect((await calendar.events.list({ per_page: 50 }, { as: EDITOR })).total).toBe(5)
    await expect(calendar.events.list({ status: 'bogus' }, { as: EDITOR })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
  })

  it('pages with envelope URLs, caps per_page at 50 and 404s past the end', async () => {
    // "a" matches Yesterday talk, Concert (guitars) and Jazz night for an anonymous caller.
    const page1 = await calendar.events.list({ per_page: 2, search: 'a' }, { as: null })
    expect(page1.total).toBe(3)
    expect(page1.total_pages).toBe(2)
    expect(page1.rest_url).toBe('http://cal.example.org/cal/events/v1/events/?page=1&per_page=2&search=a')
    expect(page1.next_rest_url).toBe('http://cal.example.org/cal/events/v1/events/?page=2&per_page=2&search=a')
    expect(page1).not.toHaveProperty('previous_rest_url')
    const page2 = await calendar.events.list({ per_page: 2, page: 2, search: 'a' }, { as: null })
    expect(page2.events).toHaveLength(1)
    expect(page2.previous_rest_url).toBe('http://cal.example.org/cal/events/v1/events/?per_page=2&search=a')
    expect(page2).not.toHaveProperty('next_rest_url')
    await expect(calendar.events.list({ page: 3, per_page: 2, search: 'a' }, { as: null })).rejects.toMatchObject({ code: 'EVENT_ARCHIVE_PAGE_NOT_FOUND' })
    expect((await calendar.events.list({ per_page: 500 })).rest_url).toContain('per_page=50')
    const empty = await calendar.events.list({ search: 'nothing-matches' })
    expect(empty).toMatchObject({ events: [], total: 0, total_pages: 0 })
    await expect(calendar.events.list({ per_page: 0 })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    await expect(calendar.events.list({ page: 'x' })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
  })

  it('blanks password-protected events in lists for those who cannot edit them', async () => {
    await execSql(`update events set password = 'sesame' where id = ${ids['Jazz night']}`)
    try {
      const anon = (await calendar.events.list({ search: 'Jazz' }, { as: null })).events[0]
      expect(anon).toMatchObject({ title: 'Jazz night', excerpt: '', venue: [], categories: [], all_day: null, featured: null })
      const editor = (await calendar.events.list({ search: 'Jazz' }, { as: EDITOR })).events[0]
      expect(editor?.excerpt).toBe('<p>Smooth saxophone</p>')
      await expect(calendar.events.get(ids['Jazz night']!, { as: null })).rejects.toMatchObject({ code: 'EVENT_PASSWORD_PROTECTED' })
    } finally {
      await execSql(`update events set password = null where id = ${ids['Jazz night']}`)
    }
  })
})

describe(`GET /events, variant B parameters (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ variant: 'B', now: () => NOW })
    for (const [title, start, end] of [
      ['Ref A', '2018-01-01 16:00:00', '2018-01-01 16:30:00'],
      ['Ref B', '2018-01-01 20:00:00', '2018-01-01 20:30:00'],
      ['Next day', '2018-01-02 09:00:00', '2018-01-03 10:00:00'],
    ] as const) {
      await calendar.events.create({ title, start_date: start, end_date: end })
    }
    await calendar.events.create({ title: 'Fiesta', start_date: '2026-12-01 20:00:00', end_date: '2026-12-01 23:00:00' }, { language: 'es' })
    await calendar.events.create({ title: 'Party', start_date: '2026-12-01 20:00:00', end_date: '2026-12-01 23:00:00' })
  })
  afterAll(() => calendar.close())

  it('applies strict_dates at the exact times given', async () => {
    const q = { start_date: '2018-01-01 15:00:00', end_date: '2018-01-01 18:00:00' }
    expect(titles(await calendar.events.list(q))).toEqual(['Ref A', 'Ref B'])
    expect(titles(await calendar.events.list({ ...q, strict_dates: 'true' }))).toEqual(['Ref A'])
    expect(titles(await calendar.events.list({ ...q, strict_dates: 'nope' }))).toEqual(['Ref A', 'Ref B'])
  })

  it('drops the default window when starts_*/ends_* are given', async () => {
    expect(titles(await calendar.events.list({ starts_before: '2018-01-01' }))).toEqual(['Ref A', 'Ref B'])
    expect(titles(await calendar.events.list({ starts_after: '2018-01-01', ends_before: '2018-01-04' }))).toEqual(['Next day'])
    expect(titles(await calendar.events.list({ ends_after: '2018-01-02', ends_before: '2018-01-04' }))).toEqual(['Next day'])
  })

  it('refuses ticketed=true and accepts false', async () => {
    await expect(calendar.events.list({ ticketed: true })).rejects.toMatchObject({
      code: 'INVALID_PARAM',
      data: { details: { ticketed: { code: 'event-tickets-not-active' } } },
    })
    expect(titles(await calendar.events.list({ ticketed: false }))).toEqual(['Party'])
  })

  it('lists only the active language and defaults per_page to 10', async () => {
    expect(titles(await calendar.events.list({}, { language: 'es' }))).toEqual(['Fiesta'])
    const en = await calendar.events.list({})
    expect(titles(en)).toEqual(['Party'])
    expect(en.rest_url).toContain('per_page=10')
    await expect(calendar.events.list({ ml_language: 'de' })).rejects.toMatchObject({
      code: 'INVALID_PARAM',
      data: { params: { ml_language: 'ml_language is not one of en and es.' } },
    })
  })
})
