import { foldLines } from './fold-lines.js'
import { epochMsToUtcWall, intlOffsetMinutes, timezoneAbbr } from './wall-time.js'

const DAY_MS = 86_400_000
const MINUTE_MS = 60_000

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** `+0100` / `-0430` from minutes east of UTC; `+001608` where a local mean time has seconds. */
function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+'
  const seconds = Math.round(Math.abs(minutes) * 60)
  const rest = seconds % 60
  return `${sign}${pad(Math.floor(seconds / 3600))}${pad(Math.floor(seconds / 60) % 60)}${rest ? pad(rest) : ''}`
}

/** `YYYYMMDDTHHMMSS` of the wall clock `offset` minutes east of the UTC instant `ms`. */
function localStamp(ms: number, offset: number): string {
  const d = new Date(ms + offset * MINUTE_MS)
  return `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`
}

/** One change of a zone's UTC offset (minutes east of UTC before and after). */
export interface Transition {
  /** The UTC instant the new offset starts. */
  at: number
  from: number
  to: number
}

// Two offset changes of one zone are never closer than 6.96 days (America/Boa_Vista, 2000;
// measured with a daily walk over every zone Intl knows, 1800-2100): 4-day steps see each one.
const WALK_STEP_MS = 4 * DAY_MS

/**
 * Offset changes of `zone` between two instants, from the platform's time zone database: a walk
 * in steps finds the step, a binary search the minute.
 */
export function transitions(zone: string, fromMs: number, toMs: number): Transition[] {
  const found: Transition[] = []
  let previous = intlOffsetMinutes(zone, fromMs)
  for (let start = fromMs; start < toMs; ) {
    const end = Math.min(start + WALK_STEP_MS, toMs)
    const offset = intlOffsetMinutes(zone, end)
    if (offset !== previous) {
      let lo = start
      let hi = end
      while (hi - lo > MINUTE_MS) {
        const mid = lo + Math.floor((hi - lo) / 2 / MINUTE_MS) * MINUTE_MS
        if (intlOffsetMinutes(zone, mid) === previous) lo = mid
        else hi = mid
      }
      found.push({ at: hi, from: previous, to: offset })
      previous = offset
    }
    start = end
  }
  return found
}

/** Midnight UTC of 1 January of `year` (Date.UTC would read years 0-99 as 1900-1999). */
function yearStart(year: number): number {
  const d = new Date(Date.UTC(2000, 0, 1))
  d.setUTCFullYear(year)
  return d.getTime()
}

function abbreviation(at: number, zone: string): string {
  try {
    const name = timezoneAbbr(epochMsToUtcWall(at), zone)
    // Zones without letters for their offsets ("+03") say nothing TZOFFSETTO does not.
    return /^[+-]\d/.test(name) ? '' : name
  } catch {
    return ''
  }
}

// No zone Intl knows changes its offset before this year (the earliest change is Asia/Manila's,
// at the end of 1844): the walk starts here, whatever year the events name.
const HISTORY_FROM_YEAR = 1800
// From these years on, a zone's offset changes follow a yearly rule (tzdata lists explicit
// changes up to 2037; a few zones, such as Morocco's, have predicted ones until 2087). Years
// after that are written as RRULE observances instead of one observance a change until 9999.
const RULE_FROM_YEARS = [2038, 2088]
// Years looked at to find a rule: enough for the 1 March of every weekday, leap years or not.
const RULE_PROBE_YEARS = 14
// A zone whose yearly changes no RRULE here expresses (Africa/Cairo's "last Thursday, 24:00" falls
// on 1 November in some years) gets its changes listed up to this year; its last offset holds after.
const LISTED_TO_YEAR = 2200

/** A yearly offset change: its first onset, and the RRULE that repeats it. */
interface YearlyChange extends Transition {
  rrule: string
}

const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA']

/** Days in `month` (1-12) of `year`. */
function monthLength(year: number, month: number): number {
  const d = new Date(Date.UTC(2000, 0, 1))
  d.setUTCFullYear(year, month, 0)
  return d.getUTCDate()
}

/**
 * The yearly rules the offset changes of `zone` follow from `year` on, or `undefined` when the
 * changes of the years probed are not one rule (a different count, month, clock time or offsets,
 * or days no weekday rule gives). A change on a fixed date gives BYMONTHDAY; one on a weekday in
 * the last seven days of its month `BYDAY=-1SU`; any other on a weekday "SU on or after the 8th".
 */
