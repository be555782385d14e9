import type { FeedOptions } from '../config/service-options.js'
import { CalendarError } from '../errors.js'
import { readCovers, type ChangeValidator, type Check } from '../http/response-cache.js'
import { answerSize, ByteLru } from '../http/byte-lru.js'
import { createFeedWorkers, type FeedWorkers } from './feed-workers.js'

// Feeds bounded (issue 28 item 4, docs/ical.md "Bounds and the shared answer"). Building a feed is
// the most expensive read there is (25,000 events: seconds of CPU and tens of MB), and anyone may
// ask for one. So: few builds at a time (a small queue, then 503 with Retry-After), one kept answer
// per query and caller shared by every poll while the change log shows no write since it was read
// (the hot-read cache's check chain, `http/response-cache.ts`), and an identical request that
// arrives while its feed is being built waits for that build instead of starting another.

/** A built feed as sent and kept: its headers (validators included) and its text in chunks. */
export interface FeedAnswer {
  readonly headers: Readonly<Record<string, string>>
  readonly chunks: readonly string[]
}

/** Feed builds of one calendar: the bound, the kept answers. */
export interface FeedBuilds {
  readonly options: FeedOptions
  /**
   * The kept answer for `key` when the change log shows no write since it was read (one shared
   * check); first waits for a build of the same key that is under way. `undefined`: build it.
   */
  kept(key: string): Promise<FeedAnswer | undefined>
  /**
   * Runs `make` in a build slot (a `FEED_BUSY` error when none comes free in time), after a check
   * whose point precedes everything `make` reads; `keep(answer)` keeps its answer for `key`
   * (not when `readPosition`, the replica `make` reads on, is behind that point).
   */
  build<T>(key: string, make: (keep: (answer: FeedAnswer) => void) => Promise<T>, readPosition?: bigint): Promise<T>
  /** What is kept and running now (tests, metrics). */
  stats(): { entries: number; bytes: number; building: number; waiting: number }
  /** The worker threads that build the text; `undefined` with `workers: 0`. */
  readonly workers: FeedWorkers | undefined
  /** Stops the worker threads (the calendar's `close()`). */
  close(): Promise<void>
}

interface Entry {
  answer: FeedAnswer
  /** The check whose snapshot precedes the answer's reads. */
  base: number
  size: number
}

/** The 503 of a build that found no slot: in the contract's error shape, with when to try again. */
function busy(retryAfterSeconds: number): CalendarError {
  return new CalendarError('FEED_BUSY', `Too many feeds are being built; try again in ${retryAfterSeconds} seconds.`, { retry_after: retryAfterSeconds })
}

/** At most `concurrency` holders at once, `queue` more waiting at most `queueWaitMs` each. */
function createLimiter(o: Pick<FeedOptions, 'concurrency' | 'queue' | 'queueWaitMs'>) {
  let active = 0
  const waiting: { grant: () => void }[] = []
  const retryAfter = Math.max(1, Math.ceil(o.queueWaitMs / 1000))
  const release = () => {
    const next = waiting.shift()
    // A waiter takes the slot over: `active` stays as it is.
    if (next) next.grant()
    else active--
  }
  const once = () => {
    let done = false
    return () => {
      if (done) return
      done = true
      release()
    }
  }
  return {
    active: () => active,
    waiting: () => waiting.length,
    acquire(): Promise<() => void> {
      if (active < o.concurrency) {
        active++
        return Promise.resolve(once())
      }
      if (waiting.length >= o.queue) return Promise.reject(busy(retryAfter))
      return new Promise((resolve, reject) => {
        const waiter = {
          grant: () => {
            clearTimeout(timer)
            resolve(once())
          },
        }
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(waiter), 1)
          reject(busy(retryAfter))
        }, o.queueWaitMs)
        waiting.push(waiter)
      })
    },
  }
}

/** Creates the feed builds of a calendar over its shared check chain. */
export function createFeedBuilds(options: FeedOptions, validator: ChangeValidator): FeedBuilds {
  const limiter = createLimiter(options)
  const workers = options.workers > 0 ? createFeedWorkers(options.workers) : undefined
  const entries = new ByteLru<Entry>(options.cacheBytes)
  const building = new Map<string, Promise<void>>()

  validator.onChange((through) => entries.dropWhere((entry) => entry.base <= through))

  function keep(key: string, answer: FeedAnswer, point: Check) {
    // A check since the point found a change: the answer may already be stale.
    if (options.cacheBytes === 0 || point.seq <= validator.staleThrough()) return
    const size = answerSize(answer.chunks.reduce((n, chunk) => n + chunk.length, 0), answer.headers)
    // One huge feed must not flush every other one.
    if (size > options.cacheBytes / 2) return
    entries.set(key, { answer, base: point.seq, size })
  }

  return {
    options,
    workers,
    close: async () => workers?.close(),
    stats: () => ({ entries: entries.count, bytes: entries.bytes, building: limiter.active(), waiting: limiter.waiting() }),
    async kept(key) {
      await building.get(key)
      const entry = entries.get(key)
      if (!entry) return undefined
      await validator.next()
      if (!entries.holds(key, entry) || entry.base <= validator.staleThrough()) return undefined
      entries.touch(key, entry)
      return entry.answer
    },
    async build(key, make, readPosition) {
      const release = await limiter.acquire()
      let done!: () => void
      const flight = new Promise<void>((resolve) => (done = resolve))
      building.set(key, flight)
      try {
        const point = await validator.next()
        return await make((answer) => {
          if (readCovers(point, readPosition)) keep(key, answer, point)
        })
      } finally {
        if (building.get(key) === flight) building.delete(key)
        done()
        release()
      }
    },
  }
}
