import type { Transaction } from 'kysely'
import type { CallContext } from '../api/context.js'
import { invoke, type AnyOperation, type OperationResult } from '../api/operation.js'
import { writeTransaction } from '../api/write.js'
import { isDatabaseUnavailable } from '../db/connection-errors.js'
import type { DB } from '../db/generated.js'
import { CalendarError } from '../errors.js'
import { findIdBySlug } from '../posts/slug-store.js'
import { utcWallToEpochMs, wallFromDb } from '../time/wall-time.js'
import { entityTag, parseTagList, visibilityKey } from './conditional.js'

// Issue 18 item 2: lost-update protection. An update or delete that sends `If-Match` (or
// `If-Unmodified-Since`, or `If-None-Match`) runs in one transaction: lock the item's row, compute
// the tag a GET of the item by this caller would answer now (the read operation, serialised and
// hashed exactly as dispatch does for a GET), evaluate the preconditions (RFC 9110 13.2.2), then
// write and compute the new tag. A failed precondition is a 412 and nothing is written.

/** The item a conditional write names, locked: its id and, for posts, its modified time (UTC wall). */
export interface LockedItem {
  id: number
  modifiedUtc?: string
  /** The path parameters of the read whose tag stands for the item; `{ id }` when absent. */
  path?: Record<string, string>
}

/**
 * Finds the item a parsed update/delete input names (`id` or `slug`) and locks its row until the
 * transaction ends; `undefined` when there is none (the operation then answers its own not-found).
 */
export type ItemLock = (trx: Transaction<DB>, input: Record<string, unknown>, ctx: CallContext) => Promise<LockedItem | undefined>

/** What a create, update or delete route of an item needs for entity tags and preconditions. */
export interface ItemWrite {
  readonly write: 'create' | 'update' | 'delete'
  /** The by-id GET of the item: its answer to this caller is what a tag stands for. */
  readonly read: AnyOperation
  /** Updates and deletes: how to find and lock the item before the preconditions are checked. */
  readonly lock?: ItemLock
  /**
   * The path parameters of the read an answer's new `ETag` is of (`{ id }` when absent): an
   * occurrence is read at its series id and key.
   */
  readonly answerPath?: (body: Record<string, unknown>) => Record<string, string> | undefined
}

/** One entity tag of a header list. */
interface TagRef {
  weak: boolean
  opaque: string
}

/** The preconditions a write sent; absent members were not sent (or are ignored, as HTTP says). */
export interface Preconditions {
  ifMatch?: '*' | TagRef[]
  ifNoneMatch?: '*' | TagRef[]
  /** Epoch milliseconds of a valid `If-Unmodified-Since`. */
  ifUnmodifiedSince?: number
}

/**
 * The preconditions of a request, `undefined` when it sent none that count. A malformed
 * `If-Match` is a 400: the client meant to protect its write and must not have it go through
 * unprotected. A malformed `If-None-Match` or an invalid date is ignored (RFC 9110 13.1.2, 13.1.4).
 */
export function readPreconditions(header: (name: string) => string | undefined, now: Date): Preconditions | undefined {
  const result: Preconditions = {}
  const ifMatch = header('if-match')
  if (ifMatch !== undefined) {
    const tags = parseTagList(ifMatch)
    if (tags === undefined) {
      throw new CalendarError('INVALID_IF_MATCH', 'If-Match must be "*" or a list of entity tags ("…" or W/"…").')
    }
    result.ifMatch = tags
  }
  const ifNoneMatch = header('if-none-match')
  const noneTags = ifNoneMatch === undefined ? undefined : parseTagList(ifNoneMatch)
  if (noneTags !== undefined) result.ifNoneMatch = noneTags
  // RFC 9110 13.1.4: ignored when If-Match is present.
  const since = ifMatch === undefined ? header('if-unmodified-since') : undefined
  const sinceMs = since === undefined ? undefined : parseHttpDate(since, now)
  if (sinceMs !== undefined) result.ifUnmodifiedSince = sinceMs
  return Object.keys(result).length > 0 ? result : undefined
}

/** Runs an operation on a context: the rest of the request pipeline (its operation step). */
export type RunOperation = (operation: ItemWrite['read'], ctx: CallContext) => Promise<OperationResult>

