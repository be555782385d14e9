import { invalidParams } from '../errors.js'
import { epochMsToUtcWall, intlZone, utcToWall, utcWallToEpochMs, wallToUtc, type WallTime } from '../time/wall-time.js'
import type { SeriesStart } from './recurrence.js'
import { expandBoundedSliced, expandSliced, ruleWork, type RuleWork } from './rule-work.js'

// "This and all following" (issue 19 item 3, docs/recurrence.md): the recurrence lines of the two
// series a split makes. The rule engine decides what the occurrences are; this only rewrites the
// lines so that the old series keeps the occurrences before the chosen one and the new series,
// starting at it, has the rest (moved by the change of its start, if any).

/** The recurrence of the two series of a split. */
export interface SplitLines {
  /** The old series' lines: its occurrences before the split point. */
  before: string[]
  /** The new series' lines, read against its start (the split point moved by `shiftMs`). */
  after: string[]
}

const DAY_MS = 86_400_000

const compact = (wall: WallTime) => wall.replace(/[- :]/g, '')

/** `YYYYMMDD` or `YYYYMMDDTHHMMSS[Z]` as a wall time (a date at midnight). */
function wallOfValue(value: string): WallTime {
  const t = value.length >= 15 ? value.slice(9, 15) : '000000'
  return `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)} ${t.slice(0, 2)}:${t.slice(2, 4)}:${t.slice(4, 6)}`
}

const shifted = (wall: WallTime, ms: number) => epochMsToUtcWall(utcWallToEpochMs(wall) + ms)
/** A shift as whole days, for values that are dates. */
const wholeDays = (ms: number) => Math.round(ms / DAY_MS) * DAY_MS

/** An RDATE/EXDATE value as a wall clock of the series' zone (all-day series: its date at midnight). */
function valueWall(value: string, params: string[], start: SeriesStart): WallTime {
  const wall = wallOfValue(value)
  if (start.allDay || value.length === 8) return `${wall.slice(0, 10)} 00:00:00`
  const tzid = params.find((p) => p.toUpperCase().startsWith('TZID='))?.slice(5)
  if (value.endsWith('Z')) return utcToWall(wall, start.zone)
  if (tzid && tzid !== start.zone) return utcToWall(wallToUtc(wall, tzid), start.zone)
  return wall
}

/** The RRULE's parts in order, as `[NAME, VALUE]` pairs. */
function ruleParts(line: string): [string, string][] {
  return line.slice('RRULE:'.length).split(';').map((p) => p.split('=') as [string, string])
}

/** The rule with its end (COUNT or UNTIL, which exclude each other) set to `name=value`. */
function ruleEndingAt(parts: [string, string][], name: 'COUNT' | 'UNTIL', value: string): string {
  const kept = parts.filter(([n]) => n !== 'COUNT' && n !== 'UNTIL')
  return `RRULE:${[...kept, [name, value]].map(([n, v]) => `${n}=${v}`).join(';')}`
}

/** A wall clock as an UNTIL value: a date, or a date-time marked UTC (`Z`). */
const untilValue = (wall: WallTime, date: boolean) => (date ? compact(wall).slice(0, 8) : `${compact(wall).slice(0, 8)}T${compact(wall).slice(8)}Z`)

/** The walls of the rule's own instances (no RDATE/EXDATE) before and at/after `keyWall`, and whether `keyWall` is one. */
async function ruleInstances(rule: string, start: SeriesStart, keyWall: WallTime, keyUtc: WallTime, work: RuleWork) {
  const bounded = /(^|[:;])(COUNT|UNTIL)=/.test(rule)
  // An open-ended rule has no count to carry over: only whether the key is one of its instances
  // matters. Sliced and within the request's work, as every expansion on a request's path.
  const walls = (
    bounded
      ? await expandBoundedSliced([rule], start, work)
      : await expandSliced([rule], start, new Date(utcWallToEpochMs(keyUtc) - 2 * DAY_MS), new Date(utcWallToEpochMs(keyUtc) + 2 * DAY_MS), 10_000, work)
  ).map((o) => o.wall)
  // FREQ is at least DAILY, so instances' wall clocks rise with their instants.
  return {
    before: walls.filter((w) => w < keyWall).length,
    after: walls.filter((w) => w >= keyWall).length,
    isInstance: walls.includes(keyWall),
  }
}

