import moment from 'moment-timezone'

/** A clock reading `YYYY-MM-DD HH:MM:SS` with no zone attached; which zone it belongs to is the caller's business. */
export type WallTime = string

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/
// WordPress-style manual offsets; the range matches the real-world extremes (Baker Island to Kiribati).
const FIXED_RE = /^UTC([+-])(\d{1,2})(?:\.(25|5|75))?$/

const pad = (n: number, width = 2): string => String(n).padStart(width, '0')

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function daysInMonth(y: number, m: number): number {
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
  return m === 2 && leap ? 29 : (MONTH_DAYS[m - 1] ?? 0)
}

/** Minutes east of UTC for a `UTC±h` zone, or null when tz is not in that form. */
function fixedOffsetMinutes(tz: string): number | null {
  const m = FIXED_RE.exec(tz)
  if (!m) return null
  const minutes = Number(m[2]) * 60 + (m[3] ? Number(`0.${m[3]}`) * 60 : 0)
  const signed = m[1] === '-' ? -minutes : minutes
  return signed < -12 * 60 || signed > 14 * 60 ? null : signed
}

// Constructing an Intl.DateTimeFormat is comparatively slow and zone sets do not change at runtime.
const intlCache = new Map<string, boolean>()
function intlKnows(tz: string): boolean {
  let known = intlCache.get(tz)
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz })
      known = true
    } catch {
      known = false
    }
    intlCache.set(tz, known)
  }
  return known
}

// A zone's UTC offset from Intl's long offset name ("GMT-08:00", "GMT+05:53:28", "GMT" for none),
// one formatter per zone: constructing one is slow, formatting is not.
const offsetFormats = new Map<string, (date: Date) => string>()

/** Minutes east of UTC of a zone Intl knows at instant `ms` (seconds of an LMT offset as a fraction). */
export function intlOffsetMinutes(tz: string, ms: number): number {
  let format = offsetFormats.get(tz)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' }).format
    offsetFormats.set(tz, format)
  }
  const [h = '', m = '', s = ''] = (format(new Date(ms)).split('GMT')[1] ?? '').split(':')
  const hours = Number(h)
  const minutes = Number(m)
  const seconds = Number(s) / 60
  return hours * 60 + minutes > 0 ? hours * 60 + minutes + seconds : hours * 60 - minutes - seconds
}

/** Whether the platform's time zone database (Intl) knows `zone` as an IANA name (not UTC, not `UTC±h`). */
export function intlZone(zone: string): boolean {
  if (zone === '' || zone === 'UTC' || /^UTC[+-]/.test(zone)) return false
  return intlKnows(zone)
}

/** True for a `UTC±h` offset zone or an IANA name that Intl or moment-timezone knows. */
export function isValidTimezone(tz: string): boolean {
  if (/^UTC[+-]/.test(tz)) return fixedOffsetMinutes(tz) !== null
  // Newer runtimes accept raw offsets like "+05:30" as zones; the API only speaks names and UTC±h.
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) return false
  return intlKnows(tz) || moment.tz.zone(tz) !== null
}

function assertZone(tz: string): void {
  if (!isValidTimezone(tz)) throw new RangeError(`Invalid time zone: ${JSON.stringify(tz)}`)
}

/** The number the ASCII digits s[from..to) spell, or -1 when any is not a digit. */
function digitsAt(s: string, from: number, to: number): number {
  let n = 0
  for (let i = from; i < to; i++) {
    const d = s.charCodeAt(i) - 48
    if (d < 0 || d > 9) return -1
    n = n * 10 + d
  }
  return n
}

type WallParts = [number, number, number, number, number, number]

/**
 * The fields of a valid `YYYY-MM-DD HH:MM:SS` (a real calendar date and time), else null. Read by
 * character codes: serialising a list page checks dozens of wall times, and a regex plus
 * split/map was a measurable share of the server's CPU per list request.
 */
