import { epochMsToUtcWall, isValidTimezone, offsetMinutesAt, utcWallToEpochMs, wallToUtc, type WallTime } from './wall-time.js'

// Reading many wall clocks of one zone as UTC (the occurrences a list computes, issue 28): each
// `wallToUtc` asks Intl for two offsets and formats one or two dates (about 0.2 ms), which made a
// month of 100 daily Berlin series cost 2 s. A zone's offset changes a few times a year, so a
// clock samples it once per UTC day it is asked about and finds the instant of a change by
// bisection; every conversion after that is arithmetic.

const DAY_MS = 86_400_000
/** Days whose offsets one clock keeps (about 27 years: far more than one request converts). */
const MAX_DAYS = 10_000

/** `wallToUtc` for one zone, with the zone's offsets remembered: the same answers, mostly without Intl. */
export function zoneClock(tz: string): (wall: WallTime) => WallTime {
  if (!isValidTimezone(tz)) return (wall) => wallToUtc(wall, tz)
  // Offset at the start of each UTC day, and where it differs from the next day's, the first
  // second (ms) with the next day's offset.
  const atDay = new Map<number, number>()
  const changeIn = new Map<number, number>()
  const dayOffset = (day: number) => {
    let offset = atDay.get(day)
    if (offset === undefined) {
      offset = offsetMinutesAt(day * DAY_MS, tz)
      if (atDay.size >= MAX_DAYS) atDay.clear()
      atDay.set(day, offset)
    }
    return offset
  }
  const offsetAt = (ms: number) => {
    const day = Math.floor(ms / DAY_MS)
    const first = dayOffset(day)
    const next = dayOffset(day + 1)
    if (first === next) return first
    let change = changeIn.get(day)
    if (change === undefined) {
      // The first second of the day with the next day's offset (one change a day at most).
      let lo = day * DAY_MS
      let hi = (day + 1) * DAY_MS
      while (hi - lo > 1000) {
        const mid = lo + Math.floor((hi - lo) / 2000) * 1000
        if (offsetMinutesAt(mid, tz) === next) hi = mid
        else lo = mid
      }
      change = hi
      if (changeIn.size >= MAX_DAYS) changeIn.clear()
      changeIn.set(day, change)
    }
    return ms >= change ? next : first
  }
  return (wall) => {
    const naive = utcWallToEpochMs(wall)
    if (!Number.isFinite(naive)) return wallToUtc(wall, tz)
    // `wallToUtc`'s rule: of the instants an offset a day before or after gives, the earliest that
    // reads as `wall`; in a gap, the offset before it.
    const before = offsetAt(naive - DAY_MS)
    const after = offsetAt(naive + DAY_MS)
    const candidates = [before, after].map((offset) => naive - Math.round(offset * 60_000)).filter((ms) => ms + Math.round(offsetAt(ms) * 60_000) === naive)
    return epochMsToUtcWall(candidates.length > 0 ? Math.min(...candidates) : naive - Math.round(before * 60_000))
  }
}
