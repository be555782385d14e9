import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { BACKEND, freshCalendar } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const ZONE = 'Europe/Berlin'

// Issue 16: an event created without `timezone` has its wall times read in the site zone, so it
// must store and show that zone, not the column's default "UTC".
describe(`events without a timezone take the site zone (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, siteTimezone: ZONE })
  })
  afterAll(() => calendar.close())

  it('stores the site zone on create and shows it in single reads and lists', async () => {
    const created = await calendar.events.create({ title: 'Zone-less', start_date: '2026-12-01 18:00:00', end_date: '2026-12-01 20:00:00' })
    const expected = {
      start_date: '2026-12-01 18:00:00',
      utc_start_date: '2026-12-01 17:00:00',
      timezone: ZONE,
      timezone_abbr: 'CET',
    }
    expect(created).toMatchObject(expected)
    expect(await calendar.events.get(created.id, { as: null })).toMatchObject(expected)
    const list = await calendar.events.list({ start_date: '2026-12-01', end_date: '2026-12-01' }, { as: null })
    expect(list.events.find((e) => e.id === created.id)).toMatchObject(expected)
    expect(await calendar.events.getBySlug('zone-less', { as: null })).toMatchObject(expected)
  })

  it('keeps the stored zone on updates that do not send one; "" resets it to the site zone', async () => {
    const created = await calendar.events.create({ title: 'Tokyo', timezone: 'Asia/Tokyo', start_date: '2026-12-02 08:00:00', end_date: '2026-12-02 09:00:00' })
    const moved = await calendar.events.update(created.id, { start_date: '2026-12-02 07:00:00' })
    expect(moved).toMatchObject({ timezone: 'Asia/Tokyo', utc_start_date: '2026-12-01 22:00:00' })
    const reset = await calendar.events.update(created.id, { timezone: '' })
    expect(reset.timezone).toBe(ZONE)
  })
})
