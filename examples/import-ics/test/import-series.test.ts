import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { freshCalendar } from '../../../test-support/test-db.js'
import { importIcs, planIcs } from '@cal-events/cli'

// A Google-Calendar-style export: a weekly series with an EXDATE, one occurrence moved by a
// RECURRENCE-ID VEVENT and one cancelled, a monthly all-day series, and a rule the calendar
// does not take (BYHOUR).
const SERIES = readFileSync(new URL('../data/series.ics', import.meta.url), 'utf8')
const YOGA = '5k2v0f8j3q1m@google.com'

interface Item {
  id: number
  occurrence?: string
  start_date: string
  title: string
}

describe('recurring VEVENTs become series (issue 19 item 5)', () => {
  it('plans the series with their RRULE, EXDATE and RECURRENCE-ID exclusions as recurrence lines', () => {
    const plan = planIcs(SERIES)
    expect(plan.vevents).toBe(5)
    expect(plan.events.map((e) => [e.origin, e.action, e.input.recurrence])).toEqual([
      [
        YOGA,
        'upsert',
        ['RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270427T215959Z;WKST=SU', 'EXDATE;TZID=America/New_York:20270323T180000,20270413T180000'],
      ],
      // A changed occurrence becomes an exception of its series.
      [`${YOGA}#20270406T180000`, 'override', undefined],
      // A cancelled instance is an EXDATE; this entry only trashes an earlier stand-alone import of it.
      [`${YOGA}#20270413T180000`, 'cancel', undefined],
      ['market-day@riverside.example', 'upsert', ['RRULE:FREQ=MONTHLY;BYMONTHDAY=15', 'EXDATE;VALUE=DATE:20270215']],
      ['standup@riverside.example', 'upsert', ['RRULE:FREQ=DAILY;COUNT=3;BYHOUR=9,15']],
    ])
    expect(plan.events[0]!.input).toMatchObject({ timezone: 'America/New_York', start_date: '2027-03-02 18:00:00', end_date: '2027-03-02 19:00:00' })
    expect(plan.events[3]!.input).toMatchObject({ all_day: true, start_date: '2027-01-15 00:00:00', end_date: '2027-01-15 23:59:59' })
  })

  describe('imported into a calendar', () => {
    let calendar: Calendar
    beforeAll(async () => {
      calendar = await freshCalendar({ siteTimezone: 'UTC' })
    })
    afterAll(() => calendar.close())

    it('stores one event per series with its changed occurrence as an exception, and expands the refused rule', async () => {
      const summary = await importIcs(calendar, SERIES)
      expect(summary).toMatchObject({ vevents: 5, created: 2 + 3, updated: 1, skipped: 1, removed: 0 })
      expect(summary.warnings).toEqual([
        expect.stringMatching(/^standup@riverside\.example: the calendar refused the series \(RRULE part BYHOUR is not supported\.\); its occurrences were imported one by one\.$/),
      ])
      const yoga = await calendar.events.getByOrigin(YOGA)
      expect(yoga).toMatchObject({
        title: 'Evening Yoga',
        timezone: 'America/New_York',
        start_date: '2027-03-02 18:00:00',
        utc_start_date: '2027-03-02 23:00:00',
        recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270427T215959Z;WKST=SU', 'EXDATE;TZID=America/New_York:20270323T180000,20270413T180000'],
        venue: { venue: 'Riverside Community Centre', city: 'Springfield' },
      })
      expect(await calendar.events.getByOrigin(`${YOGA}#20270406T180000`)).toBeUndefined()
      const listed = (await calendar.events.list({ start_date: '2027-03-01', end_date: '2027-04-30', search: 'Yoga', per_page: 50 })).events as unknown as Item[]
      expect(listed.map((e) => [e.occurrence, e.start_date, e.title])).toEqual([
        ['20270302T230000Z', '2027-03-02 18:00:00', 'Evening Yoga'],
        ['20270309T230000Z', '2027-03-09 18:00:00', 'Evening Yoga'],
        ['20270316T220000Z', '2027-03-16 18:00:00', 'Evening Yoga'],
        ['20270330T220000Z', '2027-03-30 18:00:00', 'Evening Yoga'],
        ['20270406T220000Z', '2027-04-06 19:00:00', 'Evening Yoga (guest teacher)'],
        ['20270420T220000Z', '2027-04-20 18:00:00', 'Evening Yoga'],
      ])
      expect(new Set(listed.map((e) => e.id))).toEqual(new Set([yoga!.id]))
      expect(await calendar.events.getByOrigin('market-day@riverside.example')).toMatchObject({
        all_day: true,
        recurrence: ['RRULE:FREQ=MONTHLY;BYMONTHDAY=15', 'EXDATE;VALUE=DATE:20270215'],
      })
      expect(await calendar.events.getByOrigin('standup@riverside.example')).toBeUndefined()
      const standups = await calendar.events.list({ start_date: '2027-01-01', end_date: '2027-01-31', search: 'stand-up' })
      expect(standups.events.map((e) => e.utc_start_date)).toEqual(['2027-01-04 09:00:00', '2027-01-04 15:00:00', '2027-01-05 09:00:00'])
    })

    it('a second run updates the same events and creates none', async () => {
      const summary = await importIcs(calendar, SERIES)
      expect(summary).toMatchObject({ created: 0, updated: 2 + 3 + 1, skipped: 1, removed: 0 })
    })

    it('an occurrence cancelled later becomes an EXDATE; its change goes with it', async () => {
      const cancelled = SERIES.replace(/STATUS:CONFIRMED\r?\nSUMMARY:Evening Yoga \(guest teacher\)/, 'STATUS:CANCELLED\nSUMMARY:Evening Yoga (guest teacher)')
      expect(cancelled).not.toBe(SERIES)
      await importIcs(calendar, cancelled)
      expect((await calendar.events.getByOrigin(YOGA))?.recurrence).toContain('EXDATE;TZID=America/New_York:20270323T180000,20270406T180000,20270413T180000')
      const listed = (await calendar.events.list({ start_date: '2027-04-01', end_date: '2027-04-30', search: 'Yoga', per_page: 50 })).events as unknown as Item[]
      expect(listed.map((e) => e.occurrence)).toEqual(['20270420T220000Z'])
    })
  })

  it('round-trips through the feed: the series with RRULE/EXDATE, the change as a RECURRENCE-ID VEVENT', async () => {
    const window = { start_date: '2027-03-01', end_date: '2027-04-30', search: 'Yoga', per_page: 50 }
    const brief = (items: Item[]) => items.map((e) => [e.occurrence, e.start_date, e.title])
    // One calendar at a time: a fresh test calendar empties the worker's database.
    const source = await freshCalendar({ siteTimezone: 'UTC' })
    let feed: string
    let expected: unknown
    try {
      await importIcs(source, SERIES)
      feed = await source.events.feed({ start_date: '2027-03-01', end_date: '2027-04-30', search: 'Yoga' })
      const yoga = (await source.events.getByOrigin(YOGA))!
      expect(feed.split(`UID:event-${yoga.id}@`).length - 1).toBe(2)
      expect(feed).toContain('RECURRENCE-ID:20270406T220000Z')
      expected = brief((await source.events.list(window)).events as unknown as Item[])
    } finally {
      await source.close()
    }
    const target = await freshCalendar({ siteTimezone: 'UTC' })
    try {
      await importIcs(target, feed)
      expect(brief((await target.events.list(window)).events as unknown as Item[])).toEqual(expected)
    } finally {
      await target.close()
    }
  })
})
