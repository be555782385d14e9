import { describe, expect, it } from 'vitest'
import { parseTimeInput } from '../../src/time/time-input.js'

// 03:39 UTC on the 21st is still 22:39 on the 20th in New York (EST, UTC-5).
const now = new Date('2026-11-21T03:39:06Z')
const utc = { now, zone: 'UTC' }
const ny = { now, zone: 'America/New_York' }
const wall = (w: string, dateOnly = false) => ({ kind: 'wall', wall: w, dateOnly })
const instant = (u: string) => ({ kind: 'instant', utc: u })

describe('parseTimeInput: timestamps and ISO forms', () => {
  it('reads Unix seconds as instants', () => {
    expect(parseTimeInput(1_700_000_000, utc)).toEqual(instant('2023-11-14 22:13:20'))
    expect(parseTimeInput('1700000000', ny)).toEqual(instant('2023-11-14 22:13:20'))
    expect(parseTimeInput('-86400', utc)).toEqual(instant('1969-12-31 00:00:00'))
    expect(parseTimeInput(' 0 ', utc)).toEqual(instant('1970-01-01 00:00:00'))
    expect(parseTimeInput(Number.NaN, utc)).toBeNull()
    expect(parseTimeInput('99999999999999999999', utc)).toBeNull()
  })

  it('reads dates and local date-times as wall times', () => {
    expect(parseTimeInput('2026-01-05', ny)).toEqual(wall('2026-01-05 00:00:00', true))
    expect(parseTimeInput('2026-01-05 09:30', ny)).toEqual(wall('2026-01-05 09:30:00'))
    expect(parseTimeInput('2026-01-05 09:30:15', ny)).toEqual(wall('2026-01-05 09:30:15'))
    expect(parseTimeInput('2026-01-05T09:30:15', ny)).toEqual(wall('2026-01-05 09:30:15'))
    expect(parseTimeInput('2026-01-05T09:30:15.123456', ny)).toEqual(wall('2026-01-05 09:30:15'))
  })

  it('reads ISO strings with an offset as instants', () => {
    expect(parseTimeInput('2026-01-05T09:30:00Z', ny)).toEqual(instant('2026-01-05 09:30:00'))
    expect(parseTimeInput('2026-01-05T09:30:00+02:00', ny)).toEqual(instant('2026-01-05 07:30:00'))
    expect(parseTimeInput('2026-01-05T09:30-0530', ny)).toEqual(instant('2026-01-05 15:00:00'))
    expect(parseTimeInput('2026-01-05 00:30:00.5+01:00', ny)).toEqual(instant('2026-01-04 23:30:00'))
  })

  it('rejects impossible calendar values', () => {
    expect(parseTimeInput('2025-02-30', utc)).toBeNull()
    expect(parseTimeInput('2025-01-01 25:00', utc)).toBeNull()
    expect(parseTimeInput('2025-13-01 10:00:00', utc)).toBeNull()
    expect(parseTimeInput('2025-01-01T10:00:00+25:00', utc)).toBeNull()
  })

  it('rejects non-times', () => {
    for (const raw of ['', '   ', 'notadate', 'foo tomorrow bar', [], {}, true, null, undefined, ['2026-01-01']]) {
      expect(parseTimeInput(raw, utc)).toBeNull()
    }
  })
})

