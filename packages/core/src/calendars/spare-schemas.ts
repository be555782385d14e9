import { randomBytes } from 'node:crypto'
import { sql, type Kysely, type Transaction } from 'kysely'
import { migrateInTransaction, pendingMigrations, repinRenamedSchema } from '../db/migrate.js'

// Spare schemas (issue 31, docs/multi-calendar.md): creating a calendar must take milliseconds, and
// running every migration's DDL (83 relations) takes ~100 ms on a quiet machine and a second on a
// busy one. So a set keeps a few schemas migrated ahead of need, listed in its registry, and
// `calendars.create` renames one to the calendar's schema in the transaction that registers the
// key. A rename keeps every object whole: tables, indexes, sequences, defaults, triggers and
// functions refer to each other by OID, and function bodies name no schema. The one place a schema
// name is kept as text is the trigger functions' pinned search path (db/migrate.ts), pinned again
// in that same transaction.

/** The spare schemas of a calendar set. */
export interface SpareSchemas {
  /**
   * Inside `trx`, renames a spare to `schema` (migrated first if an earlier version made it), its
   * listing gone with it; false when no spare is ready (the caller migrates a new schema itself).
   */
  take<D>(trx: Transaction<D>, schema: string): Promise<boolean>
  /** Makes spares in the background, one at a time, until `target` are listed (a no-op while it runs). */
  refill(): void
  /** Resolves when no refill is running. */
  settled(): Promise<void>
  /** Stops refilling (the spare being made is finished). */
  close(): Promise<void>
}

/** A spare's name: not a calendar key's schema (`cal_c_…`), and unique without asking. */
const spareName = () => `cal_spare_${randomBytes(8).toString('hex')}`

/** While the pool has callers waiting, a spare waits this long before it asks again. */
const BUSY_WAIT_MS = 200

/**
 * The spares listed in `registrySchema.spares`, kept at `target` (0: none made; every create then
 * migrates, but for spares already listed). `maker` makes them in the background, never while
 * `busy()` (callers wait for a connection of the pool): a spare holds one for all its migrations.
 */
export function spareSchemas<M>(maker: Kysely<M>, registrySchema: string, target: number, busy: () => boolean = () => false): SpareSchemas {
  const table = sql.id(registrySchema, 'spares')
  let running: Promise<void> | undefined
  let closed = false

  const listed = async () => (await sql<{ n: number }>`select count(*)::int as n from ${table}`.execute(maker)).rows[0]!.n

  async function makeOne(): Promise<void> {
    const name = spareName()
    // Migrated and listed in one transaction: a failure or a crash leaves neither.
    await maker.transaction().execute(async (trx) => {
      await migrateInTransaction(trx, name, { adopt: false })
      await sql`insert into ${table} (schema_name) values (${name})`.execute(trx)
    })
  }

  return {
    async take(trx, schema) {
      // Another instance taking one at the same moment skips the row this one holds.
      const { rows } = await sql<{ schema_name: string }>`delete from ${table} where schema_name = (
          select schema_name from ${table} order by created_at limit 1 for update skip locked) returning schema_name`.execute(trx)
      const spare = rows[0]?.schema_name
      if (!spare) return false
      await sql`alter schema ${sql.id(spare)} rename to ${sql.id(schema)}`.execute(trx)
      if ((await pendingMigrations(trx, schema)).length > 0) await migrateInTransaction(trx, schema, { adopt: false })
      else await repinRenamedSchema(trx, schema)
      return true
    },
    refill() {
      if (target === 0 || closed || running) return
      running = (async () => {
        while (!closed && (await listed()) < target) {
          if (busy()) await new Promise((resolve) => setTimeout(resolve, BUSY_WAIT_MS))
          else await makeOne()
        }
      })()
        // A spare that could not be made (database away) costs nothing: the next create migrates
        // its schema itself, and reports the failure if there is one.
        .catch(() => {})
        .finally(() => {
          running = undefined
        })
    },
    settled: async () => {
      while (running) await running
    },
    async close() {
      closed = true
      await running
    },
  }
}
