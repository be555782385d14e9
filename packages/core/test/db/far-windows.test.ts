import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, EventInput, EventListQuery, EventResource, Principal } from '@cal-events/core'
import { expandRecurrence } from '../../src/recurrence/recurrence.js'
import { BACKEND, freshCalendar, querySql } from '../../../../test-support/test-db.js'

// Issue 28 item 3, "reads never write": occurrences of open-ended series past the stored horizon
// (now + 36 months) are computed for the request and never stored; a far window is bounded.
const NOW = new Date('2026-11-21T03:39:06Z')
const EDITOR: Principal = { id: 900, role: 'editor' }

/** What a read may not change: the stored occurrences (rows and table size). */
async function storedState() {
  const [row] = await querySql<{ n: number; size: string }>(
    `select count(*)::int as n, pg_total_relation_size('event_occurrences')::text as size from event_occurrences`,
  )
  return row!
}

/** The wall-clock starts of a series' occurrences between two UTC dates, expanded directly. */
function expected(recurrence: string[], start: string, zone: string, allDay: boolean, from: string, to: string): string[] {
  return expandRecurrence(recurrence, { wall: start, zone, allDay }, new Date(`${from}T00:00:00Z`), new Date(`${to}T23:59:59Z`)).map((o) => o.wall)
}

