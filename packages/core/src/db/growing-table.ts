import { sql, type Kysely } from 'kysely'
import { isDatabaseUnavailable } from './connection-errors.js'
import type { DB } from './generated.js'

/**
 * Keeps a table's planner statistics current while a bulk writer grows it: `ANALYZE` once the
 * rows added since the statistics were taken reach as many as they counted (at least `floor`),
 * so a table grown from empty is analysed at about 1,000, 2,000, 4,000, … rows and one of
 * 1,000,000 not before it has doubled. Autovacuum gets there too, but late under load: a
 * migrate-site into an empty calendar planned its slug look-up for the 157 events the table held
 * when last analysed, and at 50,000 events each batch's look-up compared every event with every
 * slug of the batch (0.6-7 s a batch instead of a few ms).
 */
export function statisticsKeeper(db: Kysely<DB>, table: 'events' | 'venues' | 'organizers', floor = 1000): (added: number) => Promise<void> {
  let counted: number | undefined
  let since = 0
  const reltuples = async () => {
    const { rows } = await sql<{ n: number }>`select greatest(reltuples, 0)::float8 as n from pg_class where oid = to_regclass(${table})`.execute(db)
    return Number(rows[0]?.n ?? 0)
  }
  return async (added) => {
    // In a host's transaction the statistics would roll back with it; the host's own ANALYZE is its call.
    if (db.isTransaction || added <= 0) return
    counted ??= await reltuples()
    since += added
    if (since < Math.max(floor, counted)) return
    try {
      await sql`analyze ${sql.table(table)}`.execute(db)
      counted = await reltuples()
      since = 0
    } catch (err) {
      // Statistics are an optimisation: a role that may not ANALYZE the table imports all the same.
      if (isDatabaseUnavailable(err)) throw err
      since = Number.NEGATIVE_INFINITY
    }
  }
}
