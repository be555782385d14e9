import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { BACKEND, freshCalendar } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')

describe(`events: create, read, update, delete (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: 'http://127.0.0.1:3000' })
  })
  afterAll(() => calendar.close())

  it('creates an event with inline venue, organizer and terms, as the reference shows it', async () => {
    const event = await calendar.events.create({
      title: 'Sample Event',
      description: '<p>Hello</p>',
      excerpt: 'Short',
      start_date: '2027-01-15 18:00:00',
      end_date: '2027-01-15 21:30:00',
      timezone: 'America/New_York',
      cost: '10',
      website: 'https://example.com/event',
      venue: { venue: 'Sample Hall', city: 'Springfield', state: 'IL', country: 'United States' },
      organizer: [{ organizer: 'Sample Org', email: 'org@example.com' }],
      categories: ['Sample Category'],
      tags: ['Sample Tag'],
      featured: true,
    })
    expect(event).toMatchObject({
      status: 'publish',
      slug: 'sample-event',
      url: 'http://127.0.0.1:3000/event/sample-event/',
      excerpt: '<p>Short</p>',
      start_date: '2027-01-15 18:00:00',
      utc_start_date: '2027-01-15 23:00:00',
      utc_end_date: '2027-01-16 02:30:00',
      timezone_abbr: 'EST',
      cost: '$10',
      cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: ['10'] },
      featured: true,
      custom_fields: [],
    })
    expect(event.venue).toMatchObject({ venue: 'Sample Hall', stateprovince: 'IL', show_map: true })
    expect(event.organizer).toHaveLength(1)
    expect(event.categories[0]).toMatchObject({ name: 'Sample Category', taxonomy: 'cal_events_cat', count: 1, filter: 'raw' })
    expect(event.tags[0]).toMatchObject({ name: 'Sample Tag', taxonomy: 'post_tag', count: 1 })
    expect(event).not.toHaveProperty('json_ld')
    const read = await calendar.events.get(event.id, { as: null })
    expect(read.json_ld).toMatchObject({ '@type': 'Event', startDate: '2027-01-15T18:00:00-05:00' })
  })

  it('gives a second event with the same title a distinct slug', async () => {
    const a = await calendar.events.create({ title: 'Twin', start_date: '2027-02-01 10:00:00', end_date: '2027-02-01 11:00:00' })
    const b = await calendar.events.create({ title: 'Twin', start_date: '2027-02-01 10:00:00', end_date: '2027-02-01 11:00:00' })
    expect([a.slug, b.slug]).toEqual(['twin', 'twin-2'])
  })

  it('updates partially and trashes on delete', async () => {
    const created = await calendar.events.create({ title: 'To Delete', start_date: '2027-02-01 10:00:00', end_date: '2027-02-01 11:00:00', featured: true })
    const updated = await calendar.events.update(created.id, { title: 'Renamed' })
    expect(updated).toMatchObject({ title: 'Renamed', featured: true, start_date: '2027-02-01 10:00:00' })
    const trashed = await calendar.events.delete(created.id)
    expect(trashed).toMatchObject({ status: 'trash', slug: 'to-delete__trashed' })
    await expect(calendar.events.delete(created.id)).rejects.toMatchObject({ code: 'EVENT_IN_TRASH' })
    await expect(calendar.events.get(created.id)).rejects.toMatchObject({ code: 'EVENT_NO_LONGER_AVAILABLE' })
  })

  it('refuses an end before the start and writes nothing', async () => {
    await expect(
      calendar.events.create({ title: 'Backwards', start_date: '2027-02-02 10:00:00', end_date: '2027-02-01 10:00:00' }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAM', data: { params: { end_date: expect.any(String) } } })
    const list = await calendar.events.list({ search: 'Backwards', status: 'publish,draft,pending' })
    expect(list.total).toBe(0)
  })
})
