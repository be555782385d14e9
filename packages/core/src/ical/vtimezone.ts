import { tzOffset } from '@date-fns/tz'
import { foldLines } from 'ical-generator'
import { epochMsToUtcWall, timezoneAbbr } from '../shared/wall-time.js'

const DAY_MS = 86_400_000
const MINUTE_MS = 60_000

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** `+0100` / `-0430` from minutes east of UTC. */
function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+'
  const abs = Math.abs(minutes)
  return `${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`
}

/** `YYYYMMDDTHHMMSS` of the wall clock `offset` minutes east of the UTC instant `ms`. */
function localStamp(ms: number, offset: number): string {
  const d = new Date(ms + offset * MINUTE_MS)
  return `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`
}

/** Whether the platform's time zone database (Intl) knows `zone` as an IANA name. */
export function intlZone(zone: string): boolean {
  if (zone === '' || zone === 'UTC' || /^UTC[+-]/.test(zone)) return false
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

interface Transition {
  /** The UTC instant the new offset starts. */
  at: number
  from: number
  to: number
}

/**
 * Offset changes of `zone` between two instants, from the platform's time zone database: a
 * daily walk finds the day, a binary search the minute. Zones change at most a few times a
 * year, and never twice within a day.
 */
function transitions(zone: string, fromMs: number, toMs: number): Transition[] {
  const found: Transition[] = []
  let previous = tzOffset(zone, new Date(fromMs))
  for (let t = fromMs + DAY_MS; t <= toMs; t += DAY_MS) {
    const offset = tzOffset(zone, new Date(t))
    if (offset === previous) continue
    let lo = t - DAY_MS
    let hi = t
    while (hi - lo > MINUTE_MS) {
      const mid = lo + Math.floor((hi - lo) / 2 / MINUTE_MS) * MINUTE_MS
      if (tzOffset(zone, new Date(mid)) === previous) lo = mid
      else hi = mid
    }
    found.push({ at: hi, from: previous, to: offset })
    previous = offset
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

const cache = new Map<string, string>()
const MAX_CACHED = 200

/**
 * The VTIMEZONE of an IANA zone, exact for the calendar years `fromYear` to `toYear`: one
 * observance per offset change the platform's time zone database (Intl) knows in those years,
 * plus the offset in force when they begin. Not rules projected from today's law, so events in
 * years when a zone's rules were different still convert right. Folded lines, CRLF-terminated.
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
  const initial = tzOffset(zone, new Date(fromMs))
  const lines = ['BEGIN:VTIMEZONE', `TZID:${zone}`]
  const observance = (kind: 'STANDARD' | 'DAYLIGHT', at: number, from: number, to: number) => {
    const name = abbreviation(at, zone)
    lines.push(
      `BEGIN:${kind}`,
      // DTSTART is the wall clock of the onset as read in the offset in force before it.
      `DTSTART:${localStamp(at, from)}`,
      `TZOFFSETFROM:${offsetText(from)}`,
      `TZOFFSETTO:${offsetText(to)}`,
      ...(name ? [`TZNAME:${name}`] : []),
      `END:${kind}`,
    )
  }
  observance('STANDARD', fromMs, initial, initial)
  // Moving the clock forward starts daylight time; a permanent change of standard offset is
  // labelled by its direction too, which clients ignore: they convert by the offsets.
  for (const t of transitions(zone, fromMs, toMs)) observance(t.to > t.from ? 'DAYLIGHT' : 'STANDARD', t.at, t.from, t.to)
  lines.push('END:VTIMEZONE')
  const text = foldLines(lines.join('\r\n')) + '\r\n'
  cache.set(key, text)
  if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!)
  return text
}
