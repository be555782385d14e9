import type { Transaction } from 'kysely'
import { isDatabaseUnavailable } from '../db/connection-errors.js'
import type { DB } from '../db/generated.js'
import type { CallContext } from './context.js'

/**
 * Runs one write of a call in a transaction: the one place operations open them. A create's
 * `Idempotency-Key` is claimed as the first statement, so the key commits or rolls back with the
 * write. A COMMIT whose answer was lost is settled by the pool (`db/commit-check.ts`).
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
  const result = await ctx.db.transaction().execute(run)
  if (claim) claim.committed = true
  return result
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
