import { performance } from 'node:perf_hooks'

// Feed builds are background work (issue 28). Their database reads come back on the event loop
// (each page's rows decoded, handed to the worker, the text written out), about 150 ms of it per
// 20,000-event feed, and uncached feeds can be asked for back to back: on the bench machine four
// clients doing so kept one build going at all times and cost the default list beside them 29 %
// of its rate, the event loop being what the list is short of. So a build reads its next page at
// once while the loop is idle, and, while the loop is busy with other work, first rests about as
// long as the last page took: a build takes longer when the process has other things to do, and
// other requests get the loop back.

/** Event loop utilization (0-1) over the last page above which a build rests before the next. */
export const BUSY_LOOP = 0.5
/** Longest rest between two pages of a build. */
export const MAX_REST_MS = 250

/** What the pace reads: the event loop's utilization since the last mark, and the time. */
export interface PaceClock {
  /** Starts a new interval; `since()` answers the utilization (0-1) of the event loop since then. */
  mark(): { since(): number }
  now(): number
  sleep(ms: number): Promise<void>
}

const hasElu = typeof performance.eventLoopUtilization === 'function'

/** The process's own event loop (no utilization where the runtime cannot tell: never rests). */
export const LOOP_CLOCK: PaceClock = {
  mark() {
    const start = hasElu ? performance.eventLoopUtilization() : undefined
    return { since: () => (start ? performance.eventLoopUtilization(start).utilization : 0) }
  },
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
}

/** The pace of one build: `next()` before each page after the first. */
export function feedPace(clock: PaceClock = LOOP_CLOCK): { next(): Promise<void> } {
  let interval = clock.mark()
  let since = clock.now()
  return {
    async next() {
      const busy = interval.since()
      const took = clock.now() - since
      if (busy > BUSY_LOOP) await clock.sleep(Math.min(MAX_REST_MS, took * busy))
      interval = clock.mark()
      since = clock.now()
    },
  }
}
