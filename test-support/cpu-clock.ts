/** CPU milliseconds this process has used so far (user + system, all its threads). */
export function cpuNow(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/** What {@link watchLoopHold} saw between its start and `stop()`. */
export interface LoopHold {
  /** CPU milliseconds the process used meanwhile: the work done, whatever the machine's load. */
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