function wallParts(s: string): WallParts | null {
  if (s.length !== 19 || s[4] !== '-' || s[7] !== '-' || s[10] !== ' ' || s[13] !== ':' || s[16] !== ':') return null
  const y = digitsAt(s, 0, 4)
  const mo = digitsAt(s, 5, 7)
  const d = digitsAt(s, 8, 10)
  const h = digitsAt(s, 11, 13)
  const mi = digitsAt(s, 14, 16)
  const se = digitsAt(s, 17, 19)
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59) return null
  return [y, mo, d, h, mi, se]
}

/** True when s is exactly `YYYY-MM-DD HH:MM:SS` and names a real calendar date and time. */
export function isWallTime(s: string): boolean {
  return wallParts(s) !== null
}

function parts(wall: WallTime): WallParts {
  const p = wallParts(wall)
  if (!p) throw new RangeError(`Invalid wall time: ${JSON.stringify(wall)}`)
  return p
}

/** The first and last wall times the database stores: PostgreSQL has no year 0 in this form. */
export const MIN_WALL: WallTime = '0001-01-01 00:00:00'
export const MAX_WALL: WallTime = '9999-12-31 23:59:59'

/** True when a wall time lies in the years 1 to 9999, the ones the database stores. */
export function isStorableWall(wall: WallTime): boolean {
  return wall.length === 19 && wall >= MIN_WALL && wall <= MAX_WALL
}

/**
 * Runs a conversion whose result goes to the database; `null` when it leaves years 1-9999 (a
 * year-1 time read in UTC+14 is in year 0, a 9999 one in UTC-12 in year 10000).
 */
export function storableWall(convert: () => WallTime): WallTime | null {
  try {
    const wall = convert()
    return isStorableWall(wall) ? wall : null
  } catch (err) {
    if (err instanceof RangeError) return null
    throw err
  }
}