describe('parseTimeInput: relative phrases', () => {
  it('anchors today/tomorrow/yesterday to the site-local date', () => {
    expect(parseTimeInput('now', utc)).toEqual(wall('2026-11-21 03:39:06'))
    expect(parseTimeInput('now', ny)).toEqual(wall('2026-11-20 22:39:06'))
    expect(parseTimeInput('today', utc)).toEqual(wall('2026-11-21 03:39:06', true))
    expect(parseTimeInput('today', ny)).toEqual(wall('2026-11-20 22:39:06', true))
    expect(parseTimeInput('tomorrow', ny)).toEqual(wall('2026-11-21 22:39:06', true))
    expect(parseTimeInput('yesterday', utc)).toEqual(wall('2026-11-20 03:39:06', true))
  })

  it('parses tomorrow 9am in both zones', () => {
    expect(parseTimeInput('tomorrow 9am', utc)).toEqual(wall('2026-11-22 09:00:00'))
    expect(parseTimeInput('tomorrow 9am', ny)).toEqual(wall('2026-11-21 09:00:00'))
    expect(parseTimeInput('  Tomorrow 9am  ', ny)).toEqual(wall('2026-11-21 09:00:00'))
  })

  it('parses weekday and clock phrases', () => {
    // Site-local today is Friday the 20th in New York, Saturday the 21st in UTC.
    expect(parseTimeInput('next wednesday 4pm', ny)).toEqual(wall('2026-11-25 16:00:00'))
    expect(parseTimeInput('yesterday 23:59', ny)).toEqual(wall('2026-11-19 23:59:00'))
    expect(parseTimeInput('yesterday 23:59', utc)).toEqual(wall('2026-11-20 23:59:00'))
    expect(parseTimeInput('last friday', ny)).toEqual(wall('2026-11-13 12:00:00', true))
    expect(parseTimeInput('last friday', utc)).toEqual(wall('2026-11-20 12:00:00', true))
  })

  it('parses chrono relative durations', () => {
    expect(parseTimeInput('in 3 days', ny)).toEqual(wall('2026-11-23 22:39:06', true))
    expect(parseTimeInput('2 days ago', utc)).toEqual(wall('2026-11-19 03:39:06', true))
    expect(parseTimeInput('next month', ny)).toEqual(wall('2026-12-20 22:39:06', true))
    expect(parseTimeInput('in 3 hours', ny)).toEqual(wall('2026-11-21 01:39:06'))
  })

  it('handles signed unit offsets itself', () => {
    expect(parseTimeInput('+5 weeks', ny)).toEqual(wall('2026-12-25 22:39:06', true))
    expect(parseTimeInput('-2 days', utc)).toEqual(wall('2026-11-19 03:39:06', true))
    expect(parseTimeInput('+1 month', utc)).toEqual(wall('2026-12-21 03:39:06', true))
    expect(parseTimeInput('+1 year', utc)).toEqual(wall('2027-11-21 03:39:06', true))
    expect(parseTimeInput('+90 minutes', ny)).toEqual(wall('2026-11-21 00:09:06'))
    expect(parseTimeInput('-1 hour', utc)).toEqual(wall('2026-11-21 02:39:06'))
    expect(parseTimeInput('+30 seconds', utc)).toEqual(wall('2026-11-21 03:39:36'))
  })

  it('applies clock units to the instant so DST changes are respected', () => {
    // 2026-11-01 01:30 EDT + 1 hour is 01:30 EST: the wall clock repeats.
    const beforeFallBack = { now: new Date('2026-11-01T05:30:00Z'), zone: 'America/New_York' }
    expect(parseTimeInput('+1 hour', beforeFallBack)).toEqual(wall('2026-11-01 01:30:00'))
    expect(parseTimeInput('+1 day', beforeFallBack)).toEqual(wall('2026-11-02 01:30:00', true))
  })

  it('clamps month arithmetic at month end', () => {
    expect(parseTimeInput('+1 month', { now: new Date('2026-01-31T12:00:00Z'), zone: 'UTC' })).toEqual(wall('2026-02-28 12:00:00', true))
  })

  it('turns a phrase with an explicit zone into an instant', () => {
    expect(parseTimeInput('tomorrow 9am EST', ny)).toEqual(instant('2026-11-21 14:00:00'))
    expect(parseTimeInput('tomorrow 9am +0200', utc)).toEqual(instant('2026-11-22 07:00:00'))
  })

  it('works with a UTC±h site zone', () => {
    expect(parseTimeInput('tomorrow 9am', { now, zone: 'UTC-5' })).toEqual(wall('2026-11-21 09:00:00'))
  })

  it('rejects ranges', () => {
    expect(parseTimeInput('tomorrow 9am to 5pm', utc)).toBeNull()
  })
})
