import { readFileSync } from 'node:fs'

/**
 * Reads the calling thread's CPU nanoseconds (Linux: the first field of /proc/thread-self/schedstat,
 * nanoseconds on the CPU). A synchronous read, so the thread that reads is the thread measured (an
 * async read would run on libuv's pool). `undefined` where there is no such file.
 */
function threadCpuNs(): number | undefined {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0])
  } catch {
    return undefined
  }
}

const perThread = threadCpuNs() !== undefined

/**
 * CPU milliseconds the calling thread (the event loop's) has used so far. Only its own: a feed
 * worker, V8's collector threads or libuv's pool working meanwhile do not count, so a test tells
 * work on the event loop from work beside it. Elsewhere than Linux: the process's (all threads).
 */
export function cpuNow(): number {
  if (perThread) return threadCpuNs()! / 1e6
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/** What {@link watchLoopHold} saw between its start and `stop()`. */
export interface LoopHold {
  /** CPU milliseconds the event loop's thread used meanwhile: the work done on it, whatever the machine's load. */
  cpuMs: number
  /** Longest CPU stretch between two ticks of the timer: the longest the event loop was held. */
  longestHoldMs: number
}

/**
 * Measures how long the event loop is held, in CPU time rather than wall time. Under parallel test
 * files on a loaded machine the OS delays every timer (wall-time loop delay reads seconds) without
 * any code of ours holding the loop; a synchronous stretch of work shows as CPU time between two
 * ticks whatever the load.
 */
export function watchLoopHold(tickMs = 10): { stop(): LoopHold } {
  const started = cpuNow()
  let last = started
  let longest = 0
  const ticker = setInterval(() => {
    const now = cpuNow()
    longest = Math.max(longest, now - last)
    last = now
  }, tickMs)
  let seen: LoopHold | undefined
  return {
    /** Stops the timer and answers what it saw (the same answer on every later call). */
    stop() {
      if (seen) return seen
      clearInterval(ticker)
      const now = cpuNow()
      seen = { cpuMs: now - started, longestHoldMs: Math.max(longest, now - last) }
      return seen
    },
  }
}