/** Epoch milliseconds to a UTC wall time; sub-second precision is floored away. */
export function epochMsToUtcWall(ms: number): WallTime {
  const d = new Date(ms)
  const y = d.getUTCFullYear()
  if (Number.isNaN(y) || y < 0 || y > 9999) throw new RangeError(`Instant out of wall-time range: ${ms}`)
  return `${pad(y, 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
}

/** A UTC wall time to epoch milliseconds. */
export function utcWallToEpochMs(utc: WallTime): number {
  const [y, mo, d, h, mi, s] = parts(utc)
  const date = new Date(Date.UTC(2000, mo - 1, d, h, mi, s))
  // Date.UTC maps years 0-99 to 1900-1999, so the year is set separately.
  date.setUTCFullYear(y)
  return date.getTime()
}

/** The current instant as a UTC wall time; `now` is injected so callers stay deterministic. */
export function nowUtcWall(now: Date): WallTime {
  return epochMsToUtcWall(now.getTime())
}

/**
 * Conversions already made, by zone: a zone's rules do not change while the process runs, so
 * each answer is exact for good. An import converts every event's start and end, mostly the same
 * few hundred wall times of a season again and again, each conversion five Intl formats (a fifth
 * of the import's JavaScript at 1,000,000 events, issue 33). Bounded: a zone's table is dropped
 * whole when full (the next conversions fill it again).
 */
const MEMO_SIZE = 1024
/** Zones kept at most per direction (~120 bytes an entry): under 10 MB at worst, in the host's process. */
const MEMO_ZONES = 32
const toUtcMemos = new Map<string, Map<WallTime, WallTime>>()
const toWallMemos = new Map<string, Map<WallTime, WallTime>>()

/** `convert(time, tz)`, kept in `memos`' table of tz (made only once a conversion succeeded: a bad zone throws first). */
function memoised(memos: Map<string, Map<WallTime, WallTime>>, time: WallTime, tz: string, convert: (time: WallTime, tz: string) => WallTime): WallTime {
  let memo = memos.get(tz)
  const kept = memo?.get(time)
  if (kept !== undefined) return kept
  const converted = convert(time, tz)
  if (!memo || memo.size >= MEMO_SIZE) {
    if (!memo && memos.size >= MEMO_ZONES) memos.clear()
    memos.set(tz, (memo = new Map<WallTime, WallTime>()))
  }
  memo.set(time, converted)
  return converted
}

/** The wall clock `wall` read in zone tz, as UTC; a DST-gap time rolls forward by the gap (02:30 → 03:30), an overlap takes the earlier instant. */
export function wallToUtc(wall: WallTime, tz: string): WallTime {
  return memoised(toUtcMemos, wall, tz, convertWallToUtc)
}

function convertWallToUtc(wall: WallTime, tz: string): WallTime {
  assertZone(tz)
  const naiveMs = utcWallToEpochMs(wall)
  const fixed = fixedOffsetMinutes(tz)
  if (fixed !== null) return epochMsToUtcWall(naiveMs - fixed * 60_000)
  // Not `new TZDate(y, m, d, h, mi, s, tz)`: it goes through the process zone's local Date, so which
  // side of an overlap it lands on changes with TZ (seen: UTC host → EDT, Los Angeles host → EST).
  // This is Temporal's "compatible" disambiguation, computed from Intl offsets only.
  const DAY = 86_400_000
  const before = offsetMinutesAt(naiveMs - DAY, tz)
  const after = offsetMinutesAt(naiveMs + DAY, tz)
  const matches = [before, after]
    .map((offset) => naiveMs - Math.round(offset * 60_000))
    .filter((ms) => utcToWall(epochMsToUtcWall(ms), tz) === wall)
    .sort((a, b) => a - b)
  return epochMsToUtcWall(matches[0] ?? naiveMs - Math.round(before * 60_000))
}

/** The UTC instant `utc` as the wall clock shown in zone tz. */
export function utcToWall(utc: WallTime, tz: string): WallTime {
  // Most sites and events are in UTC; every serialized row converts several dates (hot path).
  if (tz === 'UTC' && isWallTime(utc)) return utc
  return memoised(toWallMemos, utc, tz, convertUtcToWall)
}

function convertUtcToWall(utc: WallTime, tz: string): WallTime {
  assertZone(tz)
  const ms = utcWallToEpochMs(utc)
  const fixed = fixedOffsetMinutes(tz)
  if (fixed !== null) return epochMsToUtcWall(ms + fixed * 60_000)
  if (!intlKnows(tz)) return moment.tz(ms, tz).format('YYYY-MM-DD HH:mm:ss')
  // The instant moved by the zone's offset, to the second, read as UTC fields.
  const z = new Date(ms - Math.round(-intlOffsetMinutes(tz, ms) * 60) * 1000)
  return `${pad(z.getUTCFullYear(), 4)}-${pad(z.getUTCMonth() + 1)}-${pad(z.getUTCDate())} ${pad(z.getUTCHours())}:${pad(z.getUTCMinutes())}:${pad(z.getUTCSeconds())}`
}

/** Minutes east of UTC of zone `tz` at instant `ms` (validated zones only). */
export function offsetMinutesAt(ms: number, tz: string): number {
  const fixed = fixedOffsetMinutes(tz)
  if (fixed !== null) return fixed
  if (intlKnows(tz)) return intlOffsetMinutes(tz, ms)
  // moment reports minutes west of UTC, the opposite sign of everything else here.
  return -(moment.tz.zone(tz)?.utcOffset(ms) ?? 0)
}

/** The zone's UTC offset at that instant as `±HH:MM` (LMT second-offsets are rounded to the minute). */
export function offsetString(utc: WallTime, tz: string): string {
  assertZone(tz)
  const minutes = Math.round(offsetMinutesAt(utcWallToEpochMs(utc), tz))
  const abs = Math.abs(minutes)
  return `${minutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}

/** ISO 8601 local time with offset, e.g. `2027-01-15T18:00:00-05:00`, as JSON-LD and feeds expect. */
export function toIsoWithOffset(utc: WallTime, tz: string): string {
  return `${utcToWall(utc, tz).replace(' ', 'T')}${offsetString(utc, tz)}`
}

/** The tz-database abbreviation in force at that instant (EST, CEST, +03); a `UTC±h` zone is its own name. */
export function timezoneAbbr(utc: WallTime, tz: string): string {
  assertZone(tz)
  if (fixedOffsetMinutes(tz) !== null) return tz
  const ms = utcWallToEpochMs(utc)
  const zone = moment.tz.zone(tz)
  if (zone) return zone.abbr(ms)
  // Zones only Intl knows (e.g. US/Pacific-New) get ICU's short name rather than nothing.
  const name = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'short' })
    .formatToParts(new Date(ms))
    .find((p) => p.type === 'timeZoneName')
  return name?.value ?? offsetString(utc, tz)
}

