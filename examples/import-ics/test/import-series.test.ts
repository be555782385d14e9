import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { freshCalendar } from '../../../test-support/test-db.js'
import { importIcs, planIcs } from '../src/import-ics.js'

// A Google-Calendar-style export: a weekly series with an EXDATE, one occurrence moved by a
// RECURRENCE-ID VEVENT and one cancelled, a monthly all-day series, and a rule the calendar
// does not take (BYHOUR).
const SERIES = readFileSync(new URL('../data/series.ics', import.meta.url), 'utf8')
const YOGA = '5k2v0f8j3q1m@google.com'

describe('recurring VEVENTs become series (issue 19 item 5)', () => {
  it('plans the series with their RRULE, EXDATE and RECURRENCE-ID exclusions as recurrence lines', () => {
    const plan = planIcs(SERIES)
    expect(plan.vevents).toBe(5)
    expect(plan.events.map((e) => [e.origin, e.action, e.input.recurrence])).toEqual([
      [
        YOGA,
        'upsert',
        ['RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270427T215959Z;WKST=SU', 'EXDATE;TZID=America/New_York:20270323T180000,20270406T180000,20270413T180000'],
      ],
      [`${YOGA}#20270406T180000`, 'upsert', undefined],
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

    it('stores one event per series, the changed occurrence beside it, and expands the refused rule', async () => {
      const summary = await importIcs(calendar, SERIES)
      expect(summary).toMatchObject({ vevents: 5, created: 3 + 3, updated: 0, skipped: 1, removed: 0 })
      expect(summary.warnings).toEqual([
        expect.stringMatching(/^standup@riverside\.example: the calendar refused the series \(RRULE part BYHOUR is not supported\.\); its occurrences were imported one by one\.$/),
      ])
      const yoga = await calendar.events.getByOrigin(YOGA)
      expect(yoga).toMatchObject({
        title: 'Evening Yoga',
        timezone: 'America/New_York',
        start_date: '2027-03-02 18:00:00',
        utc_start_date: '2027-03-02 23:00:00',
        recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270427T215959Z;WKST=SU', 'EXDATE;TZID=America/New_York:20270323T180000,20270406T180000,20270413T180000'],
        venue: { venue: 'Riverside Community Centre', city: 'Springfield' },
      })
      expect(await calendar.events.getByOrigin(`${YOGA}#20270406T180000`)).toMatchObject({
        title: 'Evening Yoga (guest teacher)',
        start_date: '2027-04-06 19:00:00',
        utc_start_date: '2027-04-06 23:00:00',
      })
      expect(await calendar.events.getByOrigin(`${YOGA}#20270413T180000`)).toBeUndefined()
      expect(await calendar.events.getByOrigin('market-day@riverside.example')).toMatchObject({
        all_day: true,
        recurrence: ['RRULE:FREQ=MONTHLY;BYMONTHDAY=15', 'EXDATE;VALUE=DATE:20270215'],
      })
      expect(await calendar.events.getByOrigin('standup@riverside.example')).toBeUndefined()
      const standups = await calendar.events.list({ start_date: '2027-01-01', end_date: '2027-01-31', search: 'stand-up' })
      expect(standups.events.map((e) => e.utc_start_date)).toEqual([
        '2027-01-04 09:00:00', '2027-01-04 15:00:00', '2027-01-05 09:00:00',
      ])
    })

    it('a second run updates the same events and creates none', async () => {
      const summary = await importIcs(calendar, SERIES)
      expect(summary).toMatchObject({ created: 0, updated: 3 + 3, skipped: 1, removed: 0 })
    })

    it('an instance cancelled later trashes its earlier stand-alone import; the series gains the EXDATE', async () => {
      const cancelled = SERIES.replace('SUMMARY:Evening Yoga (guest teacher)', 'SUMMARY:Evening Yoga (guest teacher)\nSTATUS:CANCELLED').replace(
        /STATUS:CONFIRMED\r?\nSUMMARY:Evening Yoga \(guest teacher\)/,
        'SUMMARY:Evening Yoga (guest teacher)',
      )
      const summary = await importIcs(calendar, cancelled)
      expect(summary).toMatchObject({ created: 0, removed: 1 })
      expect((await calendar.events.getByOrigin(`${YOGA}#20270406T180000`))?.status).toBe('trash')
      expect((await calendar.events.getByOrigin(YOGA))?.recurrence).toContain('EXDATE;TZID=America/New_York:20270323T180000,20270406T180000,20270413T180000')
    })
  })
})
