import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, CallOptions } from '@cal-events/core'
import { BACKEND, freshCalendar, querySql } from '../../../../test-support/test-db.js'

// Deleting one occurrence of a series (issue 19 item 3): an EXDATE is added, the series stays;
// a key that is no occurrence is a 404; permissions are the series'.

const NOW = new Date('2026-11-21T03:39:06Z')
const editor: CallOptions = { as: { id: 301, role: 'editor' } }
const contributor: CallOptions = { as: { id: 201, role: 'contributor' } }

/** The wire answer (status and code) a script call failed with. */
async function failure(calendar: Calendar, call: Promise<unknown>): Promise<{ status: number; code: unknown; data: unknown }> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err, 'the call should fail').toBeDefined()
  const response = calendar.toErrorResponse(err)
  const body = response.body as { code: unknown; data: unknown }
  return { status: response.status, code: body.code, data: body.data }
}

async function recurrenceOf(id: number): Promise<string[] | null> {
  const [row] = await querySql<{ recurrence: string[] | null }>(`select recurrence from events where id = ${id}`)
  return row!.recurrence
}

describe(`events: deleting one occurrence of a series (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: 'https://cal.example.org' })
  })
  afterAll(() => calendar.close())

  // Weekly at 10:00 Berlin across the March DST change: 09:00Z before, 08:00Z after.
  const weekly = () =>
    calendar.events.create({
      title: 'Choir',
      start_date: '2027-03-16 10:00:00',
      end_date: '2027-03-16 11:00:00',
      timezone: 'Europe/Berlin',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'],
    })

  it('adds an EXDATE in UTC for the key, keeps the series, and answers the series', async () => {
    const series = await weekly()
    const answer = await calendar.events.deleteOccurrence(series.id, '20270330T080000Z')
    expect(answer).toMatchObject({ id: series.id, status: 'publish', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5', 'EXDATE:20270330T080000Z'] })
    expect(await recurrenceOf(series.id)).toEqual(['RRULE:FREQ=WEEKLY;COUNT=5', 'EXDATE:20270330T080000Z'])
    // The series' first occurrence (its DTSTART) can be deleted too; the same EXDATE line grows.
    await calendar.events.deleteOccurrence(series.id, '20270316T090000Z')
    expect(await recurrenceOf(series.id)).toEqual(['RRULE:FREQ=WEEKLY;COUNT=5', 'EXDATE:20270330T080000Z,20270316T090000Z'])
    expect((await calendar.events.get(series.id)).status).toBe('publish')
    const listed = await calendar.events.list({ start_date: '2027-03-01', end_date: '2027-05-01', search: 'Choir', per_page: 50 })
    const keys = (listed.events as unknown as { id: number; occurrence?: string }[]).filter((e) => e.id === series.id).map((e) => e.occurrence)
    expect(keys).toEqual(['20270323T090000Z', '20270406T080000Z', '20270413T080000Z'])
  })

  it('answers 404 rest-event-occurrence-not-found for a key that is no occurrence; nothing written', async () => {
    const series = await weekly()
    await calendar.events.deleteOccurrence(series.id, '20270323T090000Z')
    const before = await recurrenceOf(series.id)
    for (const key of ['20270323T090000Z', '20270323T100000Z', '20270324T090000Z', '20270323', '2027-03-23', 'nope', '20270230T090000Z', '20270420T080000Z']) {
      expect(await failure(calendar, calendar.events.deleteOccurrence(series.id, key)), key).toMatchObject({ status: 404, code: 'rest-event-occurrence-not-found' })
    }
    expect(await recurrenceOf(series.id)).toEqual(before)
    const single = await calendar.events.create({ title: 'Once', start_date: '2027-03-16 10:00:00', end_date: '2027-03-16 11:00:00', timezone: 'Europe/Berlin' })
    expect(await failure(calendar, calendar.events.deleteOccurrence(single.id, '20270316T090000Z'))).toMatchObject({ status: 404, code: 'rest-event-occurrence-not-found' })
    expect(await failure(calendar, calendar.events.deleteOccurrence(999_999, '20270316T090000Z'))).toMatchObject({ status: 404, code: 'rest-event-not-found' })
  })

  it('uses date keys in an all-day series (EXDATE;VALUE=DATE)', async () => {
    const days = await calendar.events.create({
      title: 'Market',
      start_date: '2027-01-15 00:00:00',
      end_date: '2027-01-15 23:59:59',
      all_day: true,
      recurrence: ['RRULE:FREQ=MONTHLY;BYMONTHDAY=15;COUNT=6'],
    })
    await calendar.events.deleteOccurrence(days.id, '20270315')
    expect(await recurrenceOf(days.id)).toEqual(['RRULE:FREQ=MONTHLY;BYMONTHDAY=15;COUNT=6', 'EXDATE;VALUE=DATE:20270315'])
    expect(await failure(calendar, calendar.events.deleteOccurrence(days.id, '20270415T000000Z'))).toMatchObject({ status: 404 })
  })

  it('refuses deleting the last occurrence left (400 on recurrence): that is deleting the series', async () => {
    const pair = await calendar.events.create({ title: 'Pair', start_date: '2027-05-01 10:00:00', end_date: '2027-05-01 11:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=DAILY;COUNT=2'] })
    await calendar.events.deleteOccurrence(pair.id, '20270501T100000Z')
    const last = await failure(calendar, calendar.events.deleteOccurrence(pair.id, '20270502T100000Z'))
    expect(last).toMatchObject({ status: 400, code: 'rest_invalid_param', data: { params: { recurrence: 'The rule produces no occurrence.' } } })
    expect(await recurrenceOf(pair.id)).toEqual(['RRULE:FREQ=DAILY;COUNT=2', 'EXDATE:20270501T100000Z'])
  })

  it('follows the series permissions: anonymous 401, a contributor on another author\'s series 403, an editor may', async () => {
    const series = await weekly()
    expect(await failure(calendar, calendar.events.deleteOccurrence(series.id, '20270323T090000Z', { as: null }))).toMatchObject({ status: 401 })
    expect(await failure(calendar, calendar.events.deleteOccurrence(series.id, '20270323T090000Z', contributor))).toMatchObject({ status: 403 })
    expect(await recurrenceOf(series.id)).toEqual(['RRULE:FREQ=WEEKLY;COUNT=5'])
    await calendar.events.deleteOccurrence(series.id, '20270323T090000Z', editor)
    expect(await recurrenceOf(series.id)).toEqual(['RRULE:FREQ=WEEKLY;COUNT=5', 'EXDATE:20270323T090000Z'])
  })

  it('keeps every EXDATE when occurrences are deleted at the same time', async () => {
    const series = await weekly()
    const keys = ['20270323T090000Z', '20270330T080000Z', '20270406T080000Z']
    await Promise.all(keys.map((key) => calendar.events.deleteOccurrence(series.id, key)))
    const exdates = (await recurrenceOf(series.id))!.find((l) => l.startsWith('EXDATE:'))!.slice('EXDATE:'.length).split(',')
    expect(exdates.sort()).toEqual(keys)
  })

  it('deleting the whole series is the existing DELETE; its occurrences are then gone (410)', async () => {
    const series = await weekly()
    expect((await calendar.events.delete(series.id)).status).toBe('trash')
    expect(await failure(calendar, calendar.events.deleteOccurrence(series.id, '20270323T090000Z'))).toMatchObject({ status: 410 })
  })

  it('is served at DELETE /events/{id}/occurrences/{key} and documented', async () => {
    const series = await weekly()
    const res = await calendar.handle({ method: 'DELETE', path: `/cal/events/v1/events/${series.id}/occurrences/20270323T090000Z`, query: '', headers: {}, origin: 'http://cal.test' })
    expect(res.status, JSON.stringify(res.body)).toBe(401)
    const doc = await calendar.discovery.openapi()
    const op = doc.paths['/events/{id}/occurrences/{key}']!.delete!
    expect(op.operationId).toBe('deleteEventOccurrence')
    expect(JSON.stringify(op.responses['404'])).toContain('rest-event-occurrence-not-found')
  })
})
