import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, EventFeedQuery, EventInput, EventListQuery } from '@cal-events/core'
import { BACKEND, freshCalendar } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const WHEN = { start_date: '2027-01-15 18:00:00', end_date: '2027-01-15 21:30:00' }
const unknownParam = (name: string) => ({ code: 'INVALID_PARAM', data: { params: { [name]: 'Unknown parameter.' } } })

// Issue 16: script inputs are typed from the argument declarations (the `@ts-expect-error` lines
// are checked by `pnpm typecheck`: each must be an error), and a name the operation does not
// declare is refused at run time instead of being dropped.
describe(`script API inputs (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
  })
  afterAll(() => calendar.close())

  it('refuses misspelt list parameters with a 400 naming them', async () => {
    // @ts-expect-error startDate is not a parameter (start_date is)
    await expect(calendar.events.list({ startDate: '2027-01-01' })).rejects.toMatchObject(unknownParam('startDate'))
    // @ts-expect-error perPage is not a parameter (per_page is)
    await expect(calendar.events.list({ perPage: 2 })).rejects.toMatchObject(unknownParam('perPage'))
    // @ts-expect-error post_parnet is not a parameter (post_parent is)
    await expect(calendar.events.list({ post_parnet: 3 })).rejects.toMatchObject(unknownParam('post_parnet'))
    // @ts-expect-error hasEvents is not a parameter (has_events is)
    await expect(calendar.venues.list({ hasEvents: true })).rejects.toMatchObject(unknownParam('hasEvents'))
    // @ts-expect-error hideEmpty is not a parameter (hide_empty is)
    await expect(calendar.categories.list({ hideEmpty: false })).rejects.toMatchObject(unknownParam('hideEmpty'))
  })

  it('types the feed query from the event list filters, without paging', async () => {
    // @ts-expect-error startDate is not a feed parameter (start_date is)
    await expect(calendar.events.feed({ startDate: '2027-01-01' })).rejects.toMatchObject(unknownParam('startDate'))
    // @ts-expect-error a feed is one document: no paging
    await expect(calendar.events.feed({ per_page: 5 })).rejects.toMatchObject(unknownParam('per_page'))
    // @ts-expect-error a search is text
    await expect(calendar.events.feed({ search: 42 })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    const query: EventFeedQuery = { start_date: '2027-01-01', categories: 'a,b', featured: 'true' }
    expect(Object.keys(query)).toHaveLength(3)
    expect(await calendar.events.feed({ start_date: '2027-01-01', featured: false })).toContain('BEGIN:VCALENDAR')
  })

  it('refuses misspelt write fields and writes nothing', async () => {
    const before = (await calendar.events.list({ start_date: '2000-01-01', per_page: 1 })).total
    // @ts-expect-error allDay is not a field (all_day is)
    await expect(calendar.events.create({ title: 'Typo', ...WHEN, allDay: true })).rejects.toMatchObject(unknownParam('allDay'))
    // @ts-expect-error city is a venue field, not an organizer field
    await expect(calendar.organizers.create({ organizer: 'Typo Org', city: 'Rome' })).rejects.toMatchObject(unknownParam('city'))
    // @ts-expect-error nme is not a field (name is)
    await expect(calendar.tags.create({ nme: 'typo' })).rejects.toMatchObject(unknownParam('nme'))
    // Inline venues and organizers of an event are typed as on their own routes.
    // @ts-expect-error citty is not a venue field (city is)
    const inlineVenue: EventInput = { title: 'Typo', ...WHEN, venue: { venue: 'Typo Hall', citty: 'Rome' } }
    // @ts-expect-error emial is not an organizer field (email is)
    const inlineOrganizer: EventInput = { title: 'Typo', ...WHEN, organizer: [{ organizer: 'Typo Org', emial: 'a@b.example' }] }
    expect([inlineVenue.title, inlineOrganizer.title]).toEqual(['Typo', 'Typo'])
    expect((await calendar.events.list({ start_date: '2000-01-01', per_page: 1 })).total).toBe(before)
  })

  it('types field values from the same schemas that check HTTP input', async () => {
    // @ts-expect-error a title is text
    await expect(calendar.events.create({ title: 42, ...WHEN })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    // @ts-expect-error `trash` is not a writable status
    await expect(calendar.events.create({ title: 'Trash', ...WHEN, status: 'trash' })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    // Wire forms the HTTP API accepts type-check too: numeric strings, CSV lists, null clears.
    const query: EventListQuery = { per_page: '2', categories: 'a,b', featured: 'true', start_date: '2027-01-01' }
    const input: EventInput = { title: 'Typed', ...WHEN, venue: { venue: 'Typed Hall', geo_lat: '1.5', geo_lng: 2 }, organizer: [1, { organizer: 'X' }], website: null }
    expect(Object.keys(query)).toHaveLength(4)
    const created = await calendar.events.create({ ...input, organizer: [{ organizer: 'Typed Org' }] })
    expect(created.venue).toMatchObject({ venue: 'Typed Hall', geo_lat: 1.5 })
    expect((await calendar.events.list({ ...query, categories: undefined, featured: undefined, start_date: '2027-01-15', end_date: '2027-01-15' })).events.map((e) => e.id)).toContain(created.id)
  })
})