/** The wall time's fields as zero-padded strings, the shape the REST API exposes. */
export function dateDetails(wall: WallTime): { year: string; month: string; day: string; hour: string; minutes: string; seconds: string } {
  parts(wall)
  return {
    year: wall.slice(0, 4),
    month: wall.slice(5, 7),
    day: wall.slice(8, 10),
    hour: wall.slice(11, 13),
    minutes: wall.slice(14, 16),
    seconds: wall.slice(17, 19),
  }
}

/** Calendar-day arithmetic on a `YYYY-MM-DD` date, independent of any zone's DST. */
export function addDaysToDate(date: string, days: number): string {
  if (!DATE_RE.test(date) || !isWallTime(`${date} 00:00:00`)) throw new RangeError(`Invalid date: ${JSON.stringify(date)}`)
  return epochMsToUtcWall(utcWallToEpochMs(`${date} 00:00:00`) + days * 86_400_000).slice(0, 10)
}

/** Adds calendar months to a wall time, clamping the day to the target month's length (Jan 31 + 1 → Feb 28/29). */
export function addMonthsToWall(wall: WallTime, months: number): WallTime {
  const [y, mo, d] = parts(wall)
  const index = y * 12 + (mo - 1) + months
  const ny = Math.floor(index / 12)
  const nm = index - ny * 12 + 1
  if (ny < 0 || ny > 9999) throw new RangeError(`Result out of wall-time range: ${wall} + ${months} months`)
  return `${pad(ny, 4)}-${pad(nm)}-${pad(Math.min(d, daysInMonth(ny, nm)))}${wall.slice(10)}`
}

/** Timestamps as the database prints them (`2026-01-05 14:03:00` or JSON's `2026-01-05T14:03:00`). */
export function wallFromDb(value: string): WallTime {
  return value.replace('T', ' ').slice(0, 19)
}

/** Formats an instant as a UTC wall time (database parameter form). */
export function utcWall(date: Date): WallTime {
  return date.toISOString().slice(0, 19).replace('T', ' ')
}

/** `wall` moved by `days`, kept within the stored years. */
export function shiftWall(wall: WallTime, days: number): WallTime {
  const ms = utcWallToEpochMs(wall) + days * 86_400_000
  if (ms >= utcWallToEpochMs(MAX_WALL)) return MAX_WALL
  if (ms <= utcWallToEpochMs(MIN_WALL)) return MIN_WALL
  return epochMsToUtcWall(ms)
}

/** The UTC instant a wall clock of any zone can at most stand for (zones lie within UTC±14 h). */
export function latestUtcOf(wall: WallTime): WallTime {
  return shiftWall(wall, 1)
}

/** The UTC instant a wall clock of any zone can at least stand for. */
export function earliestUtcOf(wall: WallTime): WallTime {
  return shiftWall(wall, -1)
}
