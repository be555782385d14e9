import { setFlagsFromString } from 'node:v8'

/**
 * V8 garbage-collector settings for this server's allocation pattern (many requests in flight,
 * each holding a page of rows for a few milliseconds), measured with `pnpm bench` (BENCHMARKS.md):
 * - no allocation-site pretenuring: V8 saw row and request objects outlive a scavenge and began
 *   allocating them straight in old space, so short-lived garbage filled old space and forced
 *   mark-compacts;
 * - old space may grow to 2x its live size between mark-compacts (V8 otherwise allows up to 4x
 *   when collection looks cheap, which put RSS over 200 MB for a 30 MB live heap).
 * Both are read at collection time, so setting them before the server starts is enough.
 * `CAL_GC_TUNING=0` leaves V8's defaults.
 */
export const GC_FLAGS = ['--no-allocation-site-pretenuring', '--heap-growing-percent=100'] as const

/** Applies `GC_FLAGS` unless `CAL_GC_TUNING=0`. */
export function applyGcTuning(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.CAL_GC_TUNING === '0') return false
  for (const flag of GC_FLAGS) setFlagsFromString(flag)
  return true
}
