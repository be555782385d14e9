import { RRuleTemporal } from 'rrule-temporal'
import { invalidParams, type CalendarError } from '../errors.js'
import { isValidTimezone, wallToUtc, type WallTime, intlZone } from '../time/wall-time.js'

/** Most lines one `recurrence` holds. */
export const MAX_RECURRENCE_LINES = 50
/** Most occurrences a bounded rule (COUNT or UNTIL) may produce, RDATEs included. */
export const MAX_BOUNDED_OCCURRENCES = 1000
/**
 * How far a rule must reach its next occurrence: one whose first occurrence after the start (or
 * the next after any occurrence of a bounded series) lies further is refused (issue 28).
 */
export const RULE_REACH_YEARS = 20

/** Where a series starts: the first occurrence's wall clock in the event's zone. */
export interface SeriesStart {
  /** `YYYY-MM-DD HH:MM:SS` in `zone` (all-day series: only the date counts). */
  wall: WallTime
  /** The event's time zone: an IANA name or `UTC±h`. */
  zone: string
  allDay: boolean
}

/** One occurrence: its start as a wall clock in the series' zone and as UTC. */
export interface Occurrence {
  wall: WallTime
  utc: WallTime
}

/** The one error of this module: `400 rest_invalid_param` naming `recurrence` and what is wrong. */
export function invalidRecurrence(reason: string): CalendarError {
  return invalidParams({ recurrence: reason })
}
const invalid = invalidRecurrence

const FREQS = new Set(['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'])
const WEEKDAY = '(MO|TU|WE|TH|FR|SA|SU)'
const BYDAY_RE = new RegExp(`^([+-]?\\d{1,2})?${WEEKDAY}$`)
const WEEKDAY_RE = new RegExp(`^${WEEKDAY}$`)
const DATE_RE = /^(\d{4})(\d{2})(\d{2})$/
const DATE_TIME_RE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/

/** Whether `YYYYMMDD` names a real day. */
function realDate(y: string, m: string, d: string): boolean {
  const date = new Date(Date.UTC(2000, Number(m) - 1, Number(d)))
  date.setUTCFullYear(Number(y))
  return date.getUTCFullYear() === Number(y) && date.getUTCMonth() === Number(m) - 1 && date.getUTCDate() === Number(d)
}

/** A DATE or DATE-TIME value of the rule text; `undefined` when malformed or not a real date and time. */
function dateValue(text: string): { date: string; time?: string; utc: boolean } | undefined {
  const d = DATE_RE.exec(text)
  if (d) return realDate(d[1]!, d[2]!, d[3]!) ? { date: text, utc: false } : undefined
  const t = DATE_TIME_RE.exec(text)
  if (!t || !realDate(t[1]!, t[2]!, t[3]!) || Number(t[4]) > 23 || Number(t[5]) > 59 || Number(t[6]) > 59) return undefined
  return { date: text.slice(0, 8), time: text.slice(9, 15), utc: t[7] === 'Z' }
}

/** A comma list of whole numbers with |n| from `lo` to `hi` (never 0); negative ones only when `signed`. */
function integers(name: string, value: string, lo: number, hi: number, signed: boolean): number[] {
  const numbers = value.split(',').map((p) => (/^[+-]?\d{1,7}$/.test(p) ? Number(p) : NaN))
  if (numbers.some((n) => Number.isNaN(n) || n === 0 || Math.abs(n) < lo || Math.abs(n) > hi || (!signed && n < 0))) {
    throw invalid(`${name} must list whole numbers from ${signed ? `-${hi} to -${lo} or ` : ''}${lo} to ${hi}.`)
  }
  return numbers
}

function single(name: string, value: string, hi: number): number {
  if (value.includes(',')) throw invalid(`${name} takes one number.`)
  return integers(name, value, 1, hi, false)[0]!
}

/** Whether UNTIL lies before the series' start, compared in the frame UNTIL is written in. */
function untilBeforeStart(until: { date: string; time?: string; utc: boolean }, start: SeriesStart): boolean {
  const startWall = until.utc && !start.allDay && isValidTimezone(start.zone) ? wallToUtc(start.wall, start.zone) : start.wall
  const compact = startWall.replace(/[- :]/g, '')
  if (until.time === undefined || start.allDay) return until.date < compact.slice(0, 8)
  return `${until.date}${until.time}` < compact
}

