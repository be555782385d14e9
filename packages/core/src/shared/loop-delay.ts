import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks'

// The event loop's delay, measured for the whole process (issue 28 item 5). Embedded, the calendar
// shares the host's event loop: a request that holds it is the host's outage, so probes and metrics
// show how late the loop has been lately. One monitor per process, whichever calendars run in it.

/** How long one window of the monitor lasts; a report covers the current window and the one before. */
export const LOOP_WINDOW_MS = 10_000

/** Sampling resolution of `monitorEventLoopDelay` (its default): delays shorter than this read as 0. */
const RESOLUTION_MS = 10

/** The event loop's delay over the last 10 to 20 seconds, in milliseconds. */
export interface EventLoopDelay {
  /** How many seconds the figures cover (the window so far plus the one before it). */
  readonly windowSeconds: number
  /** The longest the loop was late to run a timer in that time. */
  readonly maxDelayMs: number
  /** The 99th percentile of its delays (of each of the two windows, the larger). */
  readonly p99DelayMs: number
  readonly meanDelayMs: number
}

interface Window {
  max: number
  p99: number
  sum: number
  count: number
  startedMs: number
}

const NS_PER_MS = 1e6

let histogram: IntervalHistogram | undefined
let previous: Window | undefined
let startedMs = 0

function read(h: IntervalHistogram): Window {
  // An empty histogram reports max 0 and mean NaN.
  const count = h.count
  return { max: h.max / NS_PER_MS, p99: count > 0 ? h.percentile(99) / NS_PER_MS : 0, sum: count > 0 ? (h.mean / NS_PER_MS) * count : 0, count, startedMs }
}

/**
 * Starts the process's event-loop monitor if it is not running yet (a calendar does at creation).
 * Its timers do not keep the process alive.
 */
export function startLoopMonitor(): void {
  if (histogram) return
  histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
  histogram.enable()
  startedMs = Date.now()
  const rotate = setInterval(() => {
    previous = read(histogram!)
    histogram!.reset()
    startedMs = Date.now()
  }, LOOP_WINDOW_MS)
  rotate.unref()
}

const round = (ms: number) => Math.round(ms * 10) / 10

/** The event loop's delay over the last 10 to 20 seconds (the monitor starts on the first call if need be). */
export function eventLoopDelay(): EventLoopDelay {
  startLoopMonitor()
  const current = read(histogram!)
  const windows = previous ? [previous, current] : [current]
  const count = windows.reduce((n, w) => n + w.count, 0)
  return {
    windowSeconds: Math.max(1, Math.round((Date.now() - windows[0]!.startedMs) / 1000)),
    maxDelayMs: round(Math.max(...windows.map((w) => w.max))),
    p99DelayMs: round(Math.max(...windows.map((w) => w.p99))),
    meanDelayMs: round(count > 0 ? windows.reduce((n, w) => n + w.sum, 0) / count : 0),
  }
}