/**
 * Runs a create, update or delete of an item with its entity tags: an update always runs in one
 * transaction with the read of its new tag (the row it wrote stays locked, so the tag is of what
 * it wrote, not of a later write); with preconditions, the row is locked and they are checked
 * first. Successful creates and updates carry the new `ETag`. `run` runs the write (the operation,
 * with the item lock and checks around its own steps) on the context it is given.
 */
export async function runItemWrite(
  item: ItemWrite,
  operation: AnyOperation,
  ctx: CallContext,
  namespace: string,
  conditions: Preconditions | undefined,
  run: RunOperation,
): Promise<OperationResult> {
  if (item.write === 'create') return withNewTag(item, await run(operation, ctx), ctx, namespace)
  if (!conditions && item.write === 'delete') return run(operation, ctx)
  return writeTransaction(ctx, async (trx) => {
    const inner = { ...ctx, db: trx }
    const guarded = conditions && item.lock ? guard(operation, item.lock, (locked, c) => check(item, locked, conditions, c, namespace)) : operation
    const result = await run(guarded, inner)
    return item.write === 'update' ? withNewTag(item, result, inner, namespace) : result
  })
}

/**
 * The operation with the item locked before its own `prepare` (so it plans on the row as locked)
 * and the preconditions checked after its own `authorize`: a missing item, a bad parameter or a
 * refused caller answer as without the headers (RFC 9110 13.2.1), and only then a 412.
 */
function guard(
  operation: AnyOperation,
  lock: ItemLock,
  checkLocked: (locked: LockedItem, ctx: CallContext) => Promise<void>,
): AnyOperation {
  let locked: LockedItem | undefined
  return {
    ...operation,
    async prepare(input, ctx) {
      locked = await lock(ctx.db as Transaction<DB>, input, ctx)
      return operation.prepare ? operation.prepare(input, ctx) : input
    },
    async authorize(prepared, ctx) {
      await operation.authorize?.(prepared, ctx)
      if (locked) await checkLocked(locked, ctx)
    },
  }
}

async function check(item: ItemWrite, locked: LockedItem, conditions: Preconditions, ctx: CallContext, namespace: string): Promise<void> {
  const tag = await currentTag(item, locked.path ?? { id: String(locked.id) }, ctx, namespace)
  if (!passes(conditions, tag, locked.modifiedUtc)) {
    throw new CalendarError('PRECONDITION_FAILED', 'The item has changed since the version the request names (If-Match / If-Unmodified-Since / If-None-Match).')
  }
}

/**
 * RFC 9110 13.2.2, steps 1 to 3. `*` in `If-Match` means the item exists (it does: it is locked);
 * a listed tag must equal, by strong comparison, the tag of the caller's GET of it right now, which
 * an item the caller cannot read has none of. Weak tags never match `If-Match`.
 */
function passes(conditions: Preconditions, tag: string | undefined, modifiedUtc: string | undefined): boolean {
  const { ifMatch, ifNoneMatch, ifUnmodifiedSince } = conditions
  if (ifMatch !== undefined) {
    if (ifMatch !== '*' && !ifMatch.some((t) => !t.weak && tag !== undefined && `"${t.opaque}"` === tag)) return false
  } else if (ifUnmodifiedSince !== undefined && modifiedUtc !== undefined) {
    // Terms keep no modified time: for them the header is ignored, as RFC 9110 13.1.4 says.
    if (utcWallToEpochMs(modifiedUtc) > ifUnmodifiedSince) return false
  }
  if (ifNoneMatch === '*') return false
  if (ifNoneMatch !== undefined && tag !== undefined && ifNoneMatch.some((t) => `"${t.opaque}"` === tag)) return false
  return true
}

/** The result of the by-id GET of the item, as this caller would get it now; `undefined` for any 4xx. */
async function currentRead(item: ItemWrite, path: Record<string, string>, ctx: CallContext): Promise<OperationResult | undefined> {
  try {
    return await invoke(item.read, { ...path }, { ...ctx, raw: { path, query: {}, body: {} } })
  } catch (err) {
    if (err instanceof CalendarError) return undefined
    throw err
  }
}

/**
 * The `ETag` a GET of the item by this caller would carry now (dispatch.ts hashes a GET the same
 * way): of `known` when the write read its item back as that GET (`OperationResult.read`).
 */