/** Checks one RRULE value part by part (RFC 5545 3.3.10) for what this calendar supports. */
function checkRule(value: string, start: SeriesStart): void {
  const parts = new Map<string, string>()
  for (const part of value.split(';')) {
    const [key, val, ...rest] = part.split('=')
    if (!key || val === undefined || val === '' || rest.length > 0) throw invalid(`RRULE part "${part}" is not NAME=VALUE.`)
    if (parts.has(key)) throw invalid(`RRULE names ${key} twice.`)
    parts.set(key, val)
  }
  const freq = parts.get('FREQ')
  if (!freq || !FREQS.has(freq)) throw invalid('RRULE needs FREQ=DAILY, WEEKLY, MONTHLY or YEARLY.')
  for (const key of parts.keys()) {
    if (!['FREQ', 'INTERVAL', 'COUNT', 'UNTIL', 'BYDAY', 'BYMONTHDAY', 'BYMONTH', 'BYSETPOS', 'WKST'].includes(key)) throw invalid(`RRULE part ${key} is not supported.`)
  }
  if (parts.has('INTERVAL')) single('INTERVAL', parts.get('INTERVAL')!, 1000)
  if (parts.has('COUNT')) {
    if (/^[+-]?0+$/.test(parts.get('COUNT')!)) throw invalid('COUNT must be 1 or more.')
    const count = single('COUNT', parts.get('COUNT')!, 9_999_999)
    if (count > MAX_BOUNDED_OCCURRENCES) throw invalid(`A series has at most ${MAX_BOUNDED_OCCURRENCES} occurrences (COUNT=${count}).`)
  }
  if (parts.has('COUNT') && parts.has('UNTIL')) throw invalid('RRULE may not have both COUNT and UNTIL.')
  if (parts.has('UNTIL')) {
    const until = dateValue(parts.get('UNTIL')!)
    if (!until) throw invalid('UNTIL must be a date (YYYYMMDD) or a date and time (YYYYMMDDTHHMMSSZ).')
    if (untilBeforeStart(until, start)) throw invalid('UNTIL is before the start of the event.')
  }
  if (parts.has('BYDAY')) {
    for (const day of parts.get('BYDAY')!.split(',')) {
      const m = BYDAY_RE.exec(day)
      if (!m) throw invalid(`BYDAY value "${day}" is not a weekday (MO…SU) with an optional ordinal.`)
      if (m[1] !== undefined) {
        const ordinal = Number(m[1])
        const most = freq === 'MONTHLY' ? 5 : freq === 'YEARLY' ? 53 : 0
        if (most === 0) throw invalid('BYDAY ordinals (2MO, -1FR) need FREQ=MONTHLY or YEARLY.')
        if (ordinal === 0 || Math.abs(ordinal) > most) throw invalid(`BYDAY ordinals run from -${most} to ${most}, without 0.`)
      }
    }
  }
  if (parts.has('BYMONTHDAY')) {
    if (freq === 'WEEKLY') throw invalid('BYMONTHDAY does not go with FREQ=WEEKLY.')
    integers('BYMONTHDAY', parts.get('BYMONTHDAY')!, 1, 31, true)
  }
  if (parts.has('BYMONTH')) integers('BYMONTH', parts.get('BYMONTH')!, 1, 12, false)
  if (parts.has('BYSETPOS')) {
    integers('BYSETPOS', parts.get('BYSETPOS')!, 1, 366, true)
    if (!['BYDAY', 'BYMONTHDAY', 'BYMONTH'].some((k) => parts.has(k))) throw invalid('BYSETPOS needs another BYxxx part.')
  }
  if (parts.has('WKST') && !WEEKDAY_RE.test(parts.get('WKST')!)) throw invalid('WKST must be a weekday (MO…SU).')
}

/** Days in each month at most (February 29 in leap years). */
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
const UNIT_DAYS: Record<string, number> = { DAILY: 1, WEEKLY: 7, MONTHLY: 31, YEARLY: 366 }

