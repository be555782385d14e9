import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, CallOptions } from '@cal-events/core'
import { BACKEND, freshCalendar, querySql } from '../../../../test-support/test-db.js'

// "This and all following" (issue 19 item 3, docs/recurrence.md): a split ends the series before
// the chosen occurrence and starts a new series there; together they list exactly what the series
// listed, with the change from the chosen occurrence on.

const NOW = new Date('2026-11-21T03:39:06Z')
const contributor: CallOptions = { as: { id: 201, role: 'contributor' } }
const author: CallOptions = { as: { id: 202, role: 'author' } }

interface Item {
  id: number
  title: string
  occurrence?: string
  start_date: string
  recurrence?: string[]
  global_id: string
  global_id_lineage: string[]
}

/** Every item of a window, walked page by page (`perPage` a page), and the total each page reported. */
async function walk(calendar: Calendar, query: Record<string, unknown>, perPage: number): Promise<{ items: Item[]; totals: number[] }> {
  const items: Item[] = []
  const totals: number[] = []
  for (let page = 1; ; page++) {
    const answer = await calendar.events.list({ ...query, per_page: perPage, page })
    items.push(...(answer.events as unknown as Item[]))
    totals.push(answer.total)
    if (page >= answer.total_pages) return { items, totals }
  }
}

const brief = (list: Item[]) => list.map((e) => [e.id, e.occurrence, e.start_date, e.title])

/** The wire answer (status and code, params) a script call failed with. */
async function failure(calendar: Calendar, call: Promise<unknown>): Promise<{ status: number; code: unknown; params: Record<string, unknown> | undefined }> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err, 'the call should fail').toBeDefined()
  const body = calendar.toErrorResponse(err).body as { code: unknown; data?: { params?: Record<string, unknown> } }
  return { status: calendar.toErrorResponse(err).status, code: body.code, params: body.data?.params }
}

async function eventRows(): Promise<string> {
  const rows = await querySql<{ id: number; recurrence: string[] | null; title: string; exception_of: number | null; exception_key: string | null }>(
    'select id, recurrence, title, exception_of, exception_key from events order by id',
  )
  const occurrences = await querySql<{ series_id: number; occurrence_key: string; overridden: boolean }>(
    'select series_id, occurrence_key, overridden from event_occurrences order by series_id, occurrence_key',
  )
  return JSON.stringify([rows, occurrences])
}

