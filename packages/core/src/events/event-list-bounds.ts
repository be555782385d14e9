import { parseTimeInput } from '../time/time-input.js'
import { addDaysToDate, addMonthsToWall, MAX_WALL, MIN_WALL, nowUtcWall, storableWall, utcToWall, wallToUtc } from '../time/wall-time.js'

// The date bounds of an event list request (CONTRACT 6.2, 6.3, 6.6). Pure: the clock, the site
// zone and the date-filter mode come in as values, so every rule is unit-tested across zones.

/** Bounds on the events' start/end, as wall clocks in the column's frame (CONTRACT 6.2). */
export interface DateBounds {
  startGte?: string
  endLte?: string
  startLt?: string
  startGt?: string
  endLt?: string
  endGt?: string
}

/** The request parameters that bound dates, as they arrive (already checked to be time inputs). */
export interface BoundParams {
  start_date?: unknown
  end_date?: unknown
  starts_before?: unknown
  starts_after?: unknown
  ends_before?: unknown
  ends_after?: unknown
  strict_dates?: unknown
  /** With `include`, no default window and no start/end date bounds apply (CONTRACT 6.4). */
  include?: unknown
}

/** What the bounds depend on besides the parameters. */
export interface BoundClock {
  now: Date
  /** The site's time zone, in which dates without an offset are read. */
  zone: string
  /** `event-local`: bounds are site wall clocks against the events' local columns; `utc`: UTC instants against the UTC columns (O-11). */
  mode: 'event-local' | 'utc'
}

const STRICT_WORDS = new Set(['1', 'true', 'yes', 'on'])

/** The calendar date a bound value names: its written date, or its UTC date for instants. */
function dayOf(raw: unknown, clock: BoundClock): string {
  const t = parseTimeInput(raw, { now: clock.now, zone: clock.zone })!
  return (t.kind === 'instant' ? t.utc : t.wall).slice(0, 10)
}

/** A strict bound: read as UTC unless it carries an offset, then seen in the site zone. */
function exactly(raw: unknown, clock: BoundClock): string {
  const t = parseTimeInput(raw, { now: clock.now, zone: 'UTC' })!
  const utc = t.kind === 'instant' ? t.utc : t.wall
  return storableWall(() => utcToWall(utc, clock.zone)) ?? (utc < '5000' ? MIN_WALL : MAX_WALL)
}

let lastWindow: { key: string; window: { from: string; to: string } } | undefined

/**
 * The default window of CONTRACT 6.3 (kept exactly, O-8): from the site-local date of yesterday
 * 23:59 UTC, to the end of the site-local day 24 months from now. Remembered for the second it was
 * computed in (the list computes it on every request).
 */
export function defaultWindow(now: Date, zone: string): { from: string; to: string } {
  const key = `${zone} ${Math.floor(now.getTime() / 1000)}`
  if (lastWindow?.key === key) return lastWindow.window
  const yesterdayLate = `${addDaysToDate(nowUtcWall(now).slice(0, 10), -1)} 23:59:00`
  const from = `${utcToWall(yesterdayLate, zone).slice(0, 10)} 00:00:00`
  const to = `${addMonthsToWall(utcToWall(nowUtcWall(now), zone), 24).slice(0, 10)} 23:59:59`
  lastWindow = { key, window: { from, to } }
  return lastWindow.window
}

/** Whether `strict_dates` asks for exact instants instead of whole days. */
export function isStrict(raw: unknown): boolean {
  return typeof raw === 'string' && STRICT_WORDS.has(raw.trim().toLowerCase())
}

/** Date bounds of a list request, as wall clocks in the frame of `clock.mode`. */
export function listBounds(input: BoundParams, clock: BoundClock): DateBounds {
  const strict = isStrict(input.strict_dates)
  const endOfDay = (raw: unknown) => (strict ? exactly(raw, clock) : `${dayOf(raw, clock)} 23:59:59`)
  const bounds: DateBounds = {}
  const rangeParams = ['starts_before', 'starts_after', 'ends_before', 'ends_after'] as const
  const anyRange = rangeParams.some((p) => input[p] !== undefined)
  if (input.include === undefined) {
    const defaults = anyRange ? undefined : defaultWindow(clock.now, clock.zone)
    if (input.start_date !== undefined) bounds.startGte = strict ? exactly(input.start_date, clock) : `${dayOf(input.start_date, clock)} 00:00:00`
    else if (defaults) bounds.startGte = defaults.from
    if (input.end_date !== undefined) bounds.endLte = endOfDay(input.end_date)
    else if (defaults) bounds.endLte = defaults.to
  }
  if (input.starts_before !== undefined) bounds.startLt = endOfDay(input.starts_before)
  if (input.starts_after !== undefined) bounds.startGt = endOfDay(input.starts_after)
  if (input.ends_before !== undefined) bounds.endLt = endOfDay(input.ends_before)
  if (input.ends_after !== undefined) bounds.endGt = endOfDay(input.ends_after)
  for (const key of Object.keys(bounds) as (keyof DateBounds)[]) {
    const wall = bounds[key]!
    // A bound past the stored years (year 1 in UTC+14 is year 0 in UTC) selects what the edge would.
    const placed = clock.mode === 'utc' ? storableWall(() => wallToUtc(wall, clock.zone)) : storableWall(() => wall)
    bounds[key] = placed ?? (wall < '5000' ? MIN_WALL : MAX_WALL)
  }
  return bounds
}
