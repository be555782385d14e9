import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, EventInput, Principal } from '@cal-events/core'
import { BACKEND, freshCalendar } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const anonymous = { as: null }
const as = (id: number, role: Principal['role']) => ({ as: { id, role } })
const contributor = as(201, 'contributor')
const editor = as(301, 'editor')
const venueNames = (list: { venues: { venue?: string }[] }) => list.venues.map((v) => v.venue).sort()
const organizerNames = (list: { organizers: { organizer?: string }[] }) => list.organizers.map((o) => o.organizer).sort()

// Issue 14 item 8 / CONTRACT 7: the venue and organizer lists' `search` and `only_with_upcoming`.
describe(`venue and organizer list filters (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
    await calendar.venues.create({ venue: 'Le Temple', address: '100, Avenue du Temple', city: 'Paris' })
    await calendar.venues.create({ venue: 'Avenue Hall', city: 'Lyon' })
    await calendar.venues.create({ venue: 'Temple Bar', city: 'Dublin' })
    await calendar.organizers.create({ organizer: 'Night Owls', email: 'ops@owls.example', phone: '555-0101' })
    await calendar.organizers.create({ organizer: 'Early Birds', email: 'hello@birds.example' })
  })
  afterAll(() => calendar.close())

  it('search: every word must occur, in any order, in any searched field', async () => {
    const venues = async (search: string) => venueNames(await calendar.venues.list({ search }, anonymous))
    expect(await venues('temple avenue')).toEqual(['Le Temple'])
    expect(await venues('AVENUE   temple  paris')).toEqual(['Le Temple'])
    expect(await venues('temple')).toEqual(['Le Temple', 'Temple Bar'])
    expect(await venues('avenue')).toEqual(['Avenue Hall', 'Le Temple'])
    expect(await venues('temple lyon')).toEqual([])
    expect(await venues('100, avenue')).toEqual(['Le Temple'])
    const organizers = async (search: string) => organizerNames(await calendar.organizers.list({ search }, anonymous))
    expect(await organizers('owls 555')).toEqual(['Night Owls'])
    expect(await organizers('example')).toEqual(['Early Birds', 'Night Owls'])
    expect(await organizers('birds owls')).toEqual([])
  })

  it('only_with_upcoming counts the upcoming events the caller could see in the event list', async () => {
    const venue = async (name: string) => (await calendar.venues.create({ venue: name })).id
    const organizer = async (name: string) => (await calendar.organizers.create({ organizer: name })).id
    const event = async (title: string, venueName: string, extra: EventInput = {}, who = editor) =>
      calendar.events.create(
        {
          title,
          start_date: '2027-01-10 10:00:00',
          end_date: '2027-01-10 11:00:00',
          venue: await venue(venueName),
          organizer: [await organizer(`${venueName} Org`)],
          ...extra,
        },
        who,
      )
    await event('Public', 'U Public')
    await event('Draft', 'U Draft', { status: 'draft' })
    await event('Private', 'U Private', { status: 'private' })
    await event('Pending', 'U Pending', { status: 'publish' }, contributor)
    await event('Hidden', 'U Hidden', { hide_from_listings: true })
    await event('Past', 'U Past', { start_date: '2025-01-10 10:00:00', end_date: '2025-01-10 11:00:00' })
    const trashed = await event('Trashed', 'U Trashed')
    await calendar.events.delete(trashed.id)

    const upcoming = async (who: { as: Principal | null }) => ({
      venues: venueNames(await calendar.venues.list({ only_with_upcoming: true, per_page: 50, status: 'publish' }, who)),
      organizers: organizerNames(await calendar.organizers.list({ only_with_upcoming: true, per_page: 50, status: 'publish' }, who)),
    })
    expect(await upcoming(anonymous)).toEqual({ venues: ['U Public'], organizers: ['U Public Org'] })
    expect(await upcoming(editor)).toEqual({
      venues: ['U Draft', 'U Pending', 'U Private', 'U Public'],
      organizers: ['U Draft Org', 'U Pending Org', 'U Private Org', 'U Public Org'],
    })
    // A contributor sees published events and their own.
    expect(await upcoming(contributor)).toEqual({ venues: ['U Pending', 'U Public'], organizers: ['U Pending Org', 'U Public Org'] })
  })

  it('only_with_upcoming counts a series by its occurrences: upcoming ones count, past, deleted and changed ones do not', async () => {
    const series = async (title: string, venueName: string, start: string, recurrence: string[]) =>
      calendar.events.create({
        title,
        start_date: `${start} 18:00:00`,
        end_date: `${start} 19:00:00`,
        timezone: 'UTC',
        venue: (await calendar.venues.create({ venue: venueName })).id,
        organizer: [(await calendar.organizers.create({ organizer: `${venueName} Org` })).id],
        recurrence,
      })
    // Started long before now; its later occurrences are upcoming.
    await series('Weekly', 'S Weekly', '2026-01-06', ['RRULE:FREQ=WEEKLY'])
    await series('Ended', 'S Ended', '2026-01-06', ['RRULE:FREQ=WEEKLY;COUNT=3'])
    // Its only upcoming occurrence (24 November) is deleted.
    const deleted = await series('Deleted', 'S Deleted', '2026-11-10', ['RRULE:FREQ=WEEKLY;COUNT=3'])
    await calendar.events.deleteOccurrence(deleted.id, '20261124T180000Z')
    // Its only occurrence, in the future, takes place elsewhere: the other venue has it.
    const moved = await series('Moved', 'S Moved', '2027-02-01', ['RRULE:FREQ=WEEKLY;COUNT=1'])
    await calendar.events.updateOccurrence(moved.id, '20270201T180000Z', {
      venue: (await calendar.venues.create({ venue: 'S Elsewhere' })).id,
      organizer: [(await calendar.organizers.create({ organizer: 'S Elsewhere Org' })).id],
    })
    const names = <T>(list: T[]) => list.filter((n) => String(n).startsWith('S '))
    const venues = names(venueNames(await calendar.venues.list({ only_with_upcoming: true, per_page: 50 }, anonymous)))
    const organizers = names(organizerNames(await calendar.organizers.list({ only_with_upcoming: true, per_page: 50 }, anonymous)))
    expect(venues).toEqual(['S Elsewhere', 'S Weekly'])
    expect(organizers).toEqual(['S Elsewhere Org', 'S Weekly Org'])
  })
})