/**
 * Splits the lines of a series starting at `start` at its occurrence starting at `key` (its wall
 * clock and UTC instant). The old series' rule ends before it: a COUNT becomes the number of the
 * rule's instances before it, otherwise UNTIL is set to just before it; RDATEs and EXDATEs at or
 * after it move to the new series. The new series' COUNT is what was left of the old one's, so
 * the two together have as many occurrences as the old had. When the new series starts `shiftMs`
 * later on the wall clock (its start was changed), its RDATEs, EXDATEs and UNTIL move with it,
 * written as wall clocks of its own zone; so do they when the new series is in another `zone`.
 * An occurrence that only an RDATE gives, with more of the rule's instances after it, cannot
 * start a rule: `400` on `recurrence`.
 */
export async function splitRecurrence(
  lines: readonly string[],
  start: SeriesStart,
  key: { wall: WallTime; utc: WallTime },
  shiftMs: number,
  zone: string = start.zone,
  work: RuleWork = ruleWork(),
): Promise<SplitLines> {
  const before: string[] = []
  const after: string[] = []
  // A new zone moves the instances as a shift does: same wall clocks, other instants.
  const rezoned = !start.allDay && zone !== start.zone
  const moved = shiftMs !== 0 || rezoned
  for (const line of lines) {
    if (line.startsWith('RRULE:')) {
      const parts = ruleParts(line)
      const count = parts.some(([n]) => n === 'COUNT')
      const until = parts.find(([n]) => n === 'UNTIL')?.[1]
      const rule = await ruleInstances(line, start, key.wall, key.utc, work)
      if (count) before.push(ruleEndingAt(parts, 'COUNT', String(rule.before)))
      else {
        // Rules of `UTC±h` and all-day series run on a UTC clock (recurrence.ts): their UNTIL is their wall clock.
        const last = start.allDay ? shifted(key.wall, -DAY_MS) : shifted(intlZone(start.zone) ? key.utc : key.wall, -1000)
        before.push(ruleEndingAt(parts, 'UNTIL', untilValue(last, start.allDay)))
      }
      if (rule.after === 0) continue
      if (!rule.isInstance) {
        throw invalidParams({ recurrence: 'This occurrence comes from an RDATE, not from the rule; a split must start at one of the rule\'s occurrences (or after its last).' })
      }
      if (count) after.push(ruleEndingAt(parts, 'COUNT', String(rule.after)))
      else if (until && moved) {
        const date = until.length === 8
        // Where the last instance falls on the old zone's clock, moved, read on the new zone's
        // (`UTC±h` rules run on a UTC clock: their UNTIL is their wall clock).
        const onClock = date || !until.endsWith('Z') || !intlZone(start.zone) ? wallOfValue(until) : utcToWall(wallOfValue(until), start.zone)
        const wall = shifted(onClock, date ? wholeDays(shiftMs) : shiftMs)
        after.push(ruleEndingAt(parts, 'UNTIL', untilValue(date || !intlZone(zone) ? wall : wallToUtc(wall, zone), date)))
      } else after.push(line)
      continue
    }
    const colon = line.indexOf(':')
    const [name, ...params] = line.slice(0, colon).split(';')
    const values = line.slice(colon + 1).split(',')
    const early = values.filter((v) => valueWall(v, params, start) < key.wall)
    const late = values.filter((v) => valueWall(v, params, start) >= key.wall)
    if (early.length > 0) before.push(`${line.slice(0, colon)}:${early.join(',')}`)
    if (late.length === 0) continue
    if (!moved) {
      after.push(`${line.slice(0, colon)}:${late.join(',')}`)
      continue
    }
    // Moved with the series, as wall clocks of its zone (floating) or dates.
    const dates = start.allDay || params.some((p) => p.toUpperCase() === 'VALUE=DATE')
    const walls = late.map((v) => shifted(valueWall(v, params, start), dates ? wholeDays(shiftMs) : shiftMs))
    after.push(dates ? `${name};VALUE=DATE:${walls.map((w) => compact(w).slice(0, 8)).join(',')}` : `${name}:${walls.map((w) => `${compact(w).slice(0, 8)}T${compact(w).slice(8)}`).join(',')}`)
  }
  return { before, after }
}
