import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { freshCalendar } from '../../../test-support/test-db.js'
import { seedDemoData } from '@cal-events/cli'

// Issue 16: demo events without their own zone were stored as "UTC" under a non-UTC site zone.
describe('demo data in a non-UTC site zone', () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ siteTimezone: 'Europe/Berlin' })
    await seedDemoData(calendar)
  })
  afterAll(() => calendar.close())

  it('stores the site zone on every demo event that does not name its own', async () => {
    const list = await calendar.events.list({ per_page: 50, start_date: '2000-01-01', end_date: '2100-01-01' }, { as: null })
    expect(list.events.length).toBeGreaterThan(10)
    const zones = new Set(list.events.map((e) => e.timezone))
    expect([...zones].sort()).toEqual(['America/New_York', 'Europe/Berlin'])
  })
})
