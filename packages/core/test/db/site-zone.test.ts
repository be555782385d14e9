import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, EventResource } from '@cal-events/core'
import { BACKEND, freshCalendar } from '../../../../test-support/test-db.js'

// A site zone far from UTC (Auckland, +13:00 in summer) and events in three zones, read through
// both date-filter modes (CONTRACT O-11): `event-local` compares each event's own wall clock with
// the bounds read in the site zone; `utc` turns the site-zone bounds into UTC instants and compares
// the events' UTC times.
const NOW = new Date('2026-11-21T03:39:06Z') // 2026-11-21 16:39 in Auckland
const ZONE = 'Pacific/Auckland'
const titles = (list: { events: { title: string }[] }) => list.events.map((e) => e.title).sort()

describe(`lists and single reads in a non-UTC site zone (${BACKEND})`, () => {
  let local: Calendar
  let utc: Calendar
  const ids: Record<string, number> = {}

  beforeAll(async () => {
    local = await freshCalendar({ now: () => NOW, siteTimezone: ZONE })
    utc = await freshCalendar({ now: () => NOW, siteTimezone: ZONE, dateFilterMode: 'utc' })
    const ev = async (title: string, timezone: string, start: string, end: string) => {
      ids[title] = (await local.events.create({ title, timezone, start_date: start, end_date: end })).id
    }
    await ev('Nov 20 talk', 'UTC', '2026-11-20 18:00:00', '2026-11-20 19:00:00')
    await ev('UTC evening', 'UTC', '2026-11-30 20:00:00', '2026-11-30 21:00:00')
    await ev('Tokyo morning', 'Asia/Tokyo', '2026-12-01 08:00:00', '2026-12-01 09:00:00') // 11-30 23:00Z
    await ev('Auckland noon', ZONE, '2026-12-01 12:00:00', '2026-12-01 13:00:00') // 11-30 23:00Z
    await ev('UTC next noon', 'UTC', '2026-12-01 12:00:00', '2026-12-01 13:00:00')
  })
  afterAll(async () => {
    await utc?.close()
    await local?.close()
  })

  it('event-local mode: one site-zone day holds the events whose own wall clock falls on it', async () => {
    const list = await local.events.list({ start_date: '2026-12-01', end_date: '2026-12-01' }, { as: null })
    expect(titles(list)).toEqual(['Auckland noon', 'Tokyo morning', 'UTC next noon'])
  })

  it('utc mode: the same day is the UTC span of that day in the site zone', async () => {
    // 2026-12-01 in Auckland = 2026-11-30 11:00Z .. 2026-12-01 10:59:59Z.
    const list = await utc.events.list({ start_date: '2026-12-01', end_date: '2026-12-01' }, { as: null })
    expect(titles(list)).toEqual(['Auckland noon', 'Tokyo morning', 'UTC evening'])
  })

  it('the default window starts on yesterday as seen in the site zone', async () => {
    // Yesterday 23:59 UTC is already 2026-11-21 in Auckland, so the window starts 2026-11-21 00:00.
    expect(titles(await local.events.list({}, { as: null }))).not.toContain('Nov 20 talk')
    // In UTC mode that start is 2026-11-20 11:00Z, before the talk's 18:00Z.
    expect(titles(await utc.events.list({}, { as: null }))).toContain('Nov 20 talk')
  })

  it('single reads and list items give each event its own zone, wall clock and UTC time', async () => {
    const tokyo = await local.events.get(ids['Tokyo morning']!, { as: null })
    expect(tokyo).toMatchObject({
      start_date: '2026-12-01 08:00:00',
      end_date: '2026-12-01 09:00:00',
      utc_start_date: '2026-11-30 23:00:00',
      utc_end_date: '2026-12-01 00:00:00',
      timezone: 'Asia/Tokyo',
      timezone_abbr: 'JST',
    })
    const auckland = await local.events.get(ids['Auckland noon']!, { as: null })
    expect(auckland).toMatchObject({
      start_date: '2026-12-01 12:00:00',
      utc_start_date: '2026-11-30 23:00:00',
      timezone: ZONE,
      timezone_abbr: 'NZDT',
    })
    const list = await local.events.list({ start_date: '2026-12-01', end_date: '2026-12-01' }, { as: null })
    const pick = ({ start_date, end_date, utc_start_date, utc_end_date, timezone, timezone_abbr }: EventResource) => ({
      start_date, end_date, utc_start_date, utc_end_date, timezone, timezone_abbr,
    })
    expect(pick(list.events.find((e) => e.id === tokyo.id)!)).toEqual(pick(tokyo))
    expect(pick(list.events.find((e) => e.id === auckland.id)!)).toEqual(pick(auckland))
    // The utc-mode calendar reads the same stored event the same way.
    expect(pick(await utc.events.get(tokyo.id, { as: null }))).toEqual(pick(tokyo))
  })
})
