import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { expandRecurrence, parseRecurrence, type Occurrence, type SeriesStart } from '../../src/recurrence/recurrence.js'
import { splitRecurrence } from '../../src/recurrence/split.js'

// "This and all following" (docs/recurrence.md): the two series of a split, expanded by the rule
// engine, have exactly the occurrences of the series they came from: none twice, none lost.

const FROM = new Date('2026-12-01T00:00:00Z')
const TO = new Date('2031-01-01T00:00:00Z')
const HOUR = 3_600_000

const expand = (lines: string[], start: SeriesStart): Occurrence[] => expandRecurrence(parseRecurrence(lines, start), start, FROM, TO)
const wallPlus = (wall: string, ms: number) => new Date(Date.parse(`${wall.replace(' ', 'T')}Z`) + ms).toISOString().slice(0, 19).replace('T', ' ')

const rules = fc.record({
  freq: fc.constantFrom('DAILY', 'WEEKLY', 'MONTHLY'),
  interval: fc.integer({ min: 1, max: 3 }),
  end: fc.constantFrom('COUNT=12', 'COUNT=30', 'UNTIL=20280301T000000Z', ''),
  byday: fc.constantFrom('', ';BYDAY=TU,TH'),
  zone: fc.constantFrom('Europe/Berlin', 'America/New_York', 'UTC', 'UTC+2', 'UTC-5'),
  allDay: fc.boolean(),
  at: fc.integer({ min: 1, max: 9 }),
  exdate: fc.integer({ min: 0, max: 12 }),
  rdate: fc.boolean(),
})

describe('recurrence: splitting a series at an occurrence', () => {
  it('the two series list exactly the occurrences of the one they came from (generated rules, zones, COUNT/UNTIL/open, EXDATE, RDATE)', async () => {
    await fc.assert(
      fc.asyncProperty(rules, async (r) => {
        const byday = r.freq === 'WEEKLY' ? r.byday : ''
        const start: SeriesStart = { wall: r.allDay ? '2027-01-05 00:00:00' : '2027-01-05 10:00:00', zone: r.zone, allDay: r.allDay }
        // An all-day series' UNTIL is a date (RFC 5545: the value type of DTSTART).
        const end = r.allDay && r.end.startsWith('UNTIL') ? 'UNTIL=20280301' : r.end
        const rule = `RRULE:FREQ=${r.freq};INTERVAL=${r.interval}${byday}${end ? `;${end}` : ''}`
        const plain = expand([rule], start)
        fc.pre(plain.length > r.exdate + 1 && plain.length > r.at + 1)
        // An EXDATE written in UTC (a wall clock in an all-day series), an RDATE between two instances.
        const ex = plain[r.exdate]!
        const lines = [rule, r.allDay ? `EXDATE;VALUE=DATE:${ex.wall.slice(0, 10).replace(/-/g, '')}` : `EXDATE:${ex.utc.replace(/[- :]/g, '').replace(/^(\d{8})/, '$1T')}Z`]
        if (r.rdate && !r.allDay) lines.push(`RDATE${r.zone.startsWith('UTC') ? '' : `;TZID=${r.zone}`}:${wallPlus(plain[2]!.wall, 5 * HOUR).replace(/[- :]/g, '').replace(/^(\d{8})/, '$1T')}`)
        const all = expand(lines, start)
        // Split at one of the rule's own instances (an RDATE one cannot start a rule while it goes on).
        const key = all.filter((o) => plain.some((p) => p.wall === o.wall))[r.at]
        fc.pre(key !== undefined && key.wall > all[0]!.wall)
        const split = await splitRecurrence(lines, start, key!, 0)
        const before = expand(split.before, start)
        const after = split.after.length > 0 ? expand(split.after, { ...start, wall: key!.wall }) : [key!]
        expect([...before, ...after].map((o) => o.wall)).toEqual(all.map((o) => o.wall))
        expect(before.every((o) => o.wall < key!.wall)).toBe(true)
      }),
      { numRuns: 60 },
    )
  })

  it('moves the following occurrences, their EXDATEs and UNTIL with a new start time, on the wall clock across DST', async () => {
    const start: SeriesStart = { wall: '2027-03-02 10:00:00', zone: 'Europe/Berlin', allDay: false }
    const lines = ['RRULE:FREQ=WEEKLY;UNTIL=20270427T080000Z', 'EXDATE;TZID=Europe/Berlin:20270406T100000', 'EXDATE:20270309T090000Z']
    const key = { wall: '2027-03-23 10:00:00', utc: '2027-03-23 09:00:00' }
    const split = await splitRecurrence(lines, start, key, HOUR)
    expect(split.before).toEqual(['RRULE:FREQ=WEEKLY;UNTIL=20270323T085959Z', 'EXDATE:20270309T090000Z'])
    expect(split.after).toEqual(['RRULE:FREQ=WEEKLY;UNTIL=20270427T090000Z', 'EXDATE:20270406T110000'])
    const moved = expand(split.after, { ...start, wall: '2027-03-23 11:00:00' }).map((o) => o.wall)
    expect(moved).toEqual(['2027-03-23 11:00:00', '2027-03-30 11:00:00', '2027-04-13 11:00:00', '2027-04-20 11:00:00', '2027-04-27 11:00:00'])
  })
})