/**
 * Why a checked rule can never match beyond its start, found from its text alone (issue 28: the
 * engine walks such a rule period by period until its step limit, seconds of CPU); `undefined`
 * when it may. Rules here have no BYHOUR or finer, so a period's set is a set of days.
 */
function neverMatches(freq: string, parts: Map<string, string>): string | undefined {
  const months = parts.has('BYMONTH') ? [...new Set(parts.get('BYMONTH')!.split(',').map(Number))] : undefined
  const monthDays = parts.has('BYMONTHDAY') ? [...new Set(parts.get('BYMONTHDAY')!.split(',').map(Number))] : undefined
  const days = parts.has('BYDAY') ? [...new Set(parts.get('BYDAY')!.split(','))] : undefined
  if (months && monthDays && !months.some((m) => monthDays.some((d) => Math.abs(d) <= MONTH_DAYS[m - 1]!))) {
    return `no month of BYMONTH=${parts.get('BYMONTH')} has a day of BYMONTHDAY=${parts.get('BYMONTHDAY')}`
  }
  // A weekday ordinal counts within the month for MONTHLY rules and YEARLY ones with BYMONTH.
  const inMonth = freq === 'MONTHLY' || (freq === 'YEARLY' && months !== undefined)
  const ordinal = (d: string) => /^[+-]?\d/.test(d)
  if (days && inMonth && days.every((d) => ordinal(d) && Math.abs(parseInt(d, 10)) > 5)) return 'a month has at most 5 of each weekday'
  if (!parts.has('BYSETPOS')) return undefined
  // The most days one period can hold after its BYxxx parts: BYSETPOS beyond it selects none.
  const weekdays = days ? days.filter((d) => !ordinal(d)).length : 0
  const ordinals = days ? days.length - weekdays : 0
  let most = 1
  if (freq === 'WEEKLY') most = days ? new Set(days.map((d) => d.slice(-2))).size : 1
  else if (freq === 'MONTHLY') most = monthDays ? monthDays.length : days ? 5 * weekdays + ordinals : 1
  else if (freq === 'YEARLY') {
    const perMonth = monthDays ? monthDays.length : days && months ? 5 * weekdays + ordinals : undefined
    if (perMonth !== undefined) most = (months?.length ?? 12) * perMonth
    else most = days ? 53 * weekdays + ordinals : months ? months.length : 1
  }
  most = Math.min(most, UNIT_DAYS[freq]!)
  const positions = parts.get('BYSETPOS')!.split(',').map(Number)
  if (positions.every((p) => Math.abs(p) > most)) return `BYSETPOS=${parts.get('BYSETPOS')} is beyond the ${most} day${most === 1 ? '' : 's'} one ${FREQ_PERIOD[freq]} of the rule holds at most`
  return undefined
}

const FREQ_PERIOD: Record<string, string> = { DAILY: 'day', WEEKLY: 'week', MONTHLY: 'month', YEARLY: 'year' }

/**
 * Throws the 400 on `recurrence` when the RRULE of lines `parseRecurrence` accepted can never
 * match beyond its start, seen from its text (BYSETPOS beyond what a period holds, BYMONTHDAY=31
 * with BYMONTH=2,4): cheap, but a property of the rule's meaning, checked with its expansion
 * after the permission check (issue 28).
 */
export function checkRuleMatches(lines: readonly string[]): void {
  const rule = lines.find((l) => l.startsWith('RRULE:'))
  if (!rule) return
  const parts = new Map(rule.slice('RRULE:'.length).split(';').map((p) => p.split('=') as [string, string]))
  const never = neverMatches(parts.get('FREQ')!, parts)
  if (never) throw invalid(`The rule yields no occurrence within ${RULE_REACH_YEARS} years: ${never}.`)
}

