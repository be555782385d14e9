import { brotliCompressSync, constants as zlibConstants, deflateSync, gzipSync } from 'node:zlib'
import type { Kysely } from 'kysely'
import type { RequestClock } from '../api/context.js'
import type { CacheRules } from '../api/policy.js'
import type { ResponseCacheOptions } from '../config/service-options.js'
import { changeCheckText, changeKindsOf, checkChanges, ORIGIN_POINT, type ChangeCheck, type ChangeKind, type ChangePoint } from '../changes/change-log.js'
import { parseLsn } from '../db/replicas.js'
import type { DB } from '../db/generated.js'
import { answerSize, ByteLru } from './byte-lru.js'
import { noneMatchHits, notModifiedHeaders } from './conditional.js'
import type { CalendarResponse } from './request.js'

// The hot-read cache (issue 18 item 4, docs/response-cache.md). Anonymous JSON reads are kept with
// the change-log point (`change-log.ts`) taken BEFORE their data was read; a kept answer is served
// only after a statement that started after the request arrived found no change of any kind since a
// point at or after the answer's. Why that is exact (the full argument is in the doc):
// - The point P is taken in a statement that ends before the operation's first read starts, so
//   every read of the answer ran at a snapshot at or after P. A write the answer does not show
//   committed after P, so "changed since P" is true for it, whichever process or connection wrote.
// - One chain of checks for the whole cache (`ChangeValidator`), numbered as they start, at most
//   two in flight, their results taken in number order: check n asks "changed since" the snapshot
//   of the latest check taken when it was sent, and its own snapshot is G(n). An answer's point is
//   the snapshot of the check it waited for (its `base`, b). A check k that finds a change makes
//   answers with base <= k-1 stale; a write an answer served after check n does not show is found
//   by some check above b taken before n (the doc walks the chain back): the answer is what a read
//   at G(n) would return. A check that finds a change drops every answer it covered that reads what changed:
//   the check names the kinds of change (`checkChanges`), an answer keeps the kinds its operation
//   declares it reads (`OperationPolicy.reads`), so a category list outlives a venue's edit.
// - A request waits for a check whose statement is sent after it arrived (it joins the next check
//   while that one still waits for a connection), so a write acknowledged before the request
//   started is committed at that check's snapshot.
// - The clock: an answer whose operation read the request's clock (`ctx.clock.now()`, the default date
//   window, `only_with_upcoming`, relative dates) is served only within the clock slot it was made
//   in: the UTC minute when the default window is all it could depend on (its bounds are dates in
//   the site zone, which change on whole minutes), else the second (times are kept to the second).

const MINUTE_MS = 60_000
/**
 * Change checks sent at once (`createChangeValidator`). With one, a hit waited for the check in
 * flight to end before its own was sent: about one and a half round trips, and behind a pooler
 * each round trip is longer. With two, the cached list's rate doubled on a direct connection and
 * rose a fifth to a half behind PgBouncer (`pnpm --filter @cal-events/bench pooler`, 2026-11-28);
 * three or four gained nothing over two (BENCHMARKS.md).
 */
const CHECKS_IN_FLIGHT = 2
const SECOND_MS = 1000

/** Encodings a host may ask a kept body in (`KeptAnswer.encoded`). */
export type BodyEncoding = 'br' | 'gzip' | 'deflate'

interface Entry {
  key: string
  status: number
  headers: Record<string, string>
  text: string
  etag: string
  /** The number of the check whose snapshot is the answer's point (taken before its data was read). */
  base: number
  /** The kinds of change that make it stale: those of what its operation declares it reads. */
  kinds: readonly ChangeKind[]
  /** The clock slot the answer holds for, when its operation read the clock. */
  clock: { unit: number; slot: number } | undefined
  size: number
  /** The body parsed back, for callers of `handle` that read `body` (memoised). */
  parsed?: unknown
  /** The body as UTF-8 bytes and in the encodings asked so far (memoised for the fast path). */
  bytes?: Buffer
  encodings?: Partial<Record<BodyEncoding, Buffer>>
  /** What the dispatcher derives once per entry for the fast path (finished headers). */
  wire?: unknown
}

/** A kept answer found valid for a request (`ResponseCache.fresh`): what the fast path sends. */
export interface KeptAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly etag: string
  /** The body as UTF-8 bytes (made once per kept answer). */
  bytes(): Buffer
  /** The body compressed with `encoding` (made once per kept answer and encoding). */
  encoded(encoding: BodyEncoding): Buffer
  /** A value derived from this answer by `make`, made once and kept with it. */
  derived<T>(make: () => T): T
}