describe(`events: changing an occurrence and all following ones (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: 'https://cal.example.org' })
  })
  afterAll(() => calendar.close())

  it('splits a weekly Europe/Berlin COUNT series across the DST change: times stay local, the count is kept, EXDATEs move with the new time', async () => {
    const series = await calendar.events.create({
      title: 'Yoga',
      start_date: '2027-03-09 10:00:00',
      end_date: '2027-03-09 11:00:00',
      timezone: 'Europe/Berlin',
      categories: ['Sport'],
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6', 'EXDATE;TZID=Europe/Berlin:20270406T100000'],
    })
    const window = { start_date: '2027-03-01', end_date: '2027-05-31', search: 'Yoga' }
    expect((await calendar.events.list(window)).total).toBe(5)
    // From 23 March on at 11:00 local, in the new room: across 28 March (CET -> CEST).
    const split = (await calendar.events.updateFollowing(series.id, '20270323T090000Z', {
      title: 'Yoga (new room)',
      start_date: '2027-03-23 11:00:00',
      end_date: '2027-03-23 12:00:00',
    })) as unknown as Item & { categories: { name: string }[] }
    expect(split.id).not.toBe(series.id)
    expect(split).toMatchObject({
      title: 'Yoga (new room)',
      start_date: '2027-03-23 11:00:00',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4', 'EXDATE:20270406T110000'],
      categories: [expect.objectContaining({ name: 'Sport' })],
    })
    expect(split.global_id_lineage).toEqual([split.global_id, (await calendar.events.get(series.id)).global_id])
    expect((await calendar.events.get(series.id)).recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=2'])
    const { items, totals } = await walk(calendar, window, 2)
    expect(brief(items)).toEqual([
      [series.id, '20270309T090000Z', '2027-03-09 10:00:00', 'Yoga'],
      [series.id, '20270316T090000Z', '2027-03-16 10:00:00', 'Yoga'],
      [split.id, '20270323T100000Z', '2027-03-23 11:00:00', 'Yoga (new room)'],
      [split.id, '20270330T090000Z', '2027-03-30 11:00:00', 'Yoga (new room)'],
      [split.id, '20270413T090000Z', '2027-04-13 11:00:00', 'Yoga (new room)'],
    ])
    expect(new Set(totals)).toEqual(new Set([5]))
  })

  it('keeps UTC EXDATEs where they were and moves changed occurrences after the key to the new series (open-ended rule)', async () => {
    const series = await calendar.events.create({
      title: 'Standup',
      start_date: '2027-06-01 09:00:00',
      end_date: '2027-06-01 09:15:00',
      timezone: 'UTC',
      recurrence: ['RRULE:FREQ=DAILY', 'EXDATE:20270603T090000Z,20270606T090000Z'],
    })
    await calendar.events.updateOccurrence(series.id, '20270602T090000Z', { title: 'Standup (early)' })
    await calendar.events.updateOccurrence(series.id, '20270605T090000Z', { title: 'Standup (demo)' })
    const split = (await calendar.events.updateFollowing(series.id, '20270604T090000Z', { title: 'Standup v2' })) as unknown as Item
    expect(split.recurrence).toEqual(['RRULE:FREQ=DAILY', 'EXDATE:20270606T090000Z'])
    expect((await calendar.events.get(series.id)).recurrence).toEqual(['RRULE:FREQ=DAILY;UNTIL=20270604T085959Z', 'EXDATE:20270603T090000Z'])
    const window = { start_date: '2027-06-01', end_date: '2027-06-08 23:59:59', search: 'Standup' }
    const { items, totals } = await walk(calendar, window, 3)
    expect(brief(items)).toEqual([
      [series.id, '20270601T090000Z', '2027-06-01 09:00:00', 'Standup'],
      [series.id, '20270602T090000Z', '2027-06-02 09:00:00', 'Standup (early)'],
      [split.id, '20270604T090000Z', '2027-06-04 09:00:00', 'Standup v2'],
      [split.id, '20270605T090000Z', '2027-06-05 09:00:00', 'Standup (demo)'],
      [split.id, '20270607T090000Z', '2027-06-07 09:00:00', 'Standup v2'],
      [split.id, '20270608T090000Z', '2027-06-08 09:00:00', 'Standup v2'],
    ])
    expect(new Set(totals)).toEqual(new Set([6]))
    // The moved change is the new series' now; the old one no longer has that occurrence.
    expect(await calendar.events.getOccurrence(split.id, '20270605T090000Z')).toMatchObject({ title: 'Standup (demo)', series_id: split.id })
    expect(await failure(calendar, calendar.events.getOccurrence(series.id, '20270605T090000Z'))).toMatchObject({ status: 404, code: 'rest-event-occurrence-not-found' })
    // A whole-series edit of the old series leaves the new one alone.
    await calendar.events.update(series.id, { title: 'Standup (old team)', venue: { venue: 'Room 1' } })
    const after = (await walk(calendar, window, 50)).items
    expect(after.filter((e) => e.id === split.id).map((e) => e.title)).toEqual(['Standup v2', 'Standup (demo)', 'Standup v2', 'Standup v2'])
    expect(after.filter((e) => e.id === series.id).map((e) => e.title)).toEqual(['Standup (old team)', 'Standup (early)'])
  })

  it('moves a changed occurrence with the new start time and gives the chosen occurrence the change; all-day COUNT series keep their count', async () => {
    const series = await calendar.events.create({
      title: 'Course', start_date: '2027-07-05 18:00:00', end_date: '2027-07-05 19:00:00', timezone: 'America/New_York', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'],
    })
    await calendar.events.updateOccurrence(series.id, '20270719T220000Z', { title: 'Course (key)' })
    await calendar.events.updateOccurrence(series.id, '20270726T220000Z', { description: 'Guest talk' })
    const split = (await calendar.events.updateFollowing(series.id, '20270719T220000Z', { start_date: '2027-07-19 19:00:00', end_date: '2027-07-19 20:00:00' })) as unknown as Item
    const items = (await walk(calendar, { start_date: '2027-07-01', end_date: '2027-08-31', search: 'Course' }, 50)).items as (Item & { description: string })[]
    expect(items.map((e) => [e.id, e.occurrence, e.start_date, e.title])).toEqual([
      [series.id, '20270705T220000Z', '2027-07-05 18:00:00', 'Course'],
      [series.id, '20270712T220000Z', '2027-07-12 18:00:00', 'Course'],
      [split.id, '20270719T230000Z', '2027-07-19 19:00:00', 'Course (key)'],
      [split.id, '20270726T230000Z', '2027-07-26 18:00:00', 'Course'],
      [split.id, '20270802T230000Z', '2027-08-02 19:00:00', 'Course'],
    ])
    expect(items[3]!.description).toContain('Guest talk')

    const days = await calendar.events.create({
      title: 'Festival', start_date: '2027-08-10', end_date: '2027-08-10', all_day: true, timezone: 'Europe/Berlin', recurrence: ['RRULE:FREQ=DAILY;COUNT=5'],
    })
    const rest = (await calendar.events.updateFollowing(days.id, '20270812', { title: 'Festival (weekend)' })) as unknown as Item
    expect((await calendar.events.get(days.id)).recurrence).toEqual(['RRULE:FREQ=DAILY;COUNT=2'])
    expect(rest.recurrence).toEqual(['RRULE:FREQ=DAILY;COUNT=3'])
    const listed = (await walk(calendar, { start_date: '2027-08-01', end_date: '2027-08-31', search: 'Festival' }, 50)).items
    expect(listed.map((e) => [e.occurrence, e.title])).toEqual([
      ['20270810', 'Festival'], ['20270811', 'Festival'], ['20270812', 'Festival (weekend)'], ['20270813', 'Festival (weekend)'], ['20270814', 'Festival (weekend)'],
    ])
  })

  it('moves EXDATEs and UNTIL into the new time zone of a split with the wall clocks they had (a removed occurrence stays removed, the last one stays)', async () => {
    const series = await calendar.events.create({
      title: 'Pilates', start_date: '2027-03-09 10:00:00', end_date: '2027-03-09 11:00:00', timezone: 'Europe/Berlin',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6', 'EXDATE;TZID=Europe/Berlin:20270406T100000'],
    })
    const split = (await calendar.events.updateFollowing(series.id, '20270323T090000Z', { timezone: 'America/New_York' })) as unknown as Item
    expect(split.recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=4', 'EXDATE:20270406T100000'])
    const { items, totals } = await walk(calendar, { start_date: '2027-03-01', end_date: '2027-05-31', search: 'Pilates' }, 2)
    expect(brief(items)).toEqual([
      [series.id, '20270309T090000Z', '2027-03-09 10:00:00', 'Pilates'],
      [series.id, '20270316T090000Z', '2027-03-16 10:00:00', 'Pilates'],
      [split.id, '20270323T140000Z', '2027-03-23 10:00:00', 'Pilates'],
      [split.id, '20270330T140000Z', '2027-03-30 10:00:00', 'Pilates'],
      [split.id, '20270413T140000Z', '2027-04-13 10:00:00', 'Pilates'],
    ])
    expect(new Set(totals)).toEqual(new Set([5]))

    // 19:00 Berlin until 20 April; from 30 March at 20:00 New York: the last one is 20 April 20:00 there.
    const tango = await calendar.events.create({
      title: 'Tango', start_date: '2027-03-16 19:00:00', end_date: '2027-03-16 21:00:00', timezone: 'Europe/Berlin', recurrence: ['RRULE:FREQ=WEEKLY;UNTIL=20270420T170000Z'],
    })
    const moved = (await calendar.events.updateFollowing(tango.id, '20270330T170000Z', {
      timezone: 'America/New_York', start_date: '2027-03-30 20:00:00', end_date: '2027-03-30 22:00:00',
    })) as unknown as Item
    expect(moved.recurrence).toEqual(['RRULE:FREQ=WEEKLY;UNTIL=20270421T000000Z'])
    const listed = (await walk(calendar, { start_date: '2027-03-01', end_date: '2027-05-31', search: 'Tango' }, 50)).items
    expect(listed.map((e) => [e.id, e.start_date])).toEqual([
      [tango.id, '2027-03-16 19:00:00'], [tango.id, '2027-03-23 19:00:00'],
      [moved.id, '2027-03-30 20:00:00'], [moved.id, '2027-04-06 20:00:00'], [moved.id, '2027-04-13 20:00:00'], [moved.id, '2027-04-20 20:00:00'],
    ])
  })

  it('at the first occurrence edits the whole series; refuses a key that is no occurrence (404) and a rule with no occurrence (400), writing nothing', async () => {
    const series = await calendar.events.create({
      title: 'Quiz', start_date: '2027-09-07 20:00:00', end_date: '2027-09-07 22:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=WEEKLY;UNTIL=20271005T200000Z'],
    })
    const whole = (await calendar.events.updateFollowing(series.id, '20270907T200000Z', { title: 'Pub quiz' })) as unknown as Item
    expect(whole).toMatchObject({ id: series.id, title: 'Pub quiz', recurrence: ['RRULE:FREQ=WEEKLY;UNTIL=20271005T200000Z'] })
    const before = await eventRows()
    expect(await failure(calendar, calendar.events.updateFollowing(series.id, '20270915T200000Z', { title: 'x' }))).toMatchObject({ status: 404, code: 'rest-event-occurrence-not-found' })
    expect(await failure(calendar, calendar.events.updateFollowing(series.id, '20271012T200000Z', { title: 'x' }))).toMatchObject({ status: 404, code: 'rest-event-occurrence-not-found' })
    const empty = await failure(calendar, calendar.events.updateFollowing(series.id, '20270921T200000Z', { recurrence: ['RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30'] }))
    expect(empty).toMatchObject({ status: 400, code: 'rest_invalid_param' })
    expect(Object.keys(empty.params ?? {})).toEqual(['recurrence'])
    // Moving the rest past the rule's end leaves it no occurrence either.
    const moved = await failure(calendar, calendar.events.updateFollowing(series.id, '20270921T200000Z', { recurrence: ['RRULE:FREQ=WEEKLY;UNTIL=20270901T000000Z'] }))
    expect([moved.status, Object.keys(moved.params ?? {})]).toEqual([400, ['recurrence']])
    expect(await eventRows()).toBe(before)
  })

  it('splits at an added date (RDATE) only after the rule has ended; before that, the rule cannot start there (400)', async () => {
    const series = await calendar.events.create({
      title: 'Market',
      start_date: '2027-11-01 10:00:00',
      end_date: '2027-11-01 11:00:00',
      timezone: 'UTC',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3', 'RDATE:20271111T100000Z,20271201T100000Z'],
    })
    const early = await failure(calendar, calendar.events.updateFollowing(series.id, '20271111T100000Z', { title: 'x' }))
    expect([early.status, Object.keys(early.params ?? {})]).toEqual([400, ['recurrence']])
    const late = (await calendar.events.updateFollowing(series.id, '20271201T100000Z', { title: 'Market (winter)' })) as unknown as Item
    expect(late.recurrence).toEqual(['RDATE:20271201T100000Z'])
    expect((await calendar.events.get(series.id)).recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=3', 'RDATE:20271111T100000Z'])
    const { items, totals } = await walk(calendar, { start_date: '2027-10-01', end_date: '2027-12-31', search: 'Market' }, 2)
    expect(items.map((e) => [e.id, e.start_date.slice(0, 10), e.title])).toEqual([
      [series.id, '2027-11-01', 'Market'],
      [series.id, '2027-11-08', 'Market'],
      [series.id, '2027-11-11', 'Market'],
      [series.id, '2027-11-15', 'Market'],
      [late.id, '2027-12-01', 'Market (winter)'],
    ])
    expect(new Set(totals)).toEqual(new Set([5]))
  })

  it("has the series' permissions: a contributor may not split another's series, its author may", async () => {
    const theirs = await calendar.events.create({
      title: 'Book club', start_date: '2027-10-04 19:00:00', end_date: '2027-10-04 20:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
    })
    const before = await eventRows()
    expect((await failure(calendar, calendar.events.updateFollowing(theirs.id, '20271018T190000Z', { title: 'x' }, contributor))).status).toBe(403)
    expect((await failure(calendar, calendar.events.updateFollowing(theirs.id, '20271018T190000Z', { title: 'x' }, { as: null }))).status).toBe(401)
    expect((await failure(calendar, calendar.events.updateFollowing(theirs.id, '20271018T190000Z', { title: 'x' }, author))).status).toBe(403)
    expect(await eventRows()).toBe(before)
    const own = await calendar.events.create(
      { title: 'Reading', start_date: '2027-10-05 19:00:00', end_date: '2027-10-05 20:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'] },
      author,
    )
    const split = (await calendar.events.updateFollowing(own.id, '20271019T190000Z', { title: 'Reading (autumn)' }, author)) as unknown as Item & { author: string; status: string }
    expect(split).toMatchObject({ author: '202', status: 'publish', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'] })
  })
})