/** Checks an RDATE or EXDATE line's parameters and values. */
function checkDates(name: string, params: Map<string, string>, value: string): void {
  for (const [key, val] of params) {
    if (key === 'TZID') {
      if (!intlZone(val)) throw invalid(`${name} TZID "${val}" is not a time zone this calendar knows.`)
    } else if (key === 'VALUE') {
      if (val !== 'DATE' && val !== 'DATE-TIME') throw invalid(`${name} values must be DATE or DATE-TIME (PERIOD is not supported).`)
    } else throw invalid(`${name} parameter ${key} is not supported.`)
  }
  for (const item of value.split(',')) {
    const parsed = dateValue(item)
    if (!parsed) throw invalid(`${name} value "${item}" is not a date (YYYYMMDD) or date and time (YYYYMMDDTHHMMSS).`)
    if (params.get('VALUE') === 'DATE' && parsed.time !== undefined) throw invalid(`${name};VALUE=DATE takes dates only.`)
  }
}

/** `NAME;P=V:VALUE` split, names and parameter names upper-cased (values kept). */
function splitLine(line: string): { name: string; params: Map<string, string>; value: string } {
  const colon = line.indexOf(':')
  if (colon < 1) throw invalid(`"${line.slice(0, 60)}" is not an RFC 5545 line (NAME:VALUE).`)
  const [name, ...rawParams] = line.slice(0, colon).split(';')
  const params = new Map<string, string>()
  for (const p of rawParams) {
    const eq = p.indexOf('=')
    if (eq < 1) throw invalid(`Parameter "${p}" of ${name} is not NAME=VALUE.`)
    params.set(p.slice(0, eq).toUpperCase(), p.slice(eq + 1))
  }
  return { name: name!.toUpperCase(), params, value: line.slice(colon + 1).trim() }
}

function stamp(wall: WallTime, allDay: boolean): string {
  const compact = wall.replace(/[- :]/g, '')
  return allDay ? compact.slice(0, 8) : `${compact.slice(0, 8)}T${compact.slice(8, 14)}`
}

/** The zone occurrences are generated in: the event's when the platform knows it; `UTC±h` events recur on their wall clock read as UTC. */
export function generationZone(start: SeriesStart): string {
  return start.allDay || !intlZone(start.zone) ? 'UTC' : start.zone
}

/** The rule engine for `lines` from `start`; `zone` is `generationZone(start)`, computed once by the caller. */
export function engine(lines: readonly string[], start: SeriesStart, zone = generationZone(start)): RRuleTemporal {
  const dtstart = start.allDay
    ? `DTSTART;VALUE=DATE:${stamp(start.wall, true)}`
    : `DTSTART;TZID=${zone}:${stamp(start.wall, false)}`
  // RFC 5545 3.3.10: "The DTSTART property value always counts as the first occurrence", even
  // when the rule would not produce it; the event as created stays an occurrence of its series.
  // The engine needs a rule; a set of RDATEs alone is the start plus those dates, which is what a
  // one-occurrence rule plus them gives.
  const rule = lines.some((l) => l.startsWith('RRULE:')) ? [] : ['RRULE:FREQ=DAILY;COUNT=1']
  return new RRuleTemporal({ rruleString: [dtstart, ...rule, ...lines].join('\n'), maxIterations: 20_000, includeDtstart: true })
}

/** One occurrence as the engine gives it. */
export type Zoned = ReturnType<RRuleTemporal['all']>[number]

const isoWall = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')

/** An engine occurrence as a wall clock and UTC; `zone` is `generationZone(start)`. */
export function toOccurrence(zdt: Zoned, start: SeriesStart, zone: string): Occurrence {
  // From the instant and its offset: the polyfill's toPlainDateTime().toString() cost six times
  // the expansion itself (issue 19: a two-year weekly series had to cost under 5 creates). The
  // zone is the caller's: asking Intl for it per occurrence was 90 % of an expansion (issue 28).
  const epochMs = zdt.epochMilliseconds
  const local = isoWall(epochMs + zdt.offsetNanoseconds / 1e6)
  const wall = start.allDay ? `${local.slice(0, 10)} 00:00:00` : local
  if (zone === start.zone) return { wall, utc: isoWall(epochMs) }
  return { wall, utc: start.allDay ? wall : wallToUtc(wall, start.zone) }
}

