import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, CallOptions } from '@cal-events/core'
import { BACKEND, freshCalendar, querySql } from '../../../../test-support/test-db.js'

// Changing one occurrence of a series (issue 19 item 3): an exception keeps its key and place,
// survives series edits, shows in lists with its own values, and filters read them.

const NOW = new Date('2026-11-21T03:39:06Z')
const WINDOW = { start_date: '2027-03-01', end_date: '2027-05-31', per_page: 50 }
const contributor: CallOptions = { as: { id: 201, role: 'contributor' } }

interface Item {
  id: number
  title: string
  occurrence?: string
  start_date: string
  venue: unknown
  categories: { name: string }[]
}

async function items(calendar: Calendar, query: Record<string, unknown> = {}): Promise<Item[]> {
  return (await calendar.events.list({ ...WINDOW, ...query })).events as unknown as Item[]
}

const brief = (list: Item[]) => list.map((e) => [e.occurrence, e.start_date, e.title])

describe(`events: changing one occurrence of a series (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: 'https://cal.example.org' })
  })
  afterAll(() => calendar.close())

  it('changes one occurrence only; the list shows it in its place with its values', async () => {
    const series = await calendar.events.create({
      title: 'Choir',
      start_date: '2027-03-16 10:00:00',
      end_date: '2027-03-16 11:00:00',
      timezone: 'Europe/Berlin',
      categories: ['Music'],
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
    })
    const changed = await calendar.events.updateOccurrence(series.id, '20270330T080000Z', {
      title: 'Choir (guest conductor)',
      start_date: '2027-03-30 12:00:00',
      end_date: '2027-03-30 13:30:00',
      venue: { venue: 'Great Hall', city: 'Berlin' },
    })
    expect(changed).toMatchObject({
      id: series.id,
      occurrence: '20270330T080000Z',
      series_id: series.id,
      original_start_date: '2027-03-30 10:00:00',
      title: 'Choir (guest conductor)',
      start_date: '2027-03-30 12:00:00',
      rest_url: `https://cal.example.org/cal/events/v1/events/${series.id}/occurrences/20270330T080000Z`,
      venue: { venue: 'Great Hall' },
      categories: [expect.objectContaining({ name: 'Music' })],
    })
    const listed = await items(calendar, { search: 'Choir' })
    expect(brief(listed)).toEqual([
      ['20270316T090000Z', '2027-03-16 10:00:00', 'Choir'],
      ['20270323T090000Z', '2027-03-23 10:00:00', 'Choir'],
      ['20270330T080000Z', '2027-03-30 12:00:00', 'Choir (guest conductor)'],
      ['20270406T080000Z', '2027-04-06 10:00:00', 'Choir'],
    ])
    expect(listed.every((e) => e.id === series.id)).toBe(true)
    expect((await calendar.events.list({ ...WINDOW, search: 'Choir' })).total).toBe(4)
    // Read by its key, it answers the changed values.
    const read = (await calendar.handle({ method: 'GET', path: `/cal/events/v1/events/${series.id}/occurrences/20270330T080000Z`, query: '', headers: {} })).body
    expect(read).toMatchObject({ title: 'Choir (guest conductor)', occurrence: '20270330T080000Z', start_date: '2027-03-30 12:00:00' })
    // A second change edits the same exception.
    await calendar.events.updateOccurrence(series.id, '20270330T080000Z', { description: 'Bring your scores.' })
    const [again] = (await items(calendar, { search: 'guest conductor' }))
    expect(again).toMatchObject({ title: 'Choir (guest conductor)', start_date: '2027-03-30 12:00:00' })
  })

  it('keeps the change through later series edits (title, venue, and a move of the whole series)', async () => {
    const series = await calendar.events.create({
      title: 'Yoga', start_date: '2027-04-05 18:00:00', end_date: '2027-04-05 19:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
    })
    await calendar.events.updateOccurrence(series.id, '20270406T180000Z', { title: 'Yoga outdoors' })
    await calendar.events.update(series.id, { title: 'Yoga flow', venue: { venue: 'Studio 2' } })
    expect(brief(await items(calendar, { search: 'Yoga' }))).toEqual([
      ['20270405T180000Z', '2027-04-05 18:00:00', 'Yoga flow'],
      ['20270406T180000Z', '2027-04-06 18:00:00', 'Yoga outdoors'],
      ['20270407T180000Z', '2027-04-07 18:00:00', 'Yoga flow'],
    ])
    // RFC 5545: moving the series moves its occurrences; the changed one stays as it was.
    await calendar.events.update(series.id, { start_date: '2027-04-05 19:00:00', end_date: '2027-04-05 20:00:00' })
    expect(brief(await items(calendar, { search: 'Yoga' }))).toEqual([
      ['20270405T190000Z', '2027-04-05 19:00:00', 'Yoga flow'],
      ['20270406T180000Z', '2027-04-06 18:00:00', 'Yoga outdoors'],
      ['20270406T190000Z', '2027-04-06 19:00:00', 'Yoga flow'],
      ['20270407T190000Z', '2027-04-07 19:00:00', 'Yoga flow'],
    ])
  })

  it('filters read the changed values: venue, category, featured, search', async () => {
    const series = await calendar.events.create({
      title: 'Talk', start_date: '2027-05-03 18:00:00', end_date: '2027-05-03 19:00:00', timezone: 'UTC',
      categories: ['Science'], recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
    })
    const changed = await calendar.events.updateOccurrence(series.id, '20270510T180000Z', {
      title: 'Talk on volcanoes', categories: ['Geology'], featured: true, venue: { venue: 'Crater Room' },
    })
    const venueId = (changed as unknown as { venue: { id: number } }).venue.id
    const geology = (await calendar.categories.list({ search: 'Geology' })).categories
    const science = (await calendar.categories.list({ search: 'Science' })).categories
    const keys = async (q: Record<string, unknown>) => (await items(calendar, { ...q })).filter((e) => e.id === series.id).map((e) => e.occurrence)
    expect(await keys({ venue: venueId })).toEqual(['20270510T180000Z'])
    expect(await keys({ categories: geology[0]!.id })).toEqual(['20270510T180000Z'])
    expect(await keys({ categories: science[0]!.id })).toEqual(['20270503T180000Z', '20270517T180000Z'])
    expect(await keys({ featured: true })).toEqual(['20270510T180000Z'])
    expect(await keys({ search: 'volcanoes' })).toEqual(['20270510T180000Z'])
  })

  it('follows the series: permissions, trash, and an unknown key is 404', async () => {
    const series = await calendar.events.create({
      title: 'Quiz', start_date: '2027-05-04 20:00:00', end_date: '2027-05-04 22:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'],
    })
    const fail = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => calendar.toErrorResponse(e))
    expect((await fail(calendar.events.updateOccurrence(series.id, '20270511T200000Z', { title: 'x' }, contributor)))?.status).toBe(403)
    expect((await fail(calendar.events.updateOccurrence(series.id, '20270511T200000Z', { title: 'x' }, { as: null })))?.status).toBe(401)
    const missing = await fail(calendar.events.updateOccurrence(series.id, '20270512T200000Z', { title: 'x' }))
    expect(missing).toMatchObject({ status: 404, body: { code: 'rest-event-occurrence-not-found' } })
    const [count] = await querySql<{ n: number | string }>(`select count(*) as n from events where exception_of = ${series.id}`)
    expect(Number(count!.n)).toBe(0)
    await calendar.events.updateOccurrence(series.id, '20270511T200000Z', { title: 'Quiz final' })
    await calendar.events.delete(series.id)
    expect(await items(calendar, { search: 'Quiz' })).toEqual([])
    expect((await items(calendar, { search: 'Quiz', status: 'trash' })).map((e) => e.title).sort()).toEqual(['Quiz', 'Quiz final'])
  })

  it('deleting a changed occurrence removes the change too', async () => {
    const series = await calendar.events.create({
      title: 'Lab', start_date: '2027-04-12 09:00:00', end_date: '2027-04-12 10:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=DAILY;COUNT=3'],
    })
    await calendar.events.updateOccurrence(series.id, '20270413T090000Z', { title: 'Lab moved', start_date: '2027-04-13 15:00:00', end_date: '2027-04-13 16:00:00' })
    await calendar.events.deleteOccurrence(series.id, '20270413T090000Z')
    expect(brief(await items(calendar, { search: 'Lab' }))).toEqual([
      ['20270412T090000Z', '2027-04-12 09:00:00', 'Lab'],
      ['20270414T090000Z', '2027-04-14 09:00:00', 'Lab'],
    ])
  })

  it('a series edit that drops the changed occurrence from the rule (EXDATE, shorter COUNT) drops the change', async () => {
    const series = await calendar.events.create({
      title: 'Course', start_date: '2027-04-19 09:00:00', end_date: '2027-04-19 10:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=DAILY;COUNT=4'],
    })
    await calendar.events.updateOccurrence(series.id, '20270420T090000Z', { title: 'Course (room B)' })
    await calendar.events.updateOccurrence(series.id, '20270422T090000Z', { title: 'Course (exam)' })
    await calendar.events.update(series.id, { recurrence: ['RRULE:FREQ=DAILY;COUNT=3', 'EXDATE:20270420T090000Z'] })
    expect(brief(await items(calendar, { search: 'Course' }))).toEqual([
      ['20270419T090000Z', '2027-04-19 09:00:00', 'Course'],
      ['20270421T090000Z', '2027-04-21 09:00:00', 'Course'],
    ])
    const feed = await calendar.events.feed({ start_date: '2027-04-01', end_date: '2027-04-30', search: 'Course' })
    expect(feed).not.toContain('RECURRENCE-ID')
  })

  it('writes a changed occurrence into the feed as its series\' VEVENT with RECURRENCE-ID', async () => {
    const series = await calendar.events.create({
      title: 'Seminar', start_date: '2027-04-26 09:00:00', end_date: '2027-04-26 10:00:00', timezone: 'Europe/Berlin', recurrence: ['RRULE:FREQ=DAILY;COUNT=2'],
    })
    await calendar.events.updateOccurrence(series.id, '20270427T070000Z', { title: 'Seminar (online)' })
    const feed = await calendar.events.feed({ start_date: '2027-04-01', end_date: '2027-04-30', search: 'Seminar' })
    const vevents = feed.split('BEGIN:VEVENT').slice(1)
    expect(vevents).toHaveLength(2)
    expect(vevents.every((v) => v.includes(`UID:event-${series.id}@`))).toBe(true)
    const changed = vevents.find((v) => v.includes('SUMMARY:Seminar (online)'))!
    expect(changed).toContain('RECURRENCE-ID:20270427T070000Z')
    expect(changed).not.toContain('RRULE')
  })
})