/** One request's way through the cache: check for a kept answer, else keep the one made. */
export interface CacheSlot {
  /** The kept answer when nothing changed since it was made (`If-None-Match` answered), else `undefined`. */
  fresh(ifNoneMatch: string | undefined): Promise<CalendarResponse | undefined>
  /**
   * Keeps a 200 answer made after `fresh` (no-op when the request is not kept); `clock` is the
   * call's: when it was read, the answer holds for its clock slot only.
   */
  keep(status: number, headers: Record<string, string>, text: string, clock: RequestClock, readPosition?: bigint): void
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
}

/** The hot-read cache of one calendar. */
export interface ResponseCache {
  /**
   * The slot of an anonymous GET/HEAD, or `undefined` when such a request is never kept. `params`:
   * the query as sent; `rules`: what the operation declares (api/policy.ts): the parameters that
   * make a request never kept (a counted password guess, a sync walk) and those that bound an
   * answer that read the clock to its second (relative dates, exact bounds).
   */
  slot(parts: CacheKeyParts, params: Record<string, unknown>, rules: CacheRules): CacheSlot | undefined
  /**
   * The kept answer of an anonymous GET/HEAD when there is one and no change since (one shared
   * check, as for `slot`), else `undefined`: nothing is kept or counted, the request takes the full path.
   */
  fresh(parts: CacheKeyParts): Promise<KeptAnswer | undefined> | undefined
  /** What is kept now (tests, metrics). */
  stats(): { entries: number; bytes: number; checks: number }
}

/** The outcome of one shared check: its number and snapshot. */
export interface Check {
  seq: number
  point: ChangePoint
  /** The version of the tokens and users at the point (migration 0021, `auth/token-cache.ts`). */
  credentials: string
  /** With read replicas: the primary's WAL position after the snapshot (`change-log.ts`). */
  lsn?: bigint
}

/**
 * Whether an answer read at `readPosition` (a replica's replay position; undefined: the primary)
 * may be kept under `check`: the replica must have replayed everything the check's point shows.
 */
export function readCovers(check: Check, readPosition: bigint | undefined): boolean {
  return readPosition === undefined || (check.lsn !== undefined && readPosition >= check.lsn)
}

/** The calendar's one chain of "has anything changed?" checks, shared by the hot-read cache and the feed cache. */
export interface ChangeValidator {
  /** A check whose statement is sent after the call (joined by every request that arrives before it is sent). */
  next(): Promise<Check>
  /** Checks run so far. */
  checks(): number
  /**
   * Answers that read `kinds` (anything, when not given) whose point came from check
   * `staleThrough(kinds)` or an earlier one are stale.
   */
  staleThrough(kinds?: readonly ChangeKind[]): number
  /**
   * Calls `listener(through, changed)` whenever a check finds a change: answers of checks up to
   * `through` that read one of the `changed` kinds (any, for `all`) are stale.
   */
  onChange(listener: (through: number, changed: readonly ChangeKind[] | 'all') => void): void
}

/**
 * "Has anything changed?" for the whole calendar, one statement at a time. `next()` gives a check
 * whose statement is sent after the call: requests that arrive while a check waits for its
 * connection join it; later ones wait for the one after. Check n asks whether anything changed
 * since the snapshot of the latest check taken when its statement was sent (results are taken in
 * number order); when it did, the listeners are told that every answer whose point came from check
 * n-1 or earlier is stale (`staleThrough`). `qualifiedSchema`: the
 * handle's (`DatabaseHandle`), when its connections have no search path of the calendar's. `call`:
 * the check is sent as a call of its PL/pgSQL function (`changeCheckText`), for connections whose
 * statements are not named (`DatabaseHandle.namesStatements`).
 */
