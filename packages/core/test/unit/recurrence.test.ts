import fc from 'fast-check'
import ICAL from 'ical.js'
import { RRuleTemporal } from 'rrule-temporal'
import { describe, expect, it } from 'vitest'
import { cpuNow, watchLoopHold } from '../../../../test-support/cpu-clock.js'
import { CalendarError } from '../../src/errors.js'
import { vtimezone } from '../../src/time/vtimezone.js'
import { expandBounded, expandRecurrence, MAX_BOUNDED_OCCURRENCES, parseRecurrence, RULE_REACH_YEARS, type SeriesStart } from '../../src/recurrence/recurrence.js'
import { expandBoundedSliced, expandSliced, ruleWork, verifyRecurrence, type RuleWork } from '../../src/recurrence/rule-work.js'

const berlin = (wall: string): SeriesStart => ({ wall, zone: 'Europe/Berlin', allDay: false })
const at = (iso: string) => new Date(iso)
const walls = (lines: string[], start: SeriesStart, from: string, to: string) => expandRecurrence(lines, start, at(from), at(to)).map((o) => o.wall)
const utcs = (lines: string[], start: SeriesStart, from: string, to: string) => expandRecurrence(lines, start, at(from), at(to)).map((o) => o.utc)

/** The reason `parseRecurrence` and then `verifyRecurrence` (as a write runs them) give, or `undefined` when they accept. */
async function refusal(lines: unknown, start: SeriesStart = berlin('2026-03-05 10:00:00'), work?: RuleWork): Promise<string | undefined> {
  try {
    await verifyRecurrence(parseRecurrence(lines, start), start, work)
    return undefined
  } catch (err) {
    expect(err).toBeInstanceOf(CalendarError)
    expect((err as CalendarError).code).toBe('INVALID_PARAM')
    return ((err as CalendarError).data!.params as Record<string, string>).recurrence
  }
}

