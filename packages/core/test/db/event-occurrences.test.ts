import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, EventInput, EventListQuery, EventResource, Principal } from '@cal-events/core'
import { BACKEND, freshCalendar, querySql } from '../../../../test-support/test-db.js'

// Issue 19 step 2: occurrences of series as items of GET /events (docs/recurrence.md).
const NOW = new Date('2026-11-21T03:39:06Z')
const EDITOR: Principal = { id: 900, role: 'editor' }

type Item = EventResource

describe(`occurrences in the event list (${BACKEND})`, () => {
  let calendar: Calendar
  let statements: string[] = []
  const list = async (query: EventListQuery, as: Principal | null = null) => {
    statements = []
    const body = await calendar.events.list(query, { as })
    return { ...body, statements: statements.length }
  }
  const series = (title: string, start: string, end: string, recurrence: string[], extra: EventInput = {}) =>
    calendar.events.create({ title, start_date: start, end_date: end, recurrence, ...extra })
  const window = (from: string, to: string, extra: EventListQuery = {}): EventListQuery => ({ start_date: from, end_date: to, per_page: 50, ...extra })
  const starts = (items: Item[], title: string) => items.filter((i) => i.title === title).map((i) => `${i.start_date} ${i.utc_start_date}`)

  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: 'http://cal.example.org', onQuery: (sql) => statements.push(sql) })
  })
  afterAll(() => calendar.close())

  it('keeps 10:00 Europe/Berlin across the spring DST change, UTC moving', async () => {
    await series('Berlin yoga', '2027-03-14 10:00:00', '2027-03-14 11:00:00', ['RRULE:FREQ=WEEKLY;COUNT=4'], { timezone: 'Europe/Berlin' })
    const { events } = await list(window('2027-03-01', '2027-04-30'))
    expect(starts(events, 'Berlin yoga')).toEqual([
      '2027-03-14 10:00:00 2027-03-14 09:00:00',
      '2027-03-21 10:00:00 2027-03-21 09:00:00',
      '2027-03-28 10:00:00 2027-03-28 08:00:00',
      '2027-04-04 10:00:00 2027-04-04 08:00:00',
    ])
    const ends = events.filter((i) => i.title === 'Berlin yoga').map((i) => i.end_date)
    expect(ends[2]).toBe('2027-03-28 11:00:00')
  })

  it('keeps 09:00 America/New_York across the autumn DST change', async () => {
    await series('NY standup', '2027-10-25 09:00:00', '2027-10-25 09:30:00', ['RRULE:FREQ=WEEKLY;COUNT=3'], { timezone: 'America/New_York' })
    const { events } = await list(window('2027-10-20', '2027-11-20'))
    expect(starts(events, 'NY standup')).toEqual([
      '2027-10-25 09:00:00 2027-10-25 13:00:00',
      '2027-11-01 09:00:00 2027-11-01 13:00:00',
      '2027-11-08 09:00:00 2027-11-08 14:00:00',
    ])
  })

  it('lists monthly -1FR and yearly Feb 29', async () => {
    await series('Last Friday', '2027-01-29 18:00:00', '2027-01-29 20:00:00', ['RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=3'], { timezone: 'UTC' })
    await series('Leap party', '2028-02-29 20:00:00', '2028-02-29 23:00:00', ['RRULE:FREQ=YEARLY;COUNT=3'], { timezone: 'UTC' })
    const fridays = await list(window('2027-01-01', '2027-04-30', { search: 'Last Friday' }))
    expect(fridays.events.map((i) => i.start_date)).toEqual(['2027-01-29 18:00:00', '2027-02-26 18:00:00', '2027-03-26 18:00:00'])
    const leaps = await list(window('2028-01-01', '2036-12-31', { search: 'Leap party' }))
    expect(leaps.events.map((i) => i.start_date)).toEqual(['2028-02-29 20:00:00', '2032-02-29 20:00:00', '2036-02-29 20:00:00'])
    expect(leaps.total).toBe(3)
  })

  it('applies EXDATE and RDATE', async () => {
    await series('Workshop', '2027-05-03 09:00:00', '2027-05-03 12:00:00', [
      'RRULE:FREQ=DAILY;COUNT=4',
      'EXDATE:20270504T090000Z',
      'RDATE:20270510T140000Z',
    ], { timezone: 'UTC' })
    const { events } = await list(window('2027-05-01', '2027-05-31', { search: 'Workshop' }))
    expect(events.map((i) => i.start_date)).toEqual(['2027-05-03 09:00:00', '2027-05-05 09:00:00', '2027-05-06 09:00:00', '2027-05-10 14:00:00'])
  })

  it('gives each occurrence its key, series, original start and own rest_url; plain events keep their shape', async () => {
    const plain = (await calendar.events.create({ title: 'Plain fair', start_date: '2027-05-04 10:00:00', end_date: '2027-05-04 11:00:00' })) as Item
    const { events } = await list(window('2027-05-01', '2027-05-31'))
    const occurrence = events.find((i) => i.title === 'Workshop' && i.start_date === '2027-05-05 09:00:00')!
    expect(occurrence.occurrence).toBe('20270505T090000Z')
    expect(occurrence.series_id).toBe(occurrence.id)
    expect(occurrence.original_start_date).toBe('2027-05-05 09:00:00')
    expect(occurrence.rest_url).toMatch(new RegExp(`^http://cal.example.org/.*/events/${occurrence.id}/occurrences/20270505T090000Z$`))
    expect(occurrence.recurrence).toBeUndefined()
    const listedPlain = events.find((i) => i.id === plain.id)!
    const { json_ld: _ignored, ...single } = (await calendar.events.get(plain.id, { as: null })) as Item
    expect(Object.keys(listedPlain)).toEqual(Object.keys(single))
    expect(listedPlain).not.toHaveProperty('occurrence')
    // The series row itself is no item: every Workshop item is an occurrence.
    expect(events.filter((i) => i.title === 'Workshop').every((i) => typeof i.occurrence === 'string')).toBe(true)
  })

  it('reads one occurrence at its rest_url; an unknown key is a 404', async () => {
    const { events } = await list(window('2027-05-01', '2027-05-31', { search: 'Workshop' }))
    const occurrence = events[1]!
    const path = new URL(occurrence.rest_url).pathname
    const res = await calendar.handle({ method: 'GET', path, query: '', headers: {}, origin: 'http://cal.example.org' })
    expect(res.status).toBe(200)
    const body = res.body as Item
    expect(body.start_date).toBe(occurrence.start_date)
    expect(body.occurrence).toBe(occurrence.occurrence)
    expect(body.json_ld!.startDate).toBe('2027-05-05T09:00:00+00:00')
    for (const key of ['20270504T090000Z', '20270505T100000Z', 'nonsense', '20271399']) {
      const missing = await calendar.handle({ method: 'GET', path: path.replace(/[^/]+$/, key), query: '', headers: {}, origin: 'http://cal.example.org' })
      expect(missing.status).toBe(404)
      expect((missing.body as { code: string }).code).toBe('rest-event-occurrence-not-found')
    }
    const plainId = (await list(window('2027-05-01', '2027-05-31', { search: 'Plain fair' }))).events[0]!.id
    const notSeries = await calendar.handle({
      method: 'GET', path: path.replace(/\/events\/\d+\//, `/events/${plainId}/`), query: '', headers: {}, origin: 'http://cal.example.org',
    })
    expect(notSeries.status).toBe(404)
  })

  it('lists an open-ended series ten years ahead, and reads an occurrence there', async () => {
    const weekly = await series('Forever club', '2026-12-02 19:00:00', '2026-12-02 21:00:00', ['RRULE:FREQ=WEEKLY;BYDAY=WE'], { timezone: 'Europe/Berlin' })
    const near = await list(window('2026-12-01', '2026-12-31', { search: 'Forever club' }))
    expect(near.events.map((i) => i.start_date)).toEqual(['2026-12-02 19:00:00', '2026-12-09 19:00:00', '2026-12-16 19:00:00', '2026-12-23 19:00:00', '2026-12-30 19:00:00'])
    const far = await list(window('2036-07-01', '2036-07-31', { search: 'Forever club' }))
    expect(far.events.map((i) => i.start_date)).toEqual(['2036-07-02 19:00:00', '2036-07-09 19:00:00', '2036-07-16 19:00:00', '2036-07-23 19:00:00', '2036-07-30 19:00:00'])
    expect(far.events[0]!.utc_start_date).toBe('2036-07-02 17:00:00')
    expect(far.total).toBe(5)
    // Past the horizon nothing is stored: a far window costs the read of its series and the list statement.
    expect((await list(window('2036-07-01', '2036-07-31', { search: 'Forever club' }))).statements).toBe(2)
    const read = await calendar.handle({ method: 'GET', path: `/cal/events/v1/events/${weekly.id}/occurrences/20450104T180000Z`, query: '', headers: {}, origin: 'http://cal.example.org' })
    expect(read.status).toBe(200)
    expect((read.body as Item).start_date).toBe('2045-01-04 19:00:00')
  })

  it('stores an open-ended daily series started a century ago up to the horizon: its latest 10,000 days, listed now', async () => {
    // Expanded from its start, the rule took the engine past its 20,000 steps: a 500 on create.
    const daily = await series('Century walk', '1926-11-21 07:00:00', '1926-11-21 08:00:00', ['RRULE:FREQ=DAILY'], { timezone: 'Europe/Berlin' })
    const week = await list(window('2026-11-23', '2026-11-29', { search: 'Century walk' }))
    expect(week.events.map((i) => i.start_date)).toEqual(['23', '24', '25', '26', '27', '28', '29'].map((d) => `2026-11-${d} 07:00:00`))
    // Up to the horizon (now + 36 months).
    const stored = await querySql<{ n: string; first: string }>(
      `select count(*) as n, min(start_utc)::text as first from event_occurrences where series_id = ${daily.id} and start_utc <= '2029-11-22'`,
    )
    expect(Number(stored[0]!.n)).toBeLessThan(10_010)
    expect(stored[0]!.first > '2002-01-01').toBe(true)
  })

  it('applies filters to occurrences through their series', async () => {
    const s = await series('Filtered class', '2027-06-07 10:00:00', '2027-06-07 11:00:00', ['RRULE:FREQ=WEEKLY;COUNT=3'], {
      timezone: 'UTC', categories: ['Dance'], tags: ['salsa'], venue: { venue: 'Studio 9' }, organizer: [{ organizer: 'Ana' }], featured: true,
    })
    const w = window('2027-06-01', '2027-06-30')
    const cat = s.categories[0]!.id
    // An event's venue is `[]` when it has none.
    if (Array.isArray(s.venue)) throw new Error('the series lost its venue')
    for (const filter of [
      { categories: cat }, { tags: s.tags[0]!.id }, { venue: s.venue.id }, { organizer: s.organizer[0]!.id }, { featured: true }, { search: 'Filtered' },
    ]) {
      const found = await list({ ...w, ...filter })
      expect(found.events.map((i) => i.title), JSON.stringify(filter)).toEqual(['Filtered class', 'Filtered class', 'Filtered class'])
      expect(found.total).toBe(3)
    }
    expect((await list({ ...w, featured: false })).events.some((i) => i.title === 'Filtered class')).toBe(false)
    // A draft series shows to nobody anonymous, its occurrences included; an editor sees it with status=draft.
    await calendar.events.update(s.id, { status: 'draft' }, { as: EDITOR })
    expect((await list({ ...w, categories: cat })).total).toBe(0)
    expect((await list({ ...w, categories: cat, status: 'draft' }, EDITOR)).total).toBe(3)
    await calendar.events.update(s.id, { status: 'publish' }, { as: EDITOR })
    expect((await list({ ...w, categories: cat })).total).toBe(3)
    // Trashed, the occurrences leave the list; hidden from listings too.
    await calendar.events.delete(s.id, { as: EDITOR })
    expect((await list({ ...w, categories: cat })).total).toBe(0)
  })

  it('rematerialises when the series is edited', async () => {
    const s = await series('Moving talk', '2027-07-05 10:00:00', '2027-07-05 11:00:00', ['RRULE:FREQ=WEEKLY;COUNT=3'], { timezone: 'UTC' })
    const w = window('2027-07-01', '2027-07-31', { search: 'Moving talk' })
    expect((await list(w)).events.map((i) => i.start_date)).toEqual(['2027-07-05 10:00:00', '2027-07-12 10:00:00', '2027-07-19 10:00:00'])
    await calendar.events.update(s.id, { start_date: '2027-07-06 14:00:00', end_date: '2027-07-06 15:00:00' }, { as: EDITOR })
    expect((await list(w)).events.map((i) => i.start_date)).toEqual(['2027-07-06 14:00:00', '2027-07-13 14:00:00', '2027-07-20 14:00:00'])
    await calendar.events.update(s.id, { recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'] }, { as: EDITOR })
    expect((await list(w)).events.map((i) => i.start_date)).toEqual(['2027-07-06 14:00:00', '2027-07-13 14:00:00'])
    await calendar.events.update(s.id, { recurrence: null }, { as: EDITOR })
    const single = await list(w)
    expect(single.events.map((i) => [i.start_date, i.occurrence])).toEqual([['2027-07-06 14:00:00', undefined]])
    const rows = await querySql<{ n: number }>(`select count(*)::int as n from event_occurrences where series_id = ${s.id}`)
    expect(rows[0]!.n).toBe(0)
  })

  it('pages through mixed series and plain events with no duplicates or gaps, totals exact, one statement a page', async () => {
    // Other tests' open-ended series run through September too: the category keeps this test's own items.
    const w = { start_date: '2027-09-01', end_date: '2027-09-30', categories: 'mix' }
    for (let d = 1; d <= 30; d += 1) {
      const day = String(d).padStart(2, '0')
      await calendar.events.create({ title: `Plain ${day}`, start_date: `2027-09-${day} 12:00:00`, end_date: `2027-09-${day} 13:00:00`, categories: ['Mix'] })
    }
    await series('Daily noon', '2027-09-01 12:00:00', '2027-09-01 12:30:00', ['RRULE:FREQ=DAILY;UNTIL=20270930T235959Z'], { timezone: 'UTC', categories: ['Mix'] })
    await series('Twice weekly', '2027-09-02 08:00:00', '2027-09-02 09:00:00', ['RRULE:FREQ=WEEKLY;BYDAY=TU,TH'], { timezone: 'UTC', categories: ['Mix'] })
    const first = await list({ ...w, per_page: 50 })
    const all = { total: first.total, events: [...first.events, ...(await list({ ...w, per_page: 50, page: 2 })).events] }
    expect(all.events.filter((i) => i.title === 'Twice weekly').length).toBe(9)
    expect(all.total).toBe(30 + 30 + 9)
    expect(all.events).toHaveLength(all.total)
    const seen: string[] = []
    let lastStart = ''
    for (let page = 1; page <= Math.ceil(all.total / 7); page++) {
      const got = await list({ ...w, per_page: 7, page })
      expect(got.total).toBe(all.total)
      expect(got.total_pages).toBe(Math.ceil(all.total / 7))
      expect(got.statements).toBeLessThanOrEqual(3)
      for (const item of got.events) {
        expect(item.start_date >= lastStart).toBe(true)
        lastStart = item.start_date
        seen.push(`${item.id}/${item.occurrence ?? ''}`)
      }
    }
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen).toEqual(all.events.map((i) => `${i.id}/${i.occurrence ?? ''}`))
    // Plain event before the series' occurrence at the same start: ordered by publication date, then id.
    expect(all.events.slice(0, 2).map((i) => i.title)).toEqual(['Plain 01', 'Daily noon'])
  })

  it('keeps the known total exact when only occurrences change', async () => {
    const w = { start_date: '2027-10-01', end_date: '2027-10-31', per_page: 5 }
    const s = await series('Total check', '2027-10-04 10:00:00', '2027-10-04 11:00:00', ['RRULE:FREQ=WEEKLY;COUNT=2'], { timezone: 'UTC' })
    const before = (await list(w)).total
    expect((await list(w)).total).toBe(before)
    // A write that touches only the occurrence table (as the horizon job does) must show in the next total.
    await querySql(`delete from event_occurrences where series_id = ${s.id} and occurrence_key = '20271011T100000Z'`)
    expect((await list(w)).total).toBe(before - 1)
  })
})
