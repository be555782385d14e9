import { describe, expect, it } from 'vitest'
import {
  addDaysToDate,
  addMonthsToWall,
  dateDetails,
  epochMsToUtcWall,
  isValidTimezone,
  isWallTime,
  nowUtcWall,
  offsetString,
  timezoneAbbr,
  toIsoWithOffset,
  utcToWall,
  utcWallToEpochMs,
  wallToUtc,
} from '../../src/time/wall-time.js'

describe('isValidTimezone', () => {
  it.each(['America/New_York', 'UTC', 'Europe/Berlin', 'Asia/Kolkata', 'UTC+2', 'UTC-5', 'UTC+5.5', 'UTC-3.5', 'UTC+5.75', 'UTC+0', 'UTC+14', 'UTC-12'])(
    'accepts %s',
    (tz) => expect(isValidTimezone(tz)).toBe(true),
  )
  it.each(['', 'garbage', 'UTC+15', 'UTC-13', 'UTC+5.3', 'UTC+', '+05:30', 'Mars/Olympus_Mons', 'UTC+14.5'])('rejects %j', (tz) =>
    expect(isValidTimezone(tz)).toBe(false),
  )
})

describe('isWallTime', () => {
  it('accepts real date-times only', () => {
    expect(isWallTime('2024-02-29 23:59:59')).toBe(true)
    expect(isWallTime('2025-02-29 00:00:00')).toBe(false)
    expect(isWallTime('2025-04-31 00:00:00')).toBe(false)
    expect(isWallTime('2025-01-01 24:00:00')).toBe(false)
    expect(isWallTime('2025-01-01 00:60:00')).toBe(false)
    expect(isWallTime('2025-01-01T00:00:00')).toBe(false)
    expect(isWallTime('2025-01-01 00:00')).toBe(false)
    expect(isWallTime('1900-02-29 00:00:00')).toBe(false)
    expect(isWallTime('2000-02-29 00:00:00')).toBe(true)
  })
})

describe('wallToUtc / utcToWall', () => {
  it('converts IANA zones across DST', () => {
    expect(wallToUtc('2027-01-15 18:00:00', 'America/New_York')).toBe('2027-01-15 23:00:00')
    expect(wallToUtc('2027-07-15 18:00:00', 'America/New_York')).toBe('2027-07-15 22:00:00')
    expect(utcToWall('2027-07-15 22:00:00', 'America/New_York')).toBe('2027-07-15 18:00:00')
    expect(wallToUtc('2026-12-31 23:30:00', 'Asia/Kolkata')).toBe('2026-12-31 18:00:00')
    expect(utcToWall('2026-12-31 18:00:00', 'Asia/Kolkata')).toBe('2026-12-31 23:30:00')
    expect(wallToUtc('2026-06-01 12:00:00', 'UTC')).toBe('2026-06-01 12:00:00')
  })

  it('rolls a wall time in a DST gap forward and picks the earlier instant in an overlap', () => {
    // 2026-03-08 02:30 does not exist in New York; it is read as 03:30 EDT.
    expect(wallToUtc('2026-03-08 02:30:00', 'America/New_York')).toBe('2026-03-08 07:30:00')
    // 2026-11-01 01:30 happens twice; the EDT (first) one is chosen.
    expect(wallToUtc('2026-11-01 01:30:00', 'America/New_York')).toBe('2026-11-01 05:30:00')
    expect(wallToUtc('2026-03-29 02:30:00', 'Europe/Berlin')).toBe('2026-03-29 01:30:00')
    expect(wallToUtc('2026-10-25 02:30:00', 'Europe/Berlin')).toBe('2026-10-25 00:30:00')
    // Lord Howe shifts by only 30 minutes.
    expect(wallToUtc('2026-10-04 02:15:00', 'Australia/Lord_Howe')).toBe('2026-10-03 15:45:00')
  })

  it('handles historical second-precision offsets', () => {
    // New York local mean time was -4:56:02 before 1883.
    expect(wallToUtc('1850-01-01 00:00:00', 'America/New_York')).toBe('1850-01-01 04:56:02')
    expect(utcToWall('1850-01-01 04:56:02', 'America/New_York')).toBe('1850-01-01 00:00:00')
  })

  it('handles UTC±h offsets by arithmetic', () => {
    expect(wallToUtc('2026-01-01 01:00:00', 'UTC+2')).toBe('2025-12-31 23:00:00')
    expect(wallToUtc('2026-01-01 00:00:00', 'UTC-3.5')).toBe('2026-01-01 03:30:00')
    expect(utcToWall('2026-01-01 00:00:00', 'UTC+5.75')).toBe('2026-01-01 05:45:00')
    expect(utcToWall('2026-01-01 00:00:00', 'UTC+0')).toBe('2026-01-01 00:00:00')
  })

  it('round-trips', () => {
    for (const tz of ['Europe/Berlin', 'America/New_York', 'UTC-5', 'Australia/Lord_Howe']) {
      expect(utcToWall(wallToUtc('2026-05-17 09:15:42', tz), tz)).toBe('2026-05-17 09:15:42')
    }
  })

  it('throws on bad input', () => {
    expect(() => wallToUtc('2026-02-30 00:00:00', 'UTC')).toThrow(RangeError)
    expect(() => wallToUtc('2026-01-01 00:00:00', 'Nowhere/Land')).toThrow(RangeError)
  })
})