describe('recurrence: expansion in the event zone', () => {
  it('keeps a weekly 10:00 Berlin event at 10:00 local across both DST changes', () => {
    const lines = parseRecurrence(['RRULE:FREQ=WEEKLY'], berlin('2026-03-19 10:00:00'))
    expect(walls(lines, berlin('2026-03-19 10:00:00'), '2026-03-19T00:00:00Z', '2026-04-03T00:00:00Z')).toEqual([
      '2026-03-19 10:00:00',
      '2026-03-26 10:00:00',
      '2026-04-02 10:00:00',
    ])
    // 09:00 UTC in winter, 08:00 UTC in summer, and back.
    expect(utcs(lines, berlin('2026-03-19 10:00:00'), '2026-03-19T00:00:00Z', '2026-04-03T00:00:00Z')).toEqual([
      '2026-03-19 09:00:00',
      '2026-03-26 09:00:00',
      '2026-04-02 08:00:00',
    ])
    expect(utcs(lines, berlin('2026-03-19 10:00:00'), '2026-10-20T00:00:00Z', '2026-11-01T00:00:00Z')).toEqual(['2026-10-22 08:00:00', '2026-10-29 09:00:00'])
  })

  it('keeps New York events on their wall clock and follows RFC 5545 in the gap and the overlap', () => {
    const ny = (wall: string): SeriesStart => ({ wall, zone: 'America/New_York', allDay: false })
    expect(utcs(['RRULE:FREQ=DAILY;COUNT=3'], ny('2026-03-07 09:00:00'), '2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z')).toEqual([
      '2026-03-07 14:00:00',
      '2026-03-08 13:00:00',
      '2026-03-09 13:00:00',
    ])
    // RFC 5545 3.3.10: an instance at a local time that does not exist (02:30 on 8 March) is
    // ignored and not counted; 3.3.5: a start in the gap is read with the offset before it.
    expect(walls(['RRULE:FREQ=DAILY;COUNT=2'], ny('2026-03-07 02:30:00'), '2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z')).toEqual([
      '2026-03-07 02:30:00',
      '2026-03-09 02:30:00',
    ])
    expect(walls(['RRULE:FREQ=DAILY;COUNT=2'], ny('2026-03-08 02:30:00'), '2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z')[0]).toBe('2026-03-08 03:30:00')
    // 01:30 on 1 November exists twice: the first (EDT).
    expect(utcs(['RRULE:FREQ=DAILY;COUNT=2'], ny('2026-10-31 01:30:00'), '2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z')).toEqual([
      '2026-10-31 05:30:00',
      '2026-11-01 05:30:00',
    ])
  })

  it('finds the last Friday of each month and 29 February in leap years only', () => {
    const ny: SeriesStart = { wall: '2026-01-30 18:00:00', zone: 'America/New_York', allDay: false }
    expect(walls(['RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=4'], ny, '2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z')).toEqual([
      '2026-01-30 18:00:00',
      '2026-02-27 18:00:00',
      '2026-03-27 18:00:00',
      '2026-04-24 18:00:00',
    ])
    const leap = berlin('2028-02-29 12:00:00')
    expect(walls(['RRULE:FREQ=YEARLY'], leap, '2028-01-01T00:00:00Z', '2037-01-01T00:00:00Z')).toEqual([
      '2028-02-29 12:00:00',
      '2032-02-29 12:00:00',
      '2036-02-29 12:00:00',
    ])
  })

  it('applies EXDATE and RDATE', () => {
    const start = berlin('2026-03-19 10:00:00')
    const lines = parseRecurrence(
      ['RRULE:FREQ=WEEKLY;COUNT=4', 'EXDATE;TZID=Europe/Berlin:20260402T100000', 'RDATE;TZID=Europe/Berlin:20260501T120000'],
      start,
    )
    expect(walls(lines, start, '2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z')).toEqual([
      '2026-03-19 10:00:00',
      '2026-03-26 10:00:00',
      '2026-04-09 10:00:00',
      '2026-05-01 12:00:00',
    ])
  })

  it('expands an open-ended series ten years ahead without walking every year before', () => {
    const start = berlin('2026-03-02 19:00:00')
    const lines = parseRecurrence(['RRULE:FREQ=WEEKLY;BYDAY=MO,TH'], start)
    const found = walls(lines, start, '2036-03-01T00:00:00Z', '2036-03-15T00:00:00Z')
    expect(found).toEqual(['2036-03-03 19:00:00', '2036-03-06 19:00:00', '2036-03-10 19:00:00', '2036-03-13 19:00:00'])
  })

  it('repeats all-day events by date and fixed-offset (UTC±h) events by their wall clock', () => {
    const allDay: SeriesStart = { wall: '2026-12-24 00:00:00', zone: 'Europe/Berlin', allDay: true }
    expect(walls(parseRecurrence(['RRULE:FREQ=YEARLY;COUNT=3'], allDay), allDay, '2026-01-01T00:00:00Z', '2030-01-01T00:00:00Z')).toEqual([
      '2026-12-24 00:00:00',
      '2027-12-24 00:00:00',
      '2028-12-24 00:00:00',
    ])
    const fixed: SeriesStart = { wall: '2026-06-01 10:00:00', zone: 'UTC+5.5', allDay: false }
    expect(expandRecurrence(parseRecurrence(['RRULE:FREQ=DAILY;COUNT=2'], fixed), fixed, at('2026-01-01T00:00:00Z'), at('2027-01-01T00:00:00Z'))).toEqual([
      { wall: '2026-06-01 10:00:00', utc: '2026-06-01 04:30:00' },
      { wall: '2026-06-02 10:00:00', utc: '2026-06-02 04:30:00' },
    ])
  })
})

