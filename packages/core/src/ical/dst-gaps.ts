import { expandBounded, expandRecurrence, type SeriesStart } from '../recurrence/index.js'
import { epochMsToUtcWall, utcWallToEpochMs, type WallTime, intlZone } from '../time/wall-time.js'
import { transitions, type Transition } from '../time/vtimezone.js'

// A series whose time of day falls into a DST gap (02:30 on the night clocks go forward): RFC 5545
// 3.3.10 says such an instance is ignored, and our lists skip it; calendar apps that subscribe
// to the feed (ical.js, Apple, Google, khal) move it past the gap instead. So the feed names each
// skipped instance in an EXDATE, with the same nonexistent wall clock, which every app reads as
// the instant it generated; and a COUNT rule that skipped one ends at its last listed occurrence
// (UNTIL) instead, because apps count the moved instance (docs/recurrence.md).

const MINUTE_MS = 60_000
const YEAR_MS = 365.25 * 86_400_000
/** Years on either side of now in which a feed names skipped gap instances. */
export const GAP_EXDATE_YEARS = 10

// Offset changes by zone and UTC year: a zone's changes of a year are found once per process
// (about 90 look-ups) and then serve every feed. Bounded by zones x the years feeds ask.
const yearly = new Map<string, Transition[]>()

function changesOf(zone: string, year: number): Transition[] {
  const key = `${zone}\u0000${year}`
  let found = yearly.get(key)
  if (!found) {
    found = transitions(zone, Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1))
    yearly.set(key, found)
  }
  return found
}

/** The wall clocks of time of day `time` that `zone` skips between two instants. */
function skippedWalls(zone: string, time: string, fromMs: number, toMs: number): WallTime[] {
  const walls: WallTime[] = []
  for (let year = new Date(fromMs).getUTCFullYear(); year <= new Date(toMs).getUTCFullYear(); year++) {
    for (const t of changesOf(zone, year)) {
      if (t.to <= t.from || t.at < fromMs || t.at > toMs) continue
      // The gap runs on the wall clock from the change read in the old offset to it read in the new.
      const first = epochMsToUtcWall(t.at + t.from * MINUTE_MS)
      const end = epochMsToUtcWall(t.at + t.to * MINUTE_MS)
      for (const date of new Set([first.slice(0, 10), end.slice(0, 10)])) {
        const wall = `${date} ${time}`
        if (wall >= first && wall < end) walls.push(wall)
      }
    }
  }
  return walls
}

const compact = (wall: WallTime) => `${wall.slice(0, 10).replace(/-/g, '')}T${wall.slice(11).replace(/:/g, '')}`

/**
 * A series' lines as the feed writes them: as stored, plus an EXDATE naming each instance the
 * lists skip in a DST gap from `GAP_EXDATE_YEARS` before `now` to as many after it, and, when one
 * was skipped, COUNT given as the UNTIL of the last occurrence.
 */
export function feedRecurrence(lines: readonly string[], start: SeriesStart, now: Date): string[] {
  if (start.allDay || !intlZone(start.zone)) return [...lines]
  const time = start.wall.slice(11, 19)
  const counted = lines.some((l) => l.startsWith('RRULE:') && /[:;]COUNT=/.test(l))
  const fromMs = Math.max(utcWallToEpochMs(start.wall) - 86_400_000, now.getTime() - GAP_EXDATE_YEARS * YEAR_MS)
  const toMs = now.getTime() + GAP_EXDATE_YEARS * YEAR_MS
  if (fromMs > toMs) return [...lines]
  const candidates = skippedWalls(start.zone, time, fromMs, toMs)
  if (candidates.length === 0) return [...lines]
  // Which of them the rule makes: the same rule on a clock without gaps (UTC) makes the wall clocks
  // the zone skips as well.
  const floating: SeriesStart = { wall: start.wall, zone: 'UTC', allDay: false }
  const skipped = candidates.filter((wall) => {
    const at = new Date(utcWallToEpochMs(wall))
    return expandRecurrence(lines, floating, at, at, 1).some((o) => o.wall === wall)
  })
  if (skipped.length === 0) return [...lines]
  const written = lines.map((line) => {
    if (!counted || !line.startsWith('RRULE:')) return line
    const last = expandBounded(lines, start).at(-1)
    return last ? line.replace(/([:;])COUNT=\d+/, `$1UNTIL=${compact(last.utc)}Z`) : line
  })
  return [...written, `EXDATE;TZID=${start.zone}:${skipped.map(compact).join(',')}`]
}
