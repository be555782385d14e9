import type { Kysely } from 'kysely'
import type { CallContext } from '../api/context.js'
import { checkChanges, takePoint, type ChangePoint } from '../changes/change-log.js'
import type { DB } from '../db/generated.js'
import { NOT_MODIFIED_HEADERS, noneMatchHits } from './conditional.js'
import type { CalendarResponse } from './request.js'

// The hot-read cache (issue 18 item 4, docs/response-cache.md). Anonymous JSON reads are kept with
// the change-log point (`change-log.ts`) taken BEFORE their data was read; a kept answer is served
// only after one statement, run for this very request, finds no change of any kind since that
// point. Why that is exact:
// - The point P is taken in a statement that ends before the operation's first read starts, so
//   every read of the answer ran at a snapshot at or after P. A write the answer does not show
//   committed after P, so "changed since P" is true for it, whichever process or connection wrote.
// - The check runs in a statement S that starts after the request arrived. A write acknowledged
//   before the request started is committed at S; if it is not visible in P, S finds its log row.
//   So a kept answer is served only when every write committed at S was already visible in P,
//   and then what P's reads returned is what a read at S would return.
// - A check is shared only by requests that arrived before its statement was sent (they join it
//   while it waits for a pool connection), so S still starts after each of them arrived.
// - After a check that finds nothing, S becomes the entry's point (nothing changed between P and
//   S), so the log range the next check scans stays short.
// - The clock: an answer whose operation read the request's clock (`ctx.now`, the default date
//   window, `only_with_upcoming`, relative dates) is served only within the clock slot it was made
//   in: the UTC minute when the default window is all it could depend on (its bounds are dates in
//   the site zone, which change on whole minutes), else the second (times are kept to the second).

/** Bounds of the hot-read cache (`responseCache` option of `createCalendar`). */
export interface ResponseCacheOptions {
  /** Approximate memory for kept answers: characters of body and headers, plus a fixed cost per entry. */
  maxBytes: number
  /** Most answers kept. */
  maxEntries: number
}

/** The default: on, 32 MB, 10,000 answers. */
export const DEFAULT_RESPONSE_CACHE: ResponseCacheOptions = Object.freeze({ maxBytes: 32 * 1024 * 1024, maxEntries: 10_000 })

/** Per-entry bookkeeping counted against `maxBytes` besides the text (key, headers object, point). */
const ENTRY_OVERHEAD = 512

/** Parameters whose values may be relative to now, or make a bound exact to the second. */
const SECOND_PARAMS = ['start_date', 'end_date', 'starts_before', 'starts_after', 'ends_before', 'ends_after', 'strict_dates', 'only_with_upcoming']

/**
 * Requests never kept: a `password` guess is counted per client (event.operations.ts); a sync answer
 * also depends on how far the change log was pruned (410 for a token older than that), which a
 * prune changes without a log row the check could see.
 */
const BYPASS_PARAMS = ['password', 'sync', 'sync_token', 'sync_page']

const MINUTE_MS = 60_000
const SECOND_MS = 1000

interface Entry {
  status: number
  headers: Record<string, string>
  text: string
  etag: string
  /** Taken before the data was read; moved forward by checks that found nothing. */
  point: ChangePoint
  /** The clock slot the answer holds for, when its operation read the clock. */
  clock: { unit: number; slot: number } | undefined
  size: number
  /** The body parsed back, for callers of `handle` that read `body` (memoised). */
  parsed?: unknown
}

/** One request's way through the cache: check for a kept answer, else keep the one made. */
export interface CacheSlot {
  /** The kept answer when nothing changed since it was made (`If-None-Match` answered), else `undefined`. */
  fresh(ifNoneMatch: string | undefined): Promise<CalendarResponse | undefined>
  /** `ctx` with its clock watched: what the answer's validity in time depends on. */
  watch(ctx: CallContext): CallContext
  /** Keeps a 200 answer made after `fresh` (no-op when the request is not kept). */
  keep(status: number, headers: Record<string, string>, text: string): void
}

/** The parts of a request that decide an anonymous answer besides the route. */
export interface CacheKeyParts {
  namespace: string
  origin: string | undefined
  mountPath: string | undefined
  /** The cleaned path under our namespace. */
  path: string
  /** The raw query string, as sent (its order reaches `rest_url`s of the answer). */
  query: string
  /** The parsed query. */
  params: Record<string, unknown>
}

/** The hot-read cache of one calendar. */
export interface ResponseCache {
  /** The slot of an anonymous GET/HEAD, or `undefined` when such a request is never kept. */
  slot(parts: CacheKeyParts): CacheSlot | undefined
  /** What is kept now (tests, metrics). */
  stats(): { entries: number; bytes: number }
}

