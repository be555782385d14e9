import { CalendarError } from '../errors.js'

/**
 * How many wrong guesses one key may make per window: a wrong event password per (event, client)
 * (issue 15 item 5), a failed login per client (issue 28).
 */
export interface GuessLimit {
  readonly attempts: number
  readonly windowMs: number
  /** Most keys remembered at once; the oldest are forgotten first. */
  readonly maxKeys: number
}

interface Window {
  failures: number
  resetAt: number
}

/** A bounded in-memory counter of wrong password guesses per key, in fixed windows. */
export interface GuessLimiter {
  /** Throws the 429 when `key` has used up its window's guesses. */
  check(key: string, nowMs: number): void
  /** Counts one wrong guess for `key`. */
  fail(key: string, nowMs: number): void
  /** Keys remembered now (for tests of the bound). */
  readonly size: number
}

const passwordMessage = (seconds: number) => `Too many password attempts for this event; try again in ${seconds} seconds.`

/**
 * A limiter holding at most `limit.maxKeys` keys: memory stays bounded whatever clients send.
 * `message` words the 429 for what is guessed (default: an event's password).
 */
export function createGuessLimiter(limit: GuessLimit, message: (seconds: number) => string = passwordMessage): GuessLimiter {
  // Map order is insertion order, and a key is re-inserted when its window starts, so the front
  // holds the windows that started first: expired ones are dropped from there, then the oldest.
  const windows = new Map<string, Window>()
  function current(key: string, nowMs: number): Window | undefined {
    const w = windows.get(key)
    if (w && w.resetAt <= nowMs) {
      windows.delete(key)
      return undefined
    }
    return w
  }
  function makeRoom(nowMs: number): void {
    for (const [key, w] of windows) {
      if (windows.size < limit.maxKeys) return
      if (w.resetAt <= nowMs) windows.delete(key)
      else break
    }
    while (windows.size >= limit.maxKeys) windows.delete(windows.keys().next().value!)
  }
  return {
    check(key, nowMs) {
      const w = current(key, nowMs)
      if (w && w.failures >= limit.attempts) {
        const seconds = Math.max(1, Math.ceil((w.resetAt - nowMs) / 1000))
        throw new CalendarError('TOO_MANY_REQUESTS', message(seconds), {
          retry_after: seconds,
        })
      }
    },
    fail(key, nowMs) {
      const w = current(key, nowMs)
      if (w) {
        w.failures += 1
        return
      }
      makeRoom(nowMs)
      windows.set(key, { failures: 1, resetAt: nowMs + limit.windowMs })
    },
    get size() {
      return windows.size
    },
  }
}