describe(`far windows: computed, never stored (${BACKEND})`, () => {
  let calendar: Calendar
  const list = (query: EventListQuery, as: Principal | null = null) => calendar.events.list(query, { as })
  const series = (title: string, start: string, end: string, recurrence: string[], extra: EventInput = {}) =>
    calendar.events.create({ title, start_date: start, end_date: end, recurrence, ...extra })

  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, siteTimezone: 'UTC' })
  })
  afterAll(() => calendar.close())

  it('counts a series that only has occurrences past the horizon as upcoming for its venue', async () => {
    const venue = await calendar.venues.create({ venue: 'Far hall' })
    await series('Far hall nights', '2031-05-01 20:00:00', '2031-05-01 22:00:00', ['RRULE:FREQ=MONTHLY'], { timezone: 'UTC', venue: venue.id })
    const names = (await calendar.venues.list({ only_with_upcoming: true, per_page: 50 }, { as: null })).venues.map((v) => v.venue)
    expect(names).toContain('Far hall')
  })

  it('lists the occurrences the rules give past the horizon and stores no row', async () => {
    await series('Far Monday', '2026-12-07 18:00:00', '2026-12-07 19:00:00', ['RRULE:FREQ=WEEKLY;BYDAY=MO'], { timezone: 'America/New_York' })
    await series('Far daily', '2027-01-01 10:00:00', '2027-01-01 10:30:00', ['RRULE:FREQ=DAILY;INTERVAL=3', 'EXDATE;TZID=Europe/Berlin:20400310T100000'], {
      timezone: 'Europe/Berlin',
    })
    await series('Far market', '2027-01-29 00:00:00', '2027-01-29 23:59:59', ['RRULE:FREQ=MONTHLY;BYDAY=-1FR'], { all_day: true, timezone: 'Europe/Berlin' })
    await series('Far draft', '2027-01-01 09:00:00', '2027-01-01 10:00:00', ['RRULE:FREQ=DAILY'], { status: 'draft', timezone: 'UTC' })
    const before = await storedState()

    const window = { start_date: '2040-03-01', end_date: '2040-03-31', per_page: 100 }
    const listed = await list(window)
    const starts = (title: string) => listed.events.filter((i) => i.title === title).map((i) => i.start_date)
    expect(starts('Far Monday')).toEqual(expected(['RRULE:FREQ=WEEKLY;BYDAY=MO'], '2026-12-07 18:00:00', 'America/New_York', false, '2040-03-01', '2040-03-31'))
    const daily = expected(['RRULE:FREQ=DAILY;INTERVAL=3', 'EXDATE;TZID=Europe/Berlin:20400310T100000'], '2027-01-01 10:00:00', 'Europe/Berlin', false, '2040-03-01', '2040-03-31')
    expect(daily.length).toBeGreaterThan(8)
    expect(starts('Far daily')).toEqual(daily)
    expect(starts('Far market')).toEqual(['2040-03-30 00:00:00'])
    expect(starts('Far draft')).toEqual([])
    expect(listed.total).toBe(listed.events.length)
    // Sorted by start, each an occurrence of its series with its key and times.
    expect(listed.events.map((i) => i.start_date)).toEqual(listed.events.map((i) => i.start_date).sort())
    const monday = listed.events.find((i) => i.title === 'Far Monday')!
    expect(monday).toMatchObject({ occurrence: '20400305T230000Z', end_date: '2040-03-05 19:00:00', utc_start_date: '2040-03-05 23:00:00' })
    // An editor sees the draft series' occurrences too.
    expect((await list({ ...window, status: 'draft' }, EDITOR)).total).toBe(31)

    expect(await storedState()).toEqual(before)
  })

  it('pages a far window that mixes single events and computed occurrences with exact totals', async () => {
    await series('Paged weekly', '2027-02-02 12:00:00', '2027-02-02 13:00:00', ['RRULE:FREQ=WEEKLY;BYDAY=TU,TH'], { timezone: 'UTC' })
    for (const day of ['05', '07', '12', '20']) {
      await calendar.events.create({ title: `Paged single ${day}`, start_date: `2041-06-${day} 12:00:00`, end_date: `2041-06-${day} 13:00:00`, timezone: 'UTC' })
    }
    const before = await storedState()
    const window = { start_date: '2041-06-01', end_date: '2041-06-30', search: 'Paged' }
    const all = await list({ ...window, per_page: 100 })
    // Tuesdays and Thursdays of June 2041 (8) and the four single events.
    expect(all.total).toBe(12)
    expect(all.events.filter((i) => i.title.startsWith('Paged single')).map((i) => i.start_date)).toEqual([
      '2041-06-05 12:00:00', '2041-06-07 12:00:00', '2041-06-12 12:00:00', '2041-06-20 12:00:00',
    ])
    const walked: EventResource[] = []
    for (let page = 1; page <= 3; page++) {
      const got = await list({ ...window, per_page: 4, page })
      expect(got.total).toBe(12)
      walked.push(...got.events)
    }
    expect(walked.map((i) => [i.title, i.start_date, i.occurrence ?? null])).toEqual(all.events.map((i) => [i.title, i.start_date, i.occurrence ?? null]))
    await expect(list({ ...window, per_page: 4, page: 4 })).rejects.toMatchObject({ code: 'EVENT_ARCHIVE_PAGE_NOT_FOUND' })
    expect(await storedState()).toEqual(before)
  })

  it('applies changed and deleted occurrences inside a far window', async () => {
    const s = await series('Far club', '2027-01-04 19:00:00', '2027-01-04 20:00:00', ['RRULE:FREQ=WEEKLY;BYDAY=MO'], { timezone: 'UTC' })
    const window = { start_date: '2042-01-01', end_date: '2042-01-31', search: 'Far club' }
    // Mondays 6, 13, 20 and 27 January 2042: the 13th is changed, the 20th deleted.
    await calendar.events.updateOccurrence(s.id, '20420113T190000Z', { title: 'Far club (moved)', start_date: '2042-01-14 19:00:00', end_date: '2042-01-14 20:00:00' })
    await calendar.events.deleteOccurrence(s.id, '20420120T190000Z')
    const before = await storedState()
    const got = await list(window)
    expect(got.events.map((i) => [i.title, i.occurrence, i.start_date])).toEqual([
      ['Far club', '20420106T190000Z', '2042-01-06 19:00:00'],
      ['Far club (moved)', '20420113T190000Z', '2042-01-14 19:00:00'],
      ['Far club', '20420127T190000Z', '2042-01-27 19:00:00'],
    ])
    expect(got.total).toBe(3)
    expect(await storedState()).toEqual(before)
  })

  it('lists the far past of an open-ended series started decades ago, each occurrence once, storing nothing', async () => {
    // Open-ended series are stored from 10,000 days before the horizon (about July 2002 here).
    await series('Old walk', '1950-01-01 07:00:00', '1950-01-01 08:00:00', ['RRULE:FREQ=DAILY'], { timezone: 'Europe/London' })
    const before = await storedState()
    const march = await list({ start_date: '1990-03-01', end_date: '1990-03-31', search: 'Old walk', per_page: 50 })
    expect(march.events.map((i) => i.start_date)).toEqual(expected(['RRULE:FREQ=DAILY'], '1950-01-01 07:00:00', 'Europe/London', false, '1990-03-01', '1990-03-31'))
    expect(march.total).toBe(31)
    // Across the first stored day: computed before it, stored from it, none twice or missing.
    const across = await list({ start_date: '2002-06-15', end_date: '2002-07-31', search: 'Old walk', per_page: 100 })
    expect(across.events.map((i) => i.start_date.slice(0, 10))).toEqual(
      Array.from({ length: 47 }, (_, d) => new Date(Date.UTC(2002, 5, 15 + d)).toISOString().slice(0, 10)),
    )
    expect(await storedState()).toEqual(before)
  })

  it('never erases a near year, however many far windows are asked', async () => {
    await series('Real weekly', '2026-12-02 08:00:00', '2026-12-02 09:00:00', ['RRULE:FREQ=WEEKLY'], { timezone: 'UTC' })
    const before = await storedState()
    for (let year = 2100; year < 2100 + 4 * 12; year += 4) {
      expect((await list({ start_date: `${year}-01-01`, end_date: `${year + 3}-12-31`, search: 'Real weekly', per_page: 1 })).total).toBeGreaterThan(200)
    }
    expect((await list({ start_date: '2034-01-01', end_date: '2034-12-31', search: 'Real weekly', per_page: 1 })).total).toBe(52)
    expect((await list({ start_date: '2036-01-01', end_date: '2036-12-31', search: 'Real weekly', per_page: 1 })).total).toBe(53)
    expect(await storedState()).toEqual(before)
  })

})