/** Creates the cache, or returns `undefined` when it is off. */
export function createResponseCache(options: ResponseCacheOptions | false, db: Kysely<DB>, now: () => Date): ResponseCache | undefined {
  if (options === false) return undefined
  const { maxBytes, maxEntries } = options
  // Map order is recency: a hit moves its entry to the end, eviction takes from the front.
  const entries = new Map<string, Entry>()
  // Keys asked once. An answer is kept from its second request on, so that one-off URLs (a new date
  // window per request) cost no extra statement for the point.
  const seen = new Map<string, true>()
  let bytes = 0

  const drop = (key: string) => {
    const entry = entries.get(key)
    if (!entry) return
    entries.delete(key)
    bytes -= entry.size
  }

  // Checks of an entry that have not started yet. A request that arrives while one is waiting for
  // a connection joins it: the check's statement starts after the request arrived, so it sees
  // every write acknowledged before that. Once its connection is acquired, newcomers start their own.
  const waiting = new Map<string, { entry: Entry; result: Promise<{ changed: boolean; now: ChangePoint }> }>()

  function sharedCheck(key: string, entry: Entry): Promise<{ changed: boolean; now: ChangePoint }> {
    const queued = waiting.get(key)
    if (queued?.entry === entry) return queued.result
    const check = {
      entry,
      result: db.connection().execute((connection) => {
        if (waiting.get(key) === check) waiting.delete(key)
        return checkChanges(connection, entry.point)
      }),
    }
    waiting.set(key, check)
    // A failed check (database away) fails its requests; it must not linger as a waiting one.
    check.result.catch(() => {}).finally(() => waiting.get(key) === check && waiting.delete(key))
    return check.result
  }

  const current = (entry: Entry) => entry.clock === undefined || Math.floor(now().getTime() / entry.clock.unit) === entry.clock.slot

  function answerFrom(entry: Entry, ifNoneMatch: string | undefined): CalendarResponse {
    if (noneMatchHits(ifNoneMatch, entry.etag)) {
      const kept: Record<string, string> = {}
      for (const name of NOT_MODIFIED_HEADERS) if (entry.headers[name] !== undefined) kept[name] = entry.headers[name]
      return { status: 304, headers: kept, body: undefined }
    }
    return {
      status: entry.status,
      headers: { ...entry.headers },
      text: entry.text,
      // Adapters send `text`; a caller of `handle` that reads `body` gets it parsed back once.
      get body() {
        return (entry.parsed ??= JSON.parse(entry.text))
      },
    }
  }

  return {
    stats: () => ({ entries: entries.size, bytes }),
    slot(parts) {
      if (BYPASS_PARAMS.some((name) => parts.params[name] !== undefined)) return undefined
      const key = `${parts.namespace}\n${parts.origin ?? ''}\n${parts.mountPath ?? ''}\n${parts.path}\n${parts.query}`
      const secondGrained = SECOND_PARAMS.some((name) => parts.params[name] !== undefined)
      let point: ChangePoint | undefined
      let clockRead: Date | undefined
      return {
        async fresh(ifNoneMatch) {
          const entry = entries.get(key)
          if (!entry) {
            if (!seen.has(key)) {
              seen.set(key, true)
              if (seen.size > maxEntries) seen.delete(seen.keys().next().value!)
              return undefined
            }
            point = await takePoint(db)
            return undefined
          }
          const check = await sharedCheck(key, entry)
          point = check.now
          if (check.changed || !current(entry)) {
            if (entries.get(key) === entry) drop(key)
            return undefined
          }
          if (entries.get(key) === entry) {
            entry.point = check.now
            entries.delete(key)
            entries.set(key, entry)
          }
          return answerFrom(entry, ifNoneMatch)
        },
        watch(ctx) {
          if (point === undefined) return ctx
          return Object.defineProperty({ ...ctx }, 'now', {
            enumerable: true,
            get: () => (clockRead = ctx.now),
          })
        },
        keep(status, headers, text) {
          if (point === undefined || headers.ETag === undefined) return
          const size = text.length + ENTRY_OVERHEAD + Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length, 0)
          if (size > maxBytes / 16) return // one huge page must not flush everything else
          const unit = secondGrained ? SECOND_MS : MINUTE_MS
          const clock = clockRead === undefined ? undefined : { unit, slot: Math.floor(clockRead.getTime() / unit) }
          drop(key)
          entries.set(key, { status, headers: { ...headers }, text, etag: headers.ETag, point, clock, size })
          bytes += size
          for (const oldest of entries.keys()) {
            if (bytes <= maxBytes && entries.size <= maxEntries) break
            drop(oldest)
          }
        },
      }
    },
  }
}
