import { describe, expect, it } from 'vitest'
import type { Calendar, EventResource } from '@cal-events/core'
import { freshCalendar } from '../../../test-support/test-db.js'
import { importIcs } from '@cal-events/cli'

const NOW = new Date('2026-11-21T03:39:06Z')
const WINDOW = { start_date: '2026-01-01', end_date: '2028-12-31', per_page: 50 }

/** What a calendar app should get back from a feed: times, zones, words, place, people, categories. */
function essentials(event: EventResource) {
  const venue = Array.isArray(event.venue) ? undefined : event.venue
  return {
    title: event.title,
    // The importer escapes text into HTML ("&" → "&amp;"), which shows the same text.
    description: event.description.replace(/&amp;/g, '&'),
    start_date: event.start_date,
    end_date: event.end_date,
    utc_start_date: event.utc_start_date,
    timezone: event.all_day ? 'all-day' : event.timezone,
    all_day: event.all_day,
    status: event.status,
    venue: venue ? { venue: venue.venue, address: venue.address, city: venue.city } : undefined,
    organizer: event.organizer.map((o) => ({ organizer: o.organizer, email: o.email })),
    categories: event.categories.map((c) => c.name).sort(),
    recurrence: event.recurrence,
  }
}

async function listed(calendar: Calendar) {
  return (await calendar.events.list(WINDOW)).events.map(essentials)
}

describe('a feed read back by the ICS importer', () => {
  it('gives a fresh calendar the same events', async () => {
    const source = await freshCalendar({ now: () => NOW, publicBaseUrl: 'https://source.example.org' })
    await source.events.create({
      title: 'Jazz night; with, separators \\ and 🎷',
      description: 'Plain words\nover two lines & an ampersand',
      start_date: '2027-03-27 21:00:00',
      end_date: '2027-03-28 04:00:00',
      timezone: 'Europe/Berlin',
      venue: { venue: 'Kulturhaus', address: 'Hauptstraße 1', city: 'Berlin' },
      organizer: [{ organizer: 'Jazz Club', email: 'club@example.org' }],
      categories: ['Music', 'Night life'],
    })
    await source.events.create({ title: 'Harvest fair', start_date: '2027-10-02 00:00:00', end_date: '2027-10-04 23:59:59', all_day: true, categories: ['Fairs'] })
    await source.events.create({ title: 'Town meeting', start_date: '2027-11-07 01:30:00', end_date: '2027-11-07 03:00:00', timezone: 'America/New_York', venue: { venue: 'City Hall', city: 'Springfield' } })
    await source.events.create({ title: 'Call at noon UTC', start_date: '2027-06-01 12:00:00', end_date: '2027-06-01 13:00:00', timezone: 'UTC' })
    await source.events.create({
      title: 'Weekly choir',
      start_date: '2027-03-09 19:00:00',
      end_date: '2027-03-09 21:00:00',
      timezone: 'Europe/Berlin',
      recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270601T000000Z', 'RDATE;TZID=Europe/Berlin:20270605T110000', 'EXDATE;TZID=Europe/Berlin:20270330T190000'],
    })
    await source.events.create({ title: 'Members only', start_date: '2027-06-02 12:00:00', end_date: '2027-06-02 13:00:00', status: 'private' })
    const expected = await listed(source)
    // The list shows each occurrence of the series; the feed writes the series once.
    const events = new Set((await source.events.list(WINDOW)).events.map((e) => e.id)).size
    const feed = await source.events.feed({ start_date: WINDOW.start_date, end_date: WINDOW.end_date, status: 'publish,private' })
    await source.close()

    const target = await freshCalendar({ now: () => NOW, publicBaseUrl: 'https://target.example.org' })
    try {
      expect(await listed(target)).toEqual([])
      const summary = await importIcs(target, feed)
      expect(summary).toMatchObject({ vevents: events, created: events, warnings: [] })
      expect(await listed(target)).toEqual(expected)
      // A second run finds every event again by its UID.
      expect(await importIcs(target, feed)).toMatchObject({ created: 0, updated: events })
    } finally {
      await target.close()
    }
  })
})