describe('recurrence: what is refused (400 on recurrence)', () => {
  it('names what is wrong', async () => {
    const cases: [unknown, RegExp][] = [
      ['RRULE:FREQ=WEEKLY', /array/],
      [[], /at least one/],
      [[42], /array/],
      [['RRULE:FREQ=HOURLY'], /FREQ=DAILY/],
      [['RRULE:FREQ=WEEKLY;COUNT=0'], /COUNT must be 1 or more/],
      [[`RRULE:FREQ=DAILY;COUNT=${MAX_BOUNDED_OCCURRENCES + 1}`], /at most 1000 occurrences/],
      [['RRULE:FREQ=DAILY;UNTIL=20260101T000000Z'], /UNTIL is before the start/],
      [['RRULE:FREQ=DAILY;UNTIL=20260304'], /UNTIL is before the start/],
      [['RRULE:FREQ=DAILY;UNTIL=20261301'], /UNTIL must be a date/],
      [['RRULE:FREQ=DAILY;COUNT=2;UNTIL=20270101'], /both COUNT and UNTIL/],
      [['RRULE:FREQ=MONTHLY;BYMONTHDAY=32'], /BYMONTHDAY must list whole numbers from -31 to -1 or 1 to 31/],
      [['RRULE:FREQ=MONTHLY;BYMONTHDAY=0'], /BYMONTHDAY/],
      [['RRULE:FREQ=YEARLY;BYMONTH=13'], /BYMONTH must list whole numbers from 1 to 12/],
      [['RRULE:FREQ=MONTHLY;BYDAY=6MO'], /ordinals run from -5 to 5/],
      [['RRULE:FREQ=WEEKLY;BYDAY=2MO'], /need FREQ=MONTHLY or YEARLY/],
      [['RRULE:FREQ=WEEKLY;BYDAY=XX'], /not a weekday/],
      [['RRULE:FREQ=WEEKLY;BYMONTHDAY=3'], /does not go with FREQ=WEEKLY/],
      [['RRULE:FREQ=DAILY;BYSETPOS=1'], /needs another BYxxx/],
      [['RRULE:FREQ=DAILY;BYHOUR=5'], /BYHOUR is not supported/],
      [['RRULE:FREQ=DAILY;INTERVAL=0'], /INTERVAL/],
      [['RRULE:FREQ=DAILY;FREQ=WEEKLY'], /twice/],
      [['RRULE:FREQ=DAILY', 'RRULE:FREQ=WEEKLY'], /at most one RRULE/],
      [['EXDATE:20260312T100000'], /needs an RRULE or an RDATE/],
      [['EXRULE:FREQ=DAILY'], /not supported/],
      [['RDATE;VALUE=PERIOD:20260301T100000Z/PT1H'], /PERIOD is not supported/],
      [['RDATE;TZID=Mars/Olympus:20260301T100000'], /not a time zone/],
      [['RDATE:20260230T100000'], /not a date/],
      [['RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30'], /no occurrence|cannot be expanded/],
      [['garbage'], /not an RFC 5545 line/],
      [[`RRULE:FREQ=DAILY;${'X'.repeat(3000)}`], /one line of at most 2000/],
      [Array.from({ length: 51 }, () => 'RDATE:20270101T100000'), /at most 50 lines/],
    ]
    for (const [lines, reason] of cases) expect(await refusal(lines), JSON.stringify(lines).slice(0, 80)).toMatch(reason)
  })

  it('accepts the supported parts and normalises case and spacing', async () => {
    expect(parseRecurrence([' rrule:freq=monthly;interval=2;byday=2mo,-1fr;bysetpos=1;wkst=su '], berlin('2026-03-09 10:00:00'))).toEqual([
      'RRULE:FREQ=MONTHLY;INTERVAL=2;BYDAY=2MO,-1FR;BYSETPOS=1;WKST=SU',
    ])
    expect(await refusal(['RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU;UNTIL=20301231T000000Z'])).toBeUndefined()
    const dates: SeriesStart = { wall: '2026-03-05 00:00:00', zone: 'UTC', allDay: true }
    const lines = parseRecurrence(['RDATE;VALUE=DATE:20260401,20260402'], dates)
    expect(walls(lines, dates, '2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z')).toEqual(['2026-03-05 00:00:00', '2026-04-01 00:00:00', '2026-04-02 00:00:00'])
  })

  it('never answers anything but the 400 for generated rule text at the boundaries', async () => {
    const part = fc.oneof(
      fc.constantFrom('FREQ=DAILY', 'FREQ=WEEKLY', 'FREQ=MONTHLY', 'FREQ=YEARLY', 'FREQ=', 'FREQ=SECONDLY', ';', '', '='),
      fc.tuple(fc.constantFrom('COUNT', 'INTERVAL', 'BYMONTHDAY', 'BYMONTH', 'BYSETPOS', 'BYDAY'), fc.oneof(fc.integer({ min: -400, max: 400 }).map(String), fc.constantFrom('2147483648', '-0', '1.5', '', ',', 'MO', '-1FR', '53SU'))).map(([k, v]) => `${k}=${v}`),
      fc.constantFrom('UNTIL=00000101', 'UNTIL=99991231T235959Z', 'UNTIL=20260229', 'WKST=XX'),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(part, { maxLength: 5 }), fc.constantFrom('0001-01-01 00:00:00', '2026-03-29 02:30:00', '9999-12-31 23:59:59'), async (parts, wall) => {
        try {
          await verifyRecurrence(parseRecurrence([`RRULE:${parts.join(';')}`], berlin(wall)), berlin(wall))
        } catch (err) {
          expect(err).toBeInstanceOf(CalendarError)
        }
      }),
      { numRuns: 400 },
    )
  })
})