export function createChangeValidator(db: Kysely<DB>, withLsn = false, qualifiedSchema?: string, call = false): ChangeValidator {
  const text = changeCheckText(qualifiedSchema, withLsn, call)
  const listeners: ((through: number, changed: readonly ChangeKind[] | 'all') => void)[] = []
  // Results are taken in the order the checks were numbered, so each of these only grows: of any
  // change, of one the log could not name, and of each kind.
  let staleThrough = 0
  let allStaleThrough = 0
  const staleByKind = new Map<ChangeKind, number>()
  const onChange = (through: number, changed: readonly ChangeKind[] | 'all') => {
    staleThrough = through
    if (changed === 'all') allStaleThrough = through
    else for (const kind of changed) staleByKind.set(kind, through)
    for (const listener of listeners) listener(through, changed)
  }
  const staleFor = (kinds: readonly ChangeKind[] | undefined) => {
    if (kinds === undefined) return staleThrough
    let through = allStaleThrough
    for (const kind of kinds) through = Math.max(through, staleByKind.get(kind) ?? 0)
    return through
  }
  /** The latest check whose result was taken: the point the next statement sent asks since. */
  let last: Check | undefined
  /**
   * The check whose statement has not been sent yet, and the requests waiting for it; `started`
   * once it holds a place in flight and waits for its connection.
   */
  let pending: { promise: Promise<Check>; start: () => void; started: boolean } | undefined
  let running = 0
  let numbered = 0
  let checks = 0
  /** Settles once the results of every check numbered so far are taken: they are taken in number order. */
  let taken: Promise<void> = Promise.resolve()

  function startPending() {
    const queued = pending!
    queued.started = true
    running++
    queued.start()
  }

  function next(): Promise<Check> {
    if (pending) return pending.promise
    let start!: () => void
    const promise = new Promise<Check>((resolve, reject) => {
      start = () => {
        const seq = ++numbered
        const before = taken
        let done!: () => void
        taken = new Promise((resolve) => (done = resolve))
        db.connection()
          .execute(async (connection) => {
            // From here on the statement is on its way: newcomers wait for the next check.
            if (pending?.promise === promise) pending = undefined
            // Since the latest check taken, which may be older than one still in flight (its
            // snapshot is not known yet). The first check has nothing to compare with: from the
            // origin, it finds a change.
            return checkChanges(connection, last?.point ?? ORIGIN_POINT, text)
          })
          .finally(() => {
            // A check that failed before its statement was sent (no connection) is still the
            // pending one: it fails its requests, and must not be started again here (it was, once,
            // behind their backs: a second attempt against a database that is away).
            if (pending?.promise === promise) pending = undefined
            running--
            // Not one that already waits for its connection: started twice, it was sent twice,
            // the second time numbered anew and holding the other place in flight.
            if (pending && !pending.started && running < CHECKS_IN_FLIGHT) startPending()
          })
          .then(
            async (result: ChangeCheck) => {
              await before
              const lsn = parseLsn(result.lsn)
              const check: Check = { seq, point: result.now, credentials: result.credentials, ...(lsn !== undefined ? { lsn } : {}) }
              checks++
              if (result.changed === 'all' || result.changed.length > 0) onChange(seq - 1, result.changed)
              last = check
              resolve(check)
            },
            async (err: unknown) => {
              // A failed check (database away) fails its requests; the next one starts afresh.
              await before
              reject(err)
            },
          )
          .finally(done)
      }
    })
    // Rejections reach the requests that wait; an unawaited one must not be reported as unhandled.
    promise.catch(() => {})
    pending = { promise, start, started: false }
    if (running < CHECKS_IN_FLIGHT) startPending()
    return promise
  }

  return { next, checks: () => checks, staleThrough: staleFor, onChange: (listener) => void listeners.push(listener) }
}