async function currentTag(item: ItemWrite, path: Record<string, string>, ctx: CallContext, namespace: string, known?: OperationResult | null): Promise<string | undefined> {
  const read = known !== undefined ? known : await currentRead(item, path, ctx)
  if (!read || (read.status ?? 200) !== 200 || read.body === undefined) return undefined
  return entityTag(JSON.stringify(read.body), read.headers ?? {}, visibilityKey(ctx.principal), namespace)
}

/** A successful create or update with the `ETag` of the item as the caller would now GET it. */
async function withNewTag(item: ItemWrite, result: OperationResult, ctx: CallContext, namespace: string): Promise<OperationResult> {
  const status = result.status ?? 200
  const body = result.body as Record<string, unknown> | undefined
  const id = body?.id
  if ((status !== 200 && status !== 201) || typeof id !== 'number') return result
  const path = item.answerPath ? item.answerPath(body!) : { id: String(id) }
  if (!path) return result
  let tag: string | undefined
  try {
    tag = await currentTag(item, path, ctx, namespace, result.read)
  } catch (err) {
    // A create has committed: like its read-back (api/write.ts), it answers without what the
    // database fails to tell, never a 503 that invites a duplicating retry.
    if (!isDatabaseUnavailable(err)) throw err
  }
  return tag === undefined ? result : { ...result, headers: { ...result.headers, ETag: tag } }
}

/** The lock of an event, venue or organizer: by id, or by slug as its routes resolve one. */
export function postLock(table: 'events' | 'venues' | 'organizers'): ItemLock {
  return async (trx, input, ctx) => {
    const id = typeof input.id === 'number'
      ? input.id
      : await findIdBySlug(trx, table, String(input.slug), ctx.language, ctx.options.languages[0] ?? '')
    if (id === undefined) return undefined
    // `no key update`, the lock an update of the row takes anyway: an event write linking this
    // venue (its foreign key's `key share`) is not blocked, so no new deadlock between the two.
    const row = await trx.selectFrom(table as 'events').select('modified_utc').where('id', '=', id).forNoKeyUpdate().executeTakeFirst()
    return row && { id, modifiedUtc: wallFromDb(row.modified_utc) }
  }
}

const DAYS = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)'
const LONG_DAYS = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)'
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const MONTH = `(${MONTHS.join('|')})`
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})'
// RFC 9110 5.6.7: IMF-fixdate, and the two obsolete forms a recipient must accept.
const IMF_FIXDATE = new RegExp(`^${DAYS}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`)
const RFC850_DATE = new RegExp(`^${LONG_DAYS}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`)
const ASCTIME_DATE = new RegExp(`^${DAYS} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`)

/** An HTTP-date as epoch milliseconds; `undefined` when it is not one (or names no real instant). */
export function parseHttpDate(value: string, now: Date): number | undefined {
  const text = value.trim()
  let parts: [string, string, string, string, string, string] | undefined
  let m = IMF_FIXDATE.exec(text)
  if (m) parts = [m[3]!, m[2]!, m[1]!, m[4]!, m[5]!, m[6]!]
  else if ((m = RFC850_DATE.exec(text))) {
    // A two-digit year more than 50 years ahead is the most recent past year with those digits.
    let year = 2000 + Number(m[3])
    if (year > now.getUTCFullYear() + 50) year -= 100
    parts = [String(year), m[2]!, m[1]!, m[4]!, m[5]!, m[6]!]
  } else if ((m = ASCTIME_DATE.exec(text))) parts = [m[6]!, m[1]!, m[2]!.trim(), m[3]!, m[4]!, m[5]!]
  if (!parts) return undefined
  const [y, mon, d, h, mi, s] = parts
  const [year, month, day, hour, minute, second] = [Number(y), MONTHS.indexOf(mon) + 1, Number(d), Number(h), Number(mi), Number(s)]
  if (hour > 23 || minute > 59 || second > 60) return undefined
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59)))
  date.setUTCFullYear(year)
  // 31 Feb and the like roll over into another month: not a date.
  if (date.getUTCDate() !== day || date.getUTCMonth() !== month - 1) return undefined
  return date.getTime()
}