/** The `ordinal`th (or, negative, from the end) `weekday` (0 = Sunday) of a month, at midnight UTC. */
function nthWeekday(year: number, month: number, weekday: number, ordinal: number): Date {
  if (ordinal > 0) {
    const first = new Date(Date.UTC(year, month, 1))
    return new Date(Date.UTC(year, month, 1 + ((weekday - first.getUTCDay() + 7) % 7) + 7 * (ordinal - 1)))
  }
  const last = new Date(Date.UTC(year, month + 1, 0))
  return new Date(Date.UTC(year, month, last.getUTCDate() - ((last.getUTCDay() - weekday + 7) % 7) + 7 * (ordinal + 1)))
}

describe('recurrence: cross-checked against ical.js', () => {
  /** ical.js's expansion of the same series, through this calendar's VTIMEZONE for the zone. */
  function icalJsStarts(lines: string[], start: SeriesStart, count: number): string[] {
    const stamp = start.wall.replace(/[- :]/g, '').replace(/^(\d{8})/, '$1T')
    const text = [
      'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:test',
      vtimezone(start.zone, 2024, 2110).trimEnd(),
      'BEGIN:VEVENT', 'UID:x', 'DTSTAMP:20260101T000000Z', `DTSTART;TZID=${start.zone}:${stamp}`, ...lines, 'END:VEVENT',
      'END:VCALENDAR',
    ].join('\r\n')
    const event = new ICAL.Event(new ICAL.Component(ICAL.parse(text)).getFirstSubcomponent('vevent')!)
    const iterator = event.iterator()
    const out: string[] = []
    for (let next = iterator.next(); next && out.length < count; next = iterator.next()) {
      out.push(next.toJSDate().toISOString().slice(0, 19).replace('T', ' '))
    }
    return out
  }

  it('gives the same instants for generated rules in zones with DST', () => {
    const rule = fc.record({
      zone: fc.constantFrom('Europe/Berlin', 'America/New_York', 'Australia/Sydney'),
      date: fc.date({ min: new Date('2025-01-01T00:00:00Z'), max: new Date('2027-12-31T00:00:00Z'), noInvalidDate: true }),
      // Hours that exist on every day in these zones (their gaps and overlaps are tested above).
      hour: fc.constantFrom(0, 8, 10, 12, 18, 23),
      freq: fc.constantFrom('DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'),
      interval: fc.integer({ min: 1, max: 3 }),
      count: fc.integer({ min: 1, max: 25 }),
      byday: fc.subarray(['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'], { minLength: 1, maxLength: 3 }),
      ordinal: fc.constantFrom('1', '2', '-1'),
    })
    fc.assert(
      fc.property(rule, (r) => {
        // The start is an occurrence of its rule (RFC 5545 leaves other sets undefined, and the
        // two engines differ there): a weekly rule names its weekday, a monthly one its ordinal day.
        const weekdays = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA']
        let date = r.date
        if (r.freq === 'MONTHLY') date = nthWeekday(r.date.getUTCFullYear(), r.date.getUTCMonth(), weekdays.indexOf(r.byday[0]!), Number(r.ordinal))
        const own = weekdays[date.getUTCDay()]!
        const wall = `${date.toISOString().slice(0, 10)} ${String(r.hour).padStart(2, '0')}:00:00`
        const start: SeriesStart = { wall, zone: r.zone, allDay: false }
        const day = r.freq === 'WEEKLY' ? `;BYDAY=${[...new Set([own, ...r.byday])].join(',')}` : r.freq === 'MONTHLY' ? `;BYDAY=${r.ordinal}${r.byday[0]}` : ''
        const text = `RRULE:FREQ=${r.freq};INTERVAL=${r.interval};COUNT=${r.count}${day}`
        let lines: string[]
        try {
          lines = parseRecurrence([text], start)
        } catch {
          return // Rules without an occurrence are refused; nothing to compare.
        }
        const ours = expandRecurrence(lines, start, new Date('2024-01-01T00:00:00Z'), new Date('2110-01-01T00:00:00Z')).map((o) => o.utc)
        expect(ours).toHaveLength(r.count)
        expect(ours, `${text} from ${wall} ${r.zone}`).toEqual(icalJsStarts(lines, start, r.count + 1))
      }),
      { numRuns: 150 },
    )
  })
})

