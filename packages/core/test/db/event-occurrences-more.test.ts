import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCalendar, type Calendar, type EventInput, type EventList, type EventListQuery, type EventResource, type Principal } from '@cal-events/core'
import { BACKEND, freshCalendar, querySql, workerDatabaseUrl } from '../../../../test-support/test-db.js'

// Issue 19 step 2, beyond the basics (event-occurrences.test.ts): the other frames and variants,
// protected and hidden series, all-day series, concurrent far lists and the horizon job.
const NOW = new Date('2026-11-21T03:39:06Z')
const EDITOR: Principal = { id: 900, role: 'editor' }
type Item = EventResource

describe(`occurrences: frames, variants, protection, horizon (${BACKEND})`, () => {
  let calendar: Calendar
  const list = (c: Calendar, query: EventListQuery, as: Principal | null = null): Promise<EventList> => c.events.list(query, { as })
  const series = (c: Calendar, title: string, start: string, end: string, recurrence: string[], extra: EventInput = {}) =>
    c.events.create({ title, start_date: start, end_date: end, recurrence, ...extra })

  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
  })
  afterAll(() => calendar.close())

  it('blanks a protected series in lists and matches its text on the title only; hides a hidden series', async () => {
    // Variant A takes no password on writes: the series is protected in the database.
    const locked = await series(calendar, 'Locked salon', '2027-02-01 10:00:00', '2027-02-01 11:00:00', ['RRULE:FREQ=WEEKLY;COUNT=2'], {
      timezone: 'UTC', description: 'secretword inside', featured: true,
    })
    await querySql(`update events set password = 'pw' where id = ${locked.id}`)
    const w = { start_date: '2027-02-01', end_date: '2027-02-28' }
    const items = (await list(calendar, { ...w, search: 'Locked salon' })).events
    expect(items).toHaveLength(2)
    expect(items.every((i) => i.description === '' && i.featured === null && typeof i.occurrence === 'string')).toBe(true)
    expect((await list(calendar, { ...w, search: 'secretword' })).total).toBe(0)
    expect((await list(calendar, { ...w, featured: true })).events.some((i) => i.title === 'Locked salon')).toBe(false)
    expect((await list(calendar, { ...w, search: 'secretword' }, EDITOR)).total).toBe(2)

    const hidden = await series(calendar, 'Hidden series', '2027-02-03 10:00:00', '2027-02-03 11:00:00', ['RRULE:FREQ=DAILY;COUNT=3'], {
      timezone: 'UTC', hide_from_listings: true,
    })
    expect((await list(calendar, { ...w, search: 'Hidden series' })).total).toBe(0)
    await calendar.events.update(hidden.id, { hide_from_listings: false }, { as: EDITOR })
    expect((await list(calendar, { ...w, search: 'Hidden series' })).total).toBe(3)
  })

  it('keys all-day occurrences by date and reads them', async () => {
    const s = await series(calendar, 'Market day', '2027-03-06 00:00:00', '2027-03-06 23:59:59', ['RRULE:FREQ=WEEKLY;COUNT=3'], {
      all_day: true, timezone: 'Europe/Berlin',
    })
    const items = (await list(calendar, { start_date: '2027-03-01', end_date: '2027-03-31', search: 'Market day' })).events
    expect(items.map((i) => [i.occurrence, i.start_date, i.end_date, i.all_day])).toEqual([
      ['20270306', '2027-03-06 00:00:00', '2027-03-06 23:59:59', true],
      ['20270313', '2027-03-13 00:00:00', '2027-03-13 23:59:59', true],
      ['20270320', '2027-03-20 00:00:00', '2027-03-20 23:59:59', true],
    ])
    const read = (await calendar.events.getOccurrence(s.id, '20270313', { as: null })) as Item
    expect(read.start_date).toBe('2027-03-13 00:00:00')
    await expect(calendar.events.getOccurrence(s.id, '20270313T000000Z', { as: null })).rejects.toMatchObject({
      code: 'EVENT_OCCURRENCE_NOT_FOUND',
    })
  })

  it('computes a far window alike for lists asking at the same time', async () => {
    await series(calendar, 'Far weekly', '2026-12-07 18:00:00', '2026-12-07 19:00:00', ['RRULE:FREQ=WEEKLY;BYDAY=MO'], { timezone: 'America/New_York' })
    const query = { start_date: '2040-01-01', end_date: '2040-01-31', search: 'Far weekly' }
    const answers = await Promise.all([list(calendar, query), list(calendar, query), list(calendar, { ...query, per_page: 2 })])
    expect(answers.map((a) => a.total)).toEqual([5, 5, 5])
    expect(answers[0]!.events.map((i) => i.start_date)).toEqual([
      '2040-01-02 18:00:00', '2040-01-09 18:00:00', '2040-01-16 18:00:00', '2040-01-23 18:00:00', '2040-01-30 18:00:00',
    ])
    // A series written later lists there too.
    await series(calendar, 'Far weekly two', '2026-12-08 18:00:00', '2026-12-08 19:00:00', ['RRULE:FREQ=WEEKLY;BYDAY=TU'], { timezone: 'UTC' })
    expect((await list(calendar, { ...query, search: 'Far weekly two' })).total).toBe(5)
  })

  // A second calendar on the same database (PGlite's instance is the worker's own).
  it.skipIf(BACKEND !== 'postgres')('moves the horizon at the first call of a later calendar', async () => {
    const s = await series(calendar, 'Horizon club', '2026-12-01 12:00:00', '2026-12-01 13:00:00', ['RRULE:FREQ=MONTHLY'], { timezone: 'UTC' })
    const later = await createCalendar({ database: { url: await workerDatabaseUrl() }, migrate: false, now: () => new Date('2028-06-01T00:00:00Z') })
    // The job's first run waits for the calendar's first call.
    await later.events.list({ per_page: 1 })
    await later.close()
    const [h] = await querySql<{ until: string }>(`select until::text as until from event_occurrence_horizon`)
    expect(h!.until >= '2031-06-01').toBe(true)
    const [last] = await querySql<{ last: string }>(`select max(start_utc)::text as last from event_occurrences where series_id = ${s.id}`)
    expect(last!.last >= '2031-05-01').toBe(true)
  })

  it.skipIf(BACKEND !== 'postgres')('does not move a horizon moved less than a day ago: a new process lists with at most 3 statements', async () => {
    // Every process start moved the horizon by the minutes since the last one, in a transaction
    // that read every series: the first list after a restart ran 9 statements (`pnpm bench`).
    const at = (iso: string) => () => new Date(iso)
    const first = await createCalendar({ database: { url: await workerDatabaseUrl() }, migrate: false, now: at('2029-01-01T00:00:00Z') })
    await first.events.list({ per_page: 1 })
    await first.close()
    let statements = 0
    const next = await createCalendar({
      database: { url: await workerDatabaseUrl() }, migrate: false, now: at("2029-01-01T06:00:00Z"), onQuery: () => void statements++,
    })
    statements = 0 // the connection check of opening is not the list's
    await next.events.list({ per_page: 1 })
    await next.close()
    expect(statements).toBeLessThanOrEqual(3)
  })
})