/** Creates the cache, or returns `undefined` when it is off (`validator`: the calendar's shared check chain). */
export function createResponseCache(
  options: ResponseCacheOptions | false,
  db: Kysely<DB>,
  now: () => Date,
  validator: ChangeValidator = createChangeValidator(db),
): ResponseCache | undefined {
  if (options === false) return undefined
  const { maxBytes, maxEntries } = options
  const entries = new ByteLru<Entry>(maxBytes, maxEntries)
  // Keys asked once. An answer is kept from its second request on, so that one-off URLs (a new date
  // window per request) cost no extra statement for the point.
  const seen = new Map<string, true>()

  validator.onChange((through, changed) =>
    entries.dropWhere((entry) => entry.base <= through && (changed === 'all' || entry.kinds.some((kind) => changed.includes(kind)))),
  )
  // The kinds each operation's answers read, worked out once per operation (its rules are).
  const kindsOf = new WeakMap<CacheRules, readonly ChangeKind[]>()
  const kindsFor = (rules: CacheRules) => {
    let kinds = kindsOf.get(rules)
    if (!kinds) kindsOf.set(rules, (kinds = changeKindsOf(rules.reads)))
    return kinds
  }

  const current = (entry: Entry) => entry.clock === undefined || Math.floor(now().getTime() / entry.clock.unit) === entry.clock.slot

  /** `entry` after the check a request waited for: still what a read now would return? */
  function valid(key: string, entry: Entry): boolean {
    if (entry.base > validator.staleThrough(entry.kinds) && current(entry)) {
      entries.touch(key, entry)
      return true
    }
    if (entries.holds(key, entry)) entries.drop(key)
    return false
  }

  // Bytes made for the fast path count against `maxBytes` too (while the entry is still kept).
  const grow = (entry: Entry, added: number) => entries.grow(entry.key, entry, added)

  function kept(entry: Entry): KeptAnswer {
    const bytesOf = () => {
      if (!entry.bytes) {
        entry.bytes = Buffer.from(entry.text, 'utf8')
        grow(entry, entry.bytes.length)
      }
      return entry.bytes
    }
    return {
      status: entry.status,
      headers: entry.headers,
      etag: entry.etag,
      bytes: bytesOf,
      encoded(encoding) {
        const encodings = (entry.encodings ??= {})
        const have = encodings[encoding]
        if (have) return have
        const made = (encodings[encoding] = encode(bytesOf(), encoding))
        grow(entry, made.length)
        return made
      },
      derived: <T>(make: () => T) => (entry.wire ??= make()) as T,
    }
  }

  function answerFrom(entry: Entry, ifNoneMatch: string | undefined): CalendarResponse {
    if (noneMatchHits(ifNoneMatch, entry.etag)) return { status: 304, headers: notModifiedHeaders(entry.headers), body: undefined }
    return {
      status: entry.status,
      headers: { ...entry.headers },
      text: entry.text,
      // Adapters send `text`; a caller of `handle` that reads `body` gets it parsed back once.
      get body() {
        return (entry.parsed ??= JSON.parse(entry.text) as unknown)
      },
    }
  }

  const keyFor = (parts: CacheKeyParts) => `${parts.namespace}\n${parts.origin ?? ''}\n${parts.mountPath ?? ''}\n${parts.path}\n${parts.query}`

  return {
    stats: () => ({ entries: entries.count, bytes: entries.bytes, checks: validator.checks() }),
    fresh(parts) {
      const key = keyFor(parts)
      const entry = entries.get(key)
      if (!entry) return undefined
      return validator.next().then(() => (valid(key, entry) ? kept(entry) : undefined))
    },
    slot(parts, params, rules) {
      if (rules.never || rules.uncachedWith.some((name) => params[name] !== undefined)) return undefined
      const key = keyFor(parts)
      const secondGrained = rules.secondWith.some((name) => params[name] !== undefined)
      const kinds = kindsFor(rules)
      let point: Check | undefined
      return {
        async fresh(ifNoneMatch) {
          const entry = entries.get(key)
          if (!entry) {
            if (!seen.has(key)) {
              seen.set(key, true)
              if (seen.size > maxEntries) seen.delete(seen.keys().next().value!)
              return undefined
            }
            point = await validator.next()
            return undefined
          }
          point = await validator.next()
          return valid(key, entry) ? answerFrom(entry, ifNoneMatch) : undefined
        },
        keep(status, headers, text, clock, readPosition) {
          // A check since the point found a change: the answer may already be stale. Read on a
          // replica behind the point: it may miss a write the point shows.
          if (point === undefined || point.seq <= validator.staleThrough(kinds) || headers.ETag === undefined || !readCovers(point, readPosition)) return
          const size = answerSize(text.length, headers)
          if (size > maxBytes / 16) return // one huge page must not flush everything else
          const unit = secondGrained ? SECOND_MS : MINUTE_MS
          const slot = clock.read ? { unit, slot: Math.floor(clock.now().getTime() / unit) } : undefined
          entries.set(key, { key, status, headers: { ...headers }, text, etag: headers.ETag, base: point.seq, kinds, clock: slot, size })
        },
      }
    },
  }
}

/** `bytes` compressed as the `compression` middleware would (gzip/deflate at zlib's default level, brotli at quality 4). */
function encode(bytes: Buffer, encoding: BodyEncoding): Buffer {
  if (encoding === 'br') return brotliCompressSync(bytes, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } })
  return encoding === 'gzip' ? gzipSync(bytes) : deflateSync(bytes)
}