describe(`far windows are bounded (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, siteTimezone: 'UTC' })
    // 100 open-ended daily series, started just before the horizon so that few rows are stored.
    for (let i = 0; i < 100; i++) {
      await calendar.events.create({
        title: `Daily ${i}`, start_date: '2029-11-01 10:00:00', end_date: '2029-11-01 11:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=DAILY'],
      })
    }
  }, 300_000)
  afterAll(() => calendar.close())

  it('answers a far month over 100 open-ended daily series, storing nothing', async () => {
    const before = await storedState()
    const started = performance.now()
    const got = await calendar.events.list({ start_date: '2045-01-01', end_date: '2045-01-31', per_page: 5 }, { as: null })
    const ms = performance.now() - started
    console.log(`far month over 100 open-ended daily series (${BACKEND}): ${ms.toFixed(0)} ms`)
    expect(got.total).toBe(3100)
    expect(got.events.map((i) => i.start_date)).toEqual(Array(5).fill('2045-01-01 10:00:00'))
    expect(await storedState()).toEqual(before)
  })

  it('refuses a far window with more occurrences than a request computes: 400 naming the dates, nothing stored', async () => {
    const before = await storedState()
    const err = await calendar.events.list({ start_date: '2045-01-01', end_date: '2048-12-31' }, { as: null }).catch((e: unknown) => e)
    expect(err).toMatchObject({ code: 'INVALID_PARAM' })
    const params = (err as { data?: { params?: Record<string, string> } }).data?.params ?? {}
    expect(Object.keys(params).sort()).toEqual(['end_date', 'start_date'])
    expect(params.end_date).toMatch(/5,000 occurrences/)
    expect(await storedState()).toEqual(before)
  })
})