describe(`occurrences with utc date filters (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, dateFilterMode: 'utc', siteTimezone: 'UTC' })
  })
  afterAll(() => calendar.close())

  it('bounds and orders occurrences by their UTC times', async () => {
    await calendar.events.create({ title: 'Tokyo call', start_date: '2027-04-03 07:00:00', end_date: '2027-04-03 07:30:00', timezone: 'Asia/Tokyo', recurrence: ['RRULE:FREQ=DAILY;COUNT=4'] })
    await calendar.events.create({ title: 'UTC call', start_date: '2027-04-04 22:15:00', end_date: '2027-04-04 22:45:00', timezone: 'UTC' })
    const items = (await calendar.events.list({ start_date: '2027-04-04', end_date: '2027-04-04' })).events
    // 07:00 in Tokyo is 22:00 UTC the day before: the UTC day of the 4th holds the Tokyo occurrence
    // of the 5th (local), not the one of the 4th, and orders it by its UTC start.
    expect(items.map((i) => [i.title, i.start_date, i.utc_start_date])).toEqual([
      ['Tokyo call', '2027-04-05 07:00:00', '2027-04-04 22:00:00'],
      ['UTC call', '2027-04-04 22:15:00', '2027-04-04 22:15:00'],
    ])
  })
})

describe(`occurrences in variant B (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ variant: 'B', languages: ['en', 'fr'], now: () => NOW })
  })
  afterAll(() => calendar.close())

  it('lists a series in its own language only', async () => {
    const rule = { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'], start_date: '2027-05-03 10:00:00', end_date: '2027-05-03 11:00:00' }
    await calendar.events.create({ title: 'Cours', ...rule }, { language: 'fr' })
    await calendar.events.create({ title: 'Class', ...rule }, { language: 'en' })
    const w = { start_date: '2027-05-01', end_date: '2027-05-31' }
    const fr = await calendar.events.list({ ...w, ml_language: 'fr' })
    const en = await calendar.events.list({ ...w, ml_language: 'en' })
    expect(fr.events.map((i) => i.title)).toEqual(['Cours', 'Cours'])
    expect(en.events.map((i) => i.title)).toEqual(['Class', 'Class'])
  })
})

describe(`sync walks over series (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
  })
  afterAll(() => calendar.close())

  it('reports a series once, as the series, beside single events', async () => {
    // The series first: on a page with it, its ten occurrences must not crowd out the single events.
    const s = await calendar.events.create({
      title: 'Synced series', start_date: '2027-01-01 09:00:00', end_date: '2027-01-01 09:30:00', recurrence: ['RRULE:FREQ=DAILY;COUNT=10'],
    })
    for (let day = 1; day <= 3; day++) {
      await calendar.events.create({ title: `Single ${day}`, start_date: `2027-01-0${day} 10:00:00`, end_date: `2027-01-0${day} 11:00:00` })
    }
    const items: Item[] = []
    let query = 'sync=1&per_page=2'
    for (let page = 0; page < 10 && query; page++) {
      const res = await calendar.handle({ method: 'GET', path: '/cal/events/v1/events', query, headers: {}, origin: 'http://cal.test' })
      expect(res.status).toBe(200)
      const body = res.body as { events: Item[]; next_rest_url?: string }
      items.push(...body.events)
      query = body.next_rest_url ? new URL(body.next_rest_url).search.slice(1) : ''
    }
    expect(items.map((i) => i.title).sort()).toEqual(['Single 1', 'Single 2', 'Single 3', 'Synced series'])
    const series = items.find((i) => i.id === s.id)!
    expect(series.recurrence).toEqual(['RRULE:FREQ=DAILY;COUNT=10'])
    expect(series).not.toHaveProperty('occurrence')
  })
})