describe('recurrence: rules bounded by work (issue 28)', () => {
  const reach = new RegExp(`no occurrence within ${RULE_REACH_YEARS} years`)

  it('refuses from its text a rule that can never match, at the boundaries of what a period holds', async () => {
    const cases: [string, boolean][] = [
      ['FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYSETPOS=7', true],
      ['FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYSETPOS=8', false],
      ['FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYSETPOS=-8', false],
      ['FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYSETPOS=366', false],
      ['FREQ=WEEKLY;BYDAY=MO,TU;BYSETPOS=9,2', true],
      ['FREQ=DAILY;BYDAY=MO;BYSETPOS=1', true],
      ['FREQ=DAILY;BYDAY=MO;BYSETPOS=2', false],
      ['FREQ=MONTHLY;BYDAY=MO;BYSETPOS=5', true],
      ['FREQ=MONTHLY;BYDAY=MO;BYSETPOS=-6', false],
      ['FREQ=MONTHLY;BYMONTHDAY=1,2;BYSETPOS=3', false],
      ['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29', true],
      ['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', false],
      ['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-30', false],
      ['FREQ=YEARLY;BYMONTH=2,4;BYMONTHDAY=31', false],
      ['FREQ=YEARLY;BYMONTH=2,3;BYMONTHDAY=31', true],
      ['FREQ=DAILY;BYMONTH=4,6,9,11;BYMONTHDAY=31', false],
      ['FREQ=YEARLY;BYMONTH=3;BYDAY=5MO', true],
      ['FREQ=YEARLY;BYMONTH=3;BYDAY=6MO', false],
      ['FREQ=YEARLY;BYDAY=6MO', true],
      ['FREQ=YEARLY;BYDAY=MO;BYSETPOS=53', true],
      ['FREQ=YEARLY;BYDAY=MO;BYSETPOS=54', false],
    ]
    for (const [rule, accepted] of cases) {
      const started = cpuNow()
      const reason = await refusal([`RRULE:${rule}`], berlin('2026-03-02 10:00:00'))
      if (accepted) expect(reason, rule).toBeUndefined()
      else expect(reason, rule).toMatch(reach)
      // Seconds of CPU at most (CPU: files run side by side on a loaded machine); the engine's walk
      // to its step limit took 9-24 s.
      expect(cpuNow() - started, rule).toBeLessThan(5000)
    }
  })

  it(`refuses a rule whose next occurrence lies more than ${RULE_REACH_YEARS} years ahead, open-ended or bounded`, async () => {
    expect(await refusal([`RRULE:FREQ=YEARLY;INTERVAL=${RULE_REACH_YEARS}`])).toBeUndefined()
    expect(await refusal([`RRULE:FREQ=YEARLY;INTERVAL=${RULE_REACH_YEARS + 1}`])).toMatch(reach)
    // Monday 29 February: 2044, then 2072.
    const leapMonday = 'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO'
    expect(await refusal([leapMonday], berlin('2027-03-01 10:00:00'))).toBeUndefined()
    expect(await refusal([leapMonday], berlin('2044-03-01 10:00:00'))).toMatch(reach)
    expect(await refusal([`${leapMonday};UNTIL=20990101`], berlin('2044-02-29 10:00:00'))).toMatch(/no occurrence within \d+ years after 2044-02-29/)
    expect(await refusal(['RRULE:FREQ=YEARLY;INTERVAL=25;UNTIL=21000101'])).toMatch(reach)
    expect(await refusal(['RRULE:FREQ=YEARLY;INTERVAL=25;COUNT=3'])).toMatch(reach)
  })

  it('stops a costly rule at the work bound, yielding to the event loop meanwhile', async () => {
    const watch = watchLoopHold()
    // Whole weeks of February: about three a year, each week costing the engine a millisecond or
    // more for BYSETPOS: 1,000 of them are some 300 years of weeks, 20 s or more in one go.
    // A budget of 200 ms rather than the default 2 s: on a fast idle machine the whole rule fits in
    // 2 s and nothing would be stopped; a tenth of it is well past any machine's budget.
    const reason = await refusal(['RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYSETPOS=7;BYMONTH=2;COUNT=1000'], undefined, ruleWork(200))
    const { cpuMs, longestHoldMs } = watch.stop()
    expect(reason).toMatch(/more than \d+ ms of work/)
    // In CPU time (files run side by side on a loaded machine): before the bound this held the
    // loop for 20 s and more.
    expect(cpuMs).toBeLessThan(15_000)
    expect(longestHoldMs).toBeLessThan(1000)
  })

  it('holds the event loop a few milliseconds at a time for a yearly rule selecting most days: windows shorter than its period', async () => {
    const rule = ['RRULE:FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR,SA,SU']
    const start = berlin('2026-03-02 10:00:00')
    // Each engine call's CPU time: the stretches the expansion holds the loop for, GC between them aside.
    const between = RRuleTemporal.prototype.between
    const calls: number[] = []
    RRuleTemporal.prototype.between = function (this: RRuleTemporal, ...args: Parameters<RRuleTemporal['between']>) {
      const began = cpuNow()
      try {
        return between.apply(this, args)
      } finally {
        calls.push(cpuNow() - began)
      }
    }
    try {
      // One whole year in one call, the smallest window before (30-300 ms seen on the shared machine); the first call warms up.
      for (const year of [2027, 2028, 2029]) expandRecurrence(rule, start, new Date(`${year}-01-01T00:00:00Z`), new Date(`${year}-12-31T23:59:59Z`))
      const yearMs = Math.min(...calls.splice(0))
      const watch = watchLoopHold(2)
      const found = await expandSliced(rule, start, new Date('2030-01-01T00:00:00Z'), new Date('2032-12-31T23:59:59Z'), 10_000, ruleWork(Infinity))
      const { longestHoldMs } = watch.stop()
      expect(found).toHaveLength(366 + 365 + 365)
      expect(found[0]!.wall).toBe('2030-01-01 10:00:00')
      // Windows shorter than the rule's year, each costing a fraction of one (the 90th percentile:
      // a call that met a garbage collection is no window too long).
      expect(calls.length).toBeGreaterThan(3 * 3)
      const p90 = [...calls].sort((a, b) => a - b)[Math.floor(calls.length * 0.9)]!
      // Windows adapt to keep a call between 2.5 and 10 ms (rule-work.ts's 5 ms slice): on an idle
      // machine where a whole year costs ~11 ms, that band is the bound, not half a year.
      expect(p90, `one year in one call: ${yearMs.toFixed(1)} ms`).toBeLessThan(Math.max(yearMs / 2, 10))
      // The loop held in CPU time between 2 ms ticks (a loaded machine delays timers, not CPU): seconds would be the bug.
      expect(longestHoldMs).toBeLessThan(1000)
    } finally {
      RRuleTemporal.prototype.between = between
    }
  })

  it('expands window by window exactly as in one go (COUNT, UNTIL, open-ended, EXDATE, RDATE, all-day, UTC±h)', async () => {
    const rule = fc.record({
      start: fc.constantFrom<SeriesStart>(
        berlin('2026-03-02 10:00:00'),
        { wall: '2026-10-31 01:30:00', zone: 'America/New_York', allDay: false },
        { wall: '2026-03-05 00:00:00', zone: 'Europe/Berlin', allDay: true },
        { wall: '2026-03-05 23:30:00', zone: 'UTC+5', allDay: false },
      ),
      freq: fc.constantFrom('DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'),
      interval: fc.integer({ min: 1, max: 3 }),
      end: fc.constantFrom('COUNT=1', 'COUNT=7', 'COUNT=40', 'UNTIL=20280101', 'UNTIL=20270301T120000Z', ''),
      byday: fc.constantFrom('', ';BYDAY=MO,FR', ';BYDAY=TU;BYSETPOS=1', ';BYDAY=MO,TU,WE;BYSETPOS=-1'),
      extra: fc.constantFrom<string[]>([], ['EXDATE;TZID=Europe/Berlin:20260309T100000', 'RDATE:20260401T120000Z'], ['RDATE;VALUE=DATE:20260320']),
    })
    await fc.assert(
      fc.asyncProperty(rule, async (r) => {
        const text = [`RRULE:FREQ=${r.freq};INTERVAL=${r.interval}${r.end ? `;${r.end}` : ''}${r.freq === 'DAILY' ? '' : r.byday}`, ...r.extra]
        let lines: string[]
        try {
          lines = parseRecurrence(text, r.start)
          await verifyRecurrence(lines, r.start)
        } catch {
          return
        }
        const from = at('2026-01-01T00:00:00Z')
        const to = at('2029-06-30T00:00:00Z')
        const once = r.end ? expandBounded(lines, r.start).map((o) => o.utc) : expandRecurrence(lines, r.start, from, to).map((o) => o.utc)
        const sliced = r.end ? (await expandBoundedSliced(lines, r.start)).map((o) => o.utc) : (await expandSliced(lines, r.start, from, to, 10_000, ruleWork())).map((o) => o.utc)
        expect(sliced, `${text.join(' ')} ${JSON.stringify(r.start)}`).toEqual(once)
      }),
      { numRuns: 120 },
    )
  })
})
