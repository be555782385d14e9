import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Kysely } from 'kysely'
import type { DB } from '../db/generated.js'
import { invalidParams } from '../errors.js'
import { isOpenEnded, MAX_STORED_OCCURRENCES, occurrenceRows, storedHorizon, targetHorizon, type SeriesRow } from './occurrences.js'
import { utcWallToEpochMs, type WallTime, wallFromDb } from '../time/wall-time.js'
import { zoneClock } from '../time/zone-clock.js'

// Occurrences outside the stored span (issue 28, docs/recurrence.md "Past the horizon"): open-ended
// series are stored from 10,000 days before the horizon up to it; a list whose window reaches past
// either end computes the series' occurrences there for itself, and the list statement pages them
// with the stored ones. Nothing is stored, so no read, anonymous or not, grows the database, and
// every far window shows what the rules give.

/** Most occurrences one list request computes past the horizon; a window holding more is a 400. */
export const MAX_COMPUTED_OCCURRENCES = 5000
/**
 * Most CPU milliseconds one list request spends computing past the horizon; beyond, a 400 (CPU
 * time, not the wall clock: a loaded machine does not turn a window that fits into a refusal).
 */
export const COMPUTE_BUDGET_MS = 1000
/** Longest stretch the expansion holds the event loop before it yields (one chunk may run over). */
const SLICE_MS = 10
const DAY_MS = 86_400_000
/** A series is expanded a stretch at a time: the first stretch's length (then grown or shrunk to take about `SLICE_MS`). */
const FIRST_SPAN_MS = 32 * DAY_MS

/** One computed occurrence, as the list statement reads it (`jsonb_to_recordset`): series, key, times. */
export interface ComputedOccurrence {
  i: number
  k: string
  sl: WallTime
  el: WallTime
  su: WallTime
  eu: WallTime
}

/** The 400 of a far window beyond the bound, on the date parameters the caller sent. */
function tooFar(dateParams: readonly string[], stored: { fromMs: number; toMs: number }, why: string) {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
  const reason =
    `Occurrences of repeating events before ${day(stored.fromMs)} or after ${day(stored.toMs)} (UTC) are computed for each request, ` +
    `and this window ${why}: ask for a shorter window or narrower filters.`
  const names = dateParams.length > 0 ? dateParams : ['end_date']
  return invalidParams(Object.fromEntries(names.map((name) => [name, reason])))
}

/**
 * Where open-ended series are surely stored (UTC ms, inclusive): up to the horizon this process
 * saw, and from 10,000 days before the latest horizon any write could have used (now's target; a
 * series written under it is stored from then on). Computing a little inside it only repeats
 * stored occurrences, which the list statement drops.
 */
function storedSpan(horizon: WallTime, now: Date): { fromMs: number; toMs: number } {
  const toMs = utcWallToEpochMs(horizon)
  const latest = Math.max(toMs, utcWallToEpochMs(targetHorizon(now)))
  return { fromMs: latest - MAX_STORED_OCCURRENCES * DAY_MS, toMs }
}

/**
 * The occurrences of the open-ended series `seriesUntil` reads that start in `window` (UTC, inclusive)
 * outside the stored span: after the stored horizon, and, when the window has a lower bound,
 * before the first day any series is stored from. Computed, never stored; `undefined` when the
 * window lies within the span (then no statement is run: the common window costs nothing more).
 * `seriesUntil(untilUtc)` reads the series a list's own filters select (events/event-list-query.ts). At most
 * `MAX_COMPUTED_OCCURRENCES` and `COMPUTE_BUDGET_MS` of work, yielding to the event loop every
 * `SLICE_MS`; beyond either, `400 rest_invalid_param` on `dateParams`. Occurrences stored anyway
 * (changed ones past the horizon, or a horizon moved meanwhile) are dropped by the list statement.
 */
export async function farOccurrences(
  db: Kysely<DB>,
  seriesUntil: (untilUtc: WallTime) => Promise<SeriesRow[]>,
  window: { from: WallTime | undefined; to: WallTime },
  dateParams: readonly string[],
  now: Date,
): Promise<ComputedOccurrence[] | undefined> {
  const horizon = await storedHorizon(db)
  if (horizon === null) return undefined
  const stored = storedSpan(horizon, now)
  const fromMs = window.from ? utcWallToEpochMs(window.from) : undefined
  const toMs = utcWallToEpochMs(window.to)
  // Before the span only for a window with a lower bound: without one, lists show the stored
  // occurrences of the past, as they always did (expanding back to a series' start would not fit).
  const ranges: [number, number][] = []
  if (fromMs !== undefined && fromMs < stored.fromMs) ranges.push([fromMs, Math.min(toMs, stored.fromMs - 1000)])
  if (toMs > stored.toMs) ranges.push([Math.max(stored.toMs + 1000, fromMs ?? -Infinity), toMs])
  if (ranges.length === 0) return undefined
  const series = (await seriesUntil(window.to)).filter((s) => s.recurrence && isOpenEnded(s.recurrence))
  const found: ComputedOccurrence[] = []
  let work = 0
  let slice = 0
  /** Adds the occurrences of `s` in [fromMs, toMs], a stretch at a time, yielding every `SLICE_MS`. */
  const expand = async (s: SeriesRow, clock: (wall: WallTime) => WallTime, fromMs: number, toMs: number) => {
    let span = FIRST_SPAN_MS
    for (let at = fromMs; at <= toMs; ) {
      const end = Math.min(at + span - 1000, toMs)
      const started = performance.now()
      const cpu = process.cpuUsage()
      let rows: ReturnType<typeof occurrenceRows>
      try {
        rows = occurrenceRows(s, new Date(at), new Date(end), MAX_COMPUTED_OCCURRENCES + 1, clock)
      } catch {
        // The engine gave up (its step limit): a rule too sparse for this window to be computed here.
        throw tooFar(dateParams, stored, 'needs more work than a request is given')
      }
      const took = performance.now() - started
      const used = process.cpuUsage(cpu)
      work += (used.user + used.system) / 1000
      slice += took
      for (const r of rows) found.push({ i: r.series_id, k: r.occurrence_key, sl: r.start_local, el: r.end_local, su: r.start_utc, eu: r.end_utc })
      if (found.length > MAX_COMPUTED_OCCURRENCES) throw tooFar(dateParams, stored, `holds more than ${MAX_COMPUTED_OCCURRENCES.toLocaleString('en')} occurrences of them`)
      if (work > COMPUTE_BUDGET_MS) throw tooFar(dateParams, stored, 'needs more work than a request is given')
      if (slice >= SLICE_MS) {
        await nextTurn()
        slice = 0
      }
      // Stretches of about a slice's work: a weekly rule takes years at once, a daily one weeks.
      span = took < SLICE_MS / 4 ? span * 2 : took > SLICE_MS ? Math.max(DAY_MS, span / 2) : span
      at = end + 1000
    }
  }
  // One clock per zone for the request: the series of a calendar share few zones.
  const clocks = new Map<string, ReturnType<typeof zoneClock>>()
  for (const s of series) {
    let clock = clocks.get(s.timezone)
    if (!clock) clocks.set(s.timezone, (clock = zoneClock(s.timezone)))
    // Nothing before the series' start (a day early: all-day and `UTC±h` series run on a UTC clock).
    const first = utcWallToEpochMs(wallFromDb(s.start_utc)) - DAY_MS
    for (const [from, to] of ranges) if (to >= first) await expand(s, clock, Math.max(from, first), to)
    // Between series too, so that no request holds the loop for long whatever the rules.
    await nextTurn()
    slice = 0
  }
  return found
}
