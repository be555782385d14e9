import type { Transaction } from 'kysely'
import { isDatabaseUnavailable } from '../db/connection-errors.js'
import type { DB } from '../db/generated.js'
import { CalendarError } from '../errors.js'
import { afterWrite } from '../db/term-counts.js'
import type { CallContext } from './context.js'

/**
 * Runs one write of a call in a transaction: the one place operations open them. A create's
 * `Idempotency-Key` is claimed as the first statement, so the key commits or rolls back with the
 * write. A COMMIT whose answer was lost is settled by the pool (`db/commit-check.ts`). A deadlock
 * or serialization failure runs the write again (a few times, then a 503), never a 500.
 */
export async function writeTransaction<T>(ctx: CallContext, write: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  const claim = ctx.idempotency !== undefined && !ctx.idempotency.committed ? ctx.idempotency : undefined
  const run = async (trx: Transaction<DB>) => {
    if (claim) await claim.claimIn(trx)
    return write(trx)
  }
  // A conditional update or delete (http/preconditions.ts) holds a transaction from its row lock
  // to its new ETag: the write joins it. Joined, a failed statement aborts that one too, so a
  // caller that retries after a database error (term creates) must not run joined; creates never do.
  if (ctx.db.isTransaction) return run(ctx.db as Transaction<DB>)
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await ctx.db.transaction().execute(run)
      if (claim) claim.committed = true
      await afterWrite(ctx.db)
      return result
    } catch (err) {
      if (!isRetryableConflict(err)) throw err
      // Rolled back whole, the key's claim with it: the next attempt starts from the beginning.
      if (attempt >= WRITE_ATTEMPTS) throw new CalendarError('DATABASE_UNAVAILABLE', 'The database is busy; try again shortly.')
      await new Promise((resolve) => setTimeout(resolve, attempt * (5 + Math.random() * 20)))
    }
  }
}

/** How often a write is tried when it keeps meeting a deadlock or serialization failure. */
const WRITE_ATTEMPTS = 5
// 40001 serialization_failure, 40P01 deadlock_detected: the transaction was rolled back and
// running it again is the documented remedy. Writes take their row locks in one order (term
// links by id, docs/term-counts.md), so these should not happen; this is the net under that.
const RETRYABLE_SQLSTATES = new Set(['40001', '40P01'])

/** Whether a write failed only because it met another transaction (and was rolled back). */
export function isRetryableConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && RETRYABLE_SQLSTATES.has(code)
}

/**
 * The answer to a write that has committed: `read()` (the item as stored), or `known()` when the
 * database fails to answer that read. A 503 would tell the client to retry a write that is done.
 */
export async function answerCommitted<T>(read: () => Promise<T>, known: () => T): Promise<T> {
  try {
    return await read()
  } catch (err) {
    if (isDatabaseUnavailable(err)) return known()
    throw err
  }
}