describe('offsets and abbreviations', () => {
  it('formats offsets', () => {
    expect(offsetString('2027-01-15 23:00:00', 'America/New_York')).toBe('-05:00')
    expect(offsetString('2027-07-15 23:00:00', 'America/New_York')).toBe('-04:00')
    expect(offsetString('2027-01-15 23:00:00', 'Asia/Kolkata')).toBe('+05:30')
    expect(offsetString('2027-01-15 23:00:00', 'UTC')).toBe('+00:00')
    expect(offsetString('2027-01-15 23:00:00', 'UTC-3.5')).toBe('-03:30')
    expect(offsetString('2027-01-15 23:00:00', 'UTC+5.75')).toBe('+05:45')
  })

  it('builds ISO strings with offset', () => {
    expect(toIsoWithOffset('2027-01-15 23:00:00', 'America/New_York')).toBe('2027-01-15T18:00:00-05:00')
    expect(toIsoWithOffset('2027-01-15 23:00:00', 'UTC')).toBe('2027-01-15T23:00:00+00:00')
    expect(toIsoWithOffset('2027-01-15 23:00:00', 'UTC+2')).toBe('2027-01-16T01:00:00+02:00')
  })

  it('returns tz database abbreviations', () => {
    expect(timezoneAbbr('2027-01-15 23:00:00', 'America/New_York')).toBe('EST')
    expect(timezoneAbbr('2027-07-15 23:00:00', 'America/New_York')).toBe('EDT')
    expect(timezoneAbbr('2027-01-15 23:00:00', 'Europe/Berlin')).toBe('CET')
    expect(timezoneAbbr('2027-07-15 23:00:00', 'Europe/Berlin')).toBe('CEST')
    expect(timezoneAbbr('2027-07-15 23:00:00', 'UTC')).toBe('UTC')
    expect(timezoneAbbr('2027-07-15 23:00:00', 'Europe/Istanbul')).toBe('+03')
    expect(timezoneAbbr('2027-07-15 23:00:00', 'UTC+2')).toBe('UTC+2')
  })
})

describe('helpers', () => {
  it('splits a wall time into padded parts', () => {
    expect(dateDetails('2026-03-04 05:06:07')).toEqual({ year: '2026', month: '03', day: '04', hour: '05', minutes: '06', seconds: '07' })
  })

  it('converts epoch milliseconds', () => {
    expect(epochMsToUtcWall(0)).toBe('1970-01-01 00:00:00')
    expect(epochMsToUtcWall(1_700_000_000_999)).toBe('2023-11-14 22:13:20')
    expect(utcWallToEpochMs('2023-11-14 22:13:20')).toBe(1_700_000_000_000)
    expect(utcWallToEpochMs('0050-01-01 00:00:00')).toBe(Date.parse('0050-01-01T00:00:00Z'))
    expect(nowUtcWall(new Date('2026-11-21T03:39:06.500Z'))).toBe('2026-11-21 03:39:06')
  })

  it('adds days and months on the calendar', () => {
    expect(addDaysToDate('2026-02-28', 1)).toBe('2026-03-01')
    expect(addDaysToDate('2024-02-28', 1)).toBe('2024-02-29')
    expect(addDaysToDate('2026-01-01', -1)).toBe('2025-12-31')
    expect(addMonthsToWall('2026-01-31 10:00:00', 1)).toBe('2026-02-28 10:00:00')
    expect(addMonthsToWall('2024-01-31 10:00:00', 1)).toBe('2024-02-29 10:00:00')
    expect(addMonthsToWall('2026-01-15 10:00:00', -2)).toBe('2025-11-15 10:00:00')
    expect(addMonthsToWall('2026-05-31 00:00:00', 12)).toBe('2027-05-31 00:00:00')
    expect(() => addDaysToDate('2026-02-30', 1)).toThrow(RangeError)
  })
})
