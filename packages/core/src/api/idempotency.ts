import { createHash } from 'node:crypto'
import { sql, type Kysely, type Transaction } from 'kysely'
import type { OperationResult } from './result.js'
import type { DB } from '../db/generated.js'
import { CalendarError } from '../errors.js'

/** Longest `Idempotency-Key` accepted. */
export const IDEMPOTENCY_KEY_MAX = 255
/** How long a key's first answer is kept. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000
// After the first request committed, a duplicate waits this long for it to store its answer.
const WAIT_MS = 15_000
const POLL_MS = 25

const expired = () => sql<boolean>`cal_idempotency_keys.created_utc < now() - make_interval(secs => ${IDEMPOTENCY_RETENTION_MS / 1000})`

/** Objects with their keys sorted (arrays keep their order): the same JSON however it was written. */
const sortedKeys = (_key: string, value: unknown): unknown =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : value

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/**
 * Hash of what a key promises to repeat: method, path and the body as canonical JSON (keys sorted;
 * the body was parsed, so whitespace and number spellings are gone already). A retry that sends
 * the same data with its keys in another order is the same request.
 */
export function idempotencyFingerprint(method: string, path: string, body: unknown): Fingerprint {
  const canonical = sha256(JSON.stringify([method, path, body ?? null], sortedKeys))
  // Keys stored before fingerprints were canonical hashed the body in the order it came. They
  // expire within IDEMPOTENCY_RETENTION_MS of an upgrade; until then a retry still matches them.
  const legacy = sha256(JSON.stringify([method, path, body ?? null]))
  return { value: canonical, matches: (stored) => stored === canonical || stored === legacy }
}

/** A request's fingerprint: the one stored with a new key, and whether a stored one is the same request. */
export interface Fingerprint {
  readonly value: string
  matches(stored: string): boolean
}

/** Another request holds the key (it committed first); its answer is looked up and replayed. */
class KeyTaken extends Error {}

/**
 * A create's key, claimed by the create's own transaction (`api/write.ts`): the claim commits or
 * rolls back with the write, so a create that fails leaves the key free, and one that committed
 * holds it even if its answer never gets stored.
 */
export class IdempotencyClaim {
  /** Set once the transaction holding the claim has committed. */
  committed = false

  constructor(
    readonly userId: number,
    readonly key: string,
    readonly fingerprint: Fingerprint,
  ) {}

  /**
   * Claims the key inside `trx`. A duplicate still in flight holds the row's lock: the insert waits
   * for that transaction to end rather than polling, then claims a key it rolled back.
   */
  async claimIn(trx: Transaction<DB>): Promise<void> {
    const claimed = await trx.insertInto('cal_idempotency_keys')
      .values({ user_id: this.userId, key: this.key, fingerprint: this.fingerprint.value })
      // An expired key is free again; pruning may not have run yet.
      .onConflict((oc) => oc.columns(['user_id', 'key']).doUpdateSet({
        fingerprint: this.fingerprint.value, status: null, body: null, location: null, created_utc: sql<string>`now()`,
      }).where(expired()))
      .returning('key').executeTakeFirst()
    if (!claimed) throw new KeyTaken()
  }
}

/**
 * Runs a create once per caller and key: a repeat with the same fingerprint gets the first answer
 * (status, body, Location) and writes nothing; another fingerprint is a 422. `run` passes the
 * claim to the create's transaction (`CallContext.idempotency`).
 */
export async function withIdempotencyKey(
  db: Kysely<DB>,
  userId: number,
  key: string,
  fingerprint: Fingerprint,
  run: (claim: IdempotencyClaim) => Promise<OperationResult>,
): Promise<OperationResult> {
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX) {
    throw new CalendarError('IDEMPOTENCY_KEY_INVALID', `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters.`)
  }
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    const row = await db.selectFrom('cal_idempotency_keys').select(['fingerprint', 'status', 'body', 'location'])
      .where('user_id', '=', userId).where('key', '=', key).where(sql<boolean>`not ${expired()}`).executeTakeFirst()
    if (row && !fingerprint.matches(row.fingerprint)) {
      throw new CalendarError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with another request.')
    }
    if (row && row.status !== null) {
      return { status: row.status, body: row.body, headers: row.location === null ? {} : { Location: row.location } }
    }
    if (row) {
      // Committed, its answer not stored yet: the first request is still reading back its result.
      if (Date.now() > deadline) {
        throw new CalendarError('IDEMPOTENCY_KEY_IN_PROGRESS', 'A request with this Idempotency-Key is still in progress.')
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
      continue
    }
    const claim = new IdempotencyClaim(userId, key, fingerprint)
    let result: OperationResult
    try {
      result = await run(claim)
    } catch (err) {
      if (err instanceof KeyTaken) continue
      throw err
    }
    // In a transaction (the host's, `withTransaction`) the claim is in it, uncommitted: the answer
    // is stored in it too, so a commit keeps both and a rollback frees the key.
    if (claim.committed || db.isTransaction) await storeAnswer(db, claim, result)
    return result
  }
}

async function storeAnswer(db: Kysely<DB>, claim: IdempotencyClaim, result: OperationResult): Promise<void> {
  try {
    await db.updateTable('cal_idempotency_keys')
      .set({ status: result.status ?? 200, body: JSON.stringify(result.body ?? null), location: result.headers?.Location ?? null })
      .where('user_id', '=', claim.userId).where('key', '=', claim.key).execute()
  } catch {
    // The create committed and is answered as such; a retry then finds the key taken (409) rather
    // than creating a duplicate.
  }
}

/** Deletes keys older than the retention. */
export async function pruneIdempotencyKeys(db: Kysely<DB>): Promise<void> {
  await db.deleteFrom('cal_idempotency_keys')
    .where('created_utc', '<', sql<string>`now() - make_interval(secs => ${IDEMPOTENCY_RETENTION_MS / 1000})`).execute()
}