function yearlyChanges(zone: string, year: number): YearlyChange[] | undefined {
  const found = transitions(zone, yearStart(year), yearStart(year + RULE_PROBE_YEARS) - 1)
  if (found.length % RULE_PROBE_YEARS !== 0) return undefined
  const perYear = found.length / RULE_PROBE_YEARS
  const changes: YearlyChange[] = []
  for (let slot = 0; slot < perYear; slot++) {
    const seen = Array.from({ length: RULE_PROBE_YEARS }, (_, i) => found[i * perYear + slot]!)
    const walls = seen.map((t) => new Date(t.at + t.from * MINUTE_MS))
    const first = walls[0]!
    const month = first.getUTCMonth()
    // The wall clock's time of day (the walls of years before 1970 are negative).
    const clockOf = (w: Date) => ((w.getTime() % DAY_MS) + DAY_MS) % DAY_MS
    const alike = seen.every(
      (t, i) => t.from === seen[0]!.from && t.to === seen[0]!.to && walls[i]!.getUTCFullYear() === year + i && walls[i]!.getUTCMonth() === month && clockOf(walls[i]!) === clockOf(first),
    )
    if (!alike) return undefined
    const days = walls.map((w) => w.getUTCDate())
    const lengths = walls.map((w) => monthLength(w.getUTCFullYear(), month + 1))
    const weekday = first.getUTCDay()
    let by: string
    if (days.every((d) => d === days[0])) by = `BYMONTHDAY=${days[0]}`
    else if (!walls.every((w) => w.getUTCDay() === weekday)) return undefined
    else if (days.every((d, i) => d > lengths[i]! - 7)) by = `BYDAY=-1${WEEKDAYS[weekday]}`
    else {
      const from = Math.min(...days)
      if (Math.max(...days) - from > 6 || from + 6 > Math.min(...lengths)) return undefined
      by = `BYDAY=${WEEKDAYS[weekday]};BYMONTHDAY=${Array.from({ length: 7 }, (_, i) => from + i).join(',')}`
    }
    changes.push({ ...seen[0]!, rrule: `RRULE:FREQ=YEARLY;BYMONTH=${month + 1};${by}` })
  }
  return changes
}

const cache = new Map<string, string>()
const MAX_CACHED = 200

/**
 * The VTIMEZONE of an IANA zone, exact for the calendar years `fromYear` to `toYear`: one
 * observance per offset change the platform's time zone database (Intl) knows in those years,
 * plus the offset in force when they begin. Not rules projected from today's law, so events in
 * years when a zone's rules were different still convert right. Where the changes have become a
 * yearly rule (from 2038), an RRULE observance per change of the year instead: the walk is
 * bounded (a feed spanning years 1 to 9999 took 3 s of CPU). Folded lines, CRLF-terminated.
 */
export function vtimezone(zone: string, fromYear: number, toYear: number): string {
  const key = `${zone} ${fromYear} ${toYear}`
  const known = cache.get(key)
  if (known) return known
  const first = Math.max(0, Math.min(fromYear, 9999))
  const last = Math.max(first, Math.min(toYear, 9999))
  // A day of margin on both sides, within the years 0 to 9999 that wall times can name.
  const fromMs = yearStart(first) - (first > 0 ? DAY_MS : 0)
  const toMs = yearStart(last + 1) - (last < 9999 ? 0 : DAY_MS)
  const initial = intlOffsetMinutes(zone, fromMs)
  // Explicit changes up to the first year from which a yearly rule holds, when the years reach it.
  let rules: YearlyChange[] = []
  let explicitTo = Math.min(toMs, yearStart(LISTED_TO_YEAR + 1) - 1)
  for (const ruleYear of RULE_FROM_YEARS) {
    const start = Math.max(ruleYear, first)
    if (last < start + RULE_PROBE_YEARS) break
    const found = yearlyChanges(zone, start)
    if (found) {
      rules = found
      explicitTo = yearStart(start) - 1
      break
    }
  }
  const lines = ['BEGIN:VTIMEZONE', `TZID:${zone}`]
  const observance = (kind: 'STANDARD' | 'DAYLIGHT', at: number, from: number, to: number, rrule?: string) => {
    const name = abbreviation(at, zone)
    lines.push(
      `BEGIN:${kind}`,
      // DTSTART is the wall clock of the onset as read in the offset in force before it.
      `DTSTART:${localStamp(at, from)}`,
      `TZOFFSETFROM:${offsetText(from)}`,
      `TZOFFSETTO:${offsetText(to)}`,
      ...(rrule ? [rrule] : []),
      ...(name ? [`TZNAME:${name}`] : []),
      `END:${kind}`,
    )
  }
  observance('STANDARD', fromMs, initial, initial)
  // Moving the clock forward starts daylight time; a permanent change of standard offset is
  // labelled by its direction too, which clients ignore: they convert by the offsets.
  const walkFrom = Math.max(fromMs, yearStart(HISTORY_FROM_YEAR))
  for (const t of transitions(zone, walkFrom, explicitTo)) observance(t.to > t.from ? 'DAYLIGHT' : 'STANDARD', t.at, t.from, t.to)
  for (const t of rules) observance(t.to > t.from ? 'DAYLIGHT' : 'STANDARD', t.at, t.from, t.to, t.rrule)
  lines.push('END:VTIMEZONE')
  const text = foldLines(lines.join('\r\n')) + '\r\n'
  cache.set(key, text)
  if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!)
  return text
}
