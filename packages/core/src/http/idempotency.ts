import { createHash } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import type { OperationResult } from '../api/operation.js'
import type { DB } from '../db/generated.js'
import { CalendarError } from '../errors.js'

/** Longest `Idempotency-Key` accepted. */
export const IDEMPOTENCY_KEY_MAX = 255
/** How long a key's first answer is kept. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000
// A duplicate that arrives while the first request runs waits this long for its answer.
const WAIT_MS = 15_000
const POLL_MS = 25

/** Hash of what a key promises to repeat: method, path and body. */
export function idempotencyFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(JSON.stringify([method, path, body ?? null])).digest('hex')
}

/**
 * Runs a create once per caller and key: a repeat with the same fingerprint gets the first answer
 * (status, body, Location) and writes nothing; another fingerprint is a 422.
 */
export async function withIdempotencyKey(
  db: Kysely<DB>,
  userId: number,
  key: string,
  fingerprint: string,
  run: () => Promise<OperationResult>,
): Promise<OperationResult> {
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX) {
    throw new CalendarError('IDEMPOTENCY_KEY_INVALID', `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters.`)
  }
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    // An expired key is free again; pruning may not have run yet.
    await db.deleteFrom('cal_idempotency_keys').where('user_id', '=', userId).where('key', '=', key)
      .where('created_utc', '<', sql<string>`now() - make_interval(secs => ${IDEMPOTENCY_RETENTION_MS / 1000})`).execute()
    const claimed = await db.insertInto('cal_idempotency_keys')
      .values({ user_id: userId, key, fingerprint })
      .onConflict((oc) => oc.doNothing()).returning('key').executeTakeFirst()
    if (claimed) return runClaimed(db, userId, key, run)
    const row = await db.selectFrom('cal_idempotency_keys').select(['fingerprint', 'status', 'body', 'location'])
      .where('user_id', '=', userId).where('key', '=', key).executeTakeFirst()
    if (row && row.fingerprint !== fingerprint) {
      throw new CalendarError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with another request.')
    }
    if (row && row.status !== null) {
      return { status: row.status, body: row.body, headers: row.location === null ? {} : { Location: row.location } }
    }
    // Still running (or its first request failed and freed the key: the loop claims it then).
    if (row && Date.now() > deadline) {
      throw new CalendarError('IDEMPOTENCY_KEY_IN_PROGRESS', 'A request with this Idempotency-Key is still in progress.')
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

async function runClaimed(db: Kysely<DB>, userId: number, key: string, run: () => Promise<OperationResult>) {
  let result: OperationResult
  try {
    result = await run()
  } catch (err) {
    // Nothing was created (or the outcome is unknown): the key is free for a retry.
    await db.deleteFrom('cal_idempotency_keys').where('user_id', '=', userId).where('key', '=', key).execute()
    throw err
  }
  const location = result.headers?.Location ?? null
  await db.updateTable('cal_idempotency_keys')
    .set({ status: result.status ?? 200, body: JSON.stringify(result.body ?? null), location })
    .where('user_id', '=', userId).where('key', '=', key).execute()
  return result
}

/** Deletes keys older than the retention. */
export async function pruneIdempotencyKeys(db: Kysely<DB>): Promise<void> {
  await db.deleteFrom('cal_idempotency_keys')
    .where('created_utc', '<', sql<string>`now() - make_interval(secs => ${IDEMPOTENCY_RETENTION_MS / 1000})`).execute()
}