/**
 * Validates a `recurrence` value (an array of RFC 5545 `RRULE:`, `RDATE…` and `EXDATE…` lines)
 * for a series starting at `start`, from its text alone (cheap: no rule engine), and returns it
 * normalised (trimmed, names upper-case). Throws `400 rest_invalid_param` on `recurrence` naming
 * what is wrong: unsupported or malformed text, COUNT 0 or above `MAX_BOUNDED_OCCURRENCES`,
 * UNTIL before the start, BYxxx out of range. What the rule means (one that never matches, no
 * occurrence in reach, a bounded one with too many) is `verifyRecurrence`'s (rule-work.ts), run
 * after the permission check.
 */
export function parseRecurrence(raw: unknown, start: SeriesStart): string[] {
  if (!Array.isArray(raw) || raw.some((l) => typeof l !== 'string')) throw invalid('recurrence must be an array of RFC 5545 lines (strings).')
  if (raw.length === 0) throw invalid('recurrence needs at least one RRULE or RDATE line (or null for a single event).')
  if (raw.length > MAX_RECURRENCE_LINES) throw invalid(`recurrence has at most ${MAX_RECURRENCE_LINES} lines.`)
  if (!start.allDay && !isValidTimezone(start.zone)) throw invalid('The event has no usable time zone for a series.')
  const lines: string[] = []
  let rules = 0
  let rdates = 0
  for (const text of raw as string[]) {
    const line = text.trim()
    if (line.length > 2000 || /[\r\n]/.test(line)) throw invalid('A recurrence line is one line of at most 2000 characters.')
    const { name, params, value } = splitLine(line)
    if (name === 'RRULE') {
      if (params.size > 0) throw invalid('RRULE takes no parameters.')
      rules++
      checkRule(value.toUpperCase(), start)
      lines.push(`RRULE:${value.toUpperCase()}`)
    } else if (name === 'RDATE' || name === 'EXDATE') {
      checkDates(name, params, value)
      if (name === 'RDATE') rdates++
      lines.push([name, ...[...params].map(([k, v]) => `${k}=${v}`)].join(';') + `:${value.toUpperCase()}`)
    } else {
      throw invalid(`${name} lines are not supported (RRULE, RDATE and EXDATE are).`)
    }
  }
  if (rules > 1) throw invalid('recurrence has at most one RRULE.')
  if (rules === 0 && rdates === 0) throw invalid('recurrence needs an RRULE or an RDATE.')
  return lines
}

/**
 * Every occurrence of a bounded series (COUNT, UNTIL, or RDATEs only; `parseRecurrence` holds it
 * to `MAX_BOUNDED_OCCURRENCES`), in order. Much faster than `expandRecurrence` with a far end,
 * which makes the engine walk the calendar up to it.
 */
export function expandBounded(lines: readonly string[], start: SeriesStart): Occurrence[] {
  const zone = generationZone(start)
  return engine(lines, start, zone)
    .all()
    .map((zdt) => toOccurrence(zdt, start, zone))
}

/**
 * The occurrences of a series starting between two UTC instants (inclusive), in order, at most
 * `limit`: generated in the event's own zone, so a 10:00 event stays at 10:00 local across DST
 * changes; a wall clock in a DST gap moves forward by the gap and one in an overlap takes the
 * first instant (RFC 5545 3.3.5). Works for open-ended rules at any distance.
 */
export function expandRecurrence(lines: readonly string[], start: SeriesStart, fromUtc: Date, toUtc: Date, limit = 10_000): Occurrence[] {
  const zone = generationZone(start)
  const rule = engine(lines, start, zone)
  // `UTC±h` and all-day series are generated on a UTC clock: widen by a day and filter exactly.
  const widen = zone === start.zone ? 0 : 86_400_000
  const found = rule.between(new Date(fromUtc.getTime() - widen), new Date(toUtc.getTime() + widen), true)
  const from = fromUtc.toISOString().slice(0, 19).replace('T', ' ')
  const to = toUtc.toISOString().slice(0, 19).replace('T', ' ')
  return found
    .map((zdt) => toOccurrence(zdt, start, zone))
    .filter((o) => o.utc >= from && o.utc <= to)
    .slice(0, limit)
}
