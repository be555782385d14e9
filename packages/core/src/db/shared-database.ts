import { Kysely, PostgresAdapter, PostgresDialect, PostgresQueryCompiler, type Dialect, type PostgresPool, type PostgresPoolClient } from 'kysely'
import type pg from 'pg'
import type { DatabaseOptions } from './database-options.js'
import type { DB } from './generated.js'
import { commitCheckingPool, type XactStatusProbe } from './commit-check.js'
import { behindPoolerHandle, logger, newPostgresPool, openHostPool, openPgliteSession, poolerKeepsStatements, type DatabaseHandle, type QueryListener } from './create-db.js'
import { preparingPool, sharedNamer, type ConfigClient, type ConfigPool } from './prepared-statements.js'
import { SET_SEARCH_PATH } from './schema.js'
import type { PoolStats } from './health.js'

// Many calendars, one pool (docs/multi-calendar.md). Each calendar keeps its own schema; what they
// share is the connections. A connection of the set's own pool (or of its PGlite session) remembers
// the search path it was last given, and is given another only when a checkout is for another
// calendar: a process serving one calendar at a time pays nothing, and one switch costs one round
// trip. On a host's pool nothing stays in the session anyway (SET LOCAL per transaction,
// `host-pool.ts`), so each calendar simply borrows from it.

/** One database shared by the calendars of a set: a handle per schema, all on one pool. */
export interface SharedDatabase {
  readonly kind: 'postgres' | 'pglite'
  /** A handle whose statements run in `schema`; closing it leaves the shared pool open. */
  open(schema: string, onQuery?: QueryListener): DatabaseHandle
  /** Connections of the PostgreSQL pool (PGlite has one session). */
  readonly poolStats?: () => PoolStats
  /** Ends the pool (a host's pool stays open) or closes the PGlite instance the set opened. */
  close(): Promise<void>
}

/** What of a pg client the switch needs. */
type SwitchClient = { query(text: string, values?: unknown[]): Promise<{ rows: { set_config?: string }[] }>; release(err?: Error | boolean): void }

/**
 * `pool` as one calendar sees it: every checked-out connection works in `schema`. `paths` is the
 * set's memory of each connection's search path (a connection the pool drops takes its entry along).
 */
function schemaPool(pool: pg.Pool, schema: string, paths: WeakMap<object, string> | undefined): PostgresPool & ConfigPool {
  // The search path as PostgreSQL wrote it at the first switch (names quoted): later switches send it
  // as one simple-protocol SET, nothing to parse with parameters or plan (a fifth of the backend's
  // time of `SET_SEARCH_PATH`, and a quarter of its round trip). Where pg_trgm lives does not move
  // while the calendar is open; a path naming a schema that went away still finds the calendar's own first.
  let known: string | undefined
  return {
    async connect() {
      const client = (await pool.connect()) as unknown as SwitchClient
      if (!paths || paths.get(client) !== schema) {
        // Out of any transaction (a checked-out connection is idle), so the setting is the session's.
        // PostgreSQL plans a named statement again when the search path it was planned under changed.
        paths?.delete(client)
        try {
          if (known !== undefined && paths) await client.query(`set search_path = ${known}`)
          else known = (await client.query(SET_SEARCH_PATH, [schema, false])).rows[0]?.set_config
        } catch (err) {
          client.release(err as Error)
          throw err
        }
        paths?.set(client, schema)
      }
      // A pg.PoolClient: what Kysely's pool and the prepared-statement layer both call.
      return client as unknown as PostgresPoolClient & ConfigClient
    },
    // The set's pool: ended by the set, not by one calendar.
    end: async () => {},
  }
}

// Every calendar of a set compiles its statements with one compiler: compiling is synchronous and
// starts afresh each time, and a compiler holds ~100 bound visitor functions (~6 kB per calendar).
const compiler = new PostgresQueryCompiler()
const adapter = new PostgresAdapter()

/** `dialect` with the set's one query compiler and adapter; its driver (the calendar's pool) its own. */
function sharedCompiler(dialect: PostgresDialect): Dialect {
  return {
    createDriver: () => dialect.createDriver(),
    createQueryCompiler: () => compiler,
    createAdapter: () => adapter,
    createIntrospector: (db) => dialect.createIntrospector(db),
  }
}

/**
 * Opens the database of a calendar set: its own pg pool (`url`), a host's pool (`pool`), or one
 * PGlite session (`dataDir`, `memory`, `pglite`), shared by every calendar `open` hands out.
 */
export async function openSharedDatabase(options: DatabaseOptions): Promise<SharedDatabase> {
  if ('pool' in options) {
    const host = options.pool
    if (typeof host?.connect !== 'function') throw new TypeError('Invalid calendar options: database.pool: expected a pg.Pool.')
    return {
      kind: 'postgres',
      open: (schema, onQuery) => openHostPool(options, onQuery, schema),
      poolStats: () => ({ total: host.totalCount, idle: host.idleCount, waiting: host.waitingCount }),
      close: async () => {},
    }
  }
  const paths = new WeakMap<object, string>()
  // Statement names follow their text, so every calendar may share one count of hot texts.
  const namer = sharedNamer()
  const handle = (kind: 'postgres' | 'pglite', pool: pg.Pool, prepared: boolean, probe: XactStatusProbe | undefined, remember = true) =>
    (schema: string, onQuery?: QueryListener): DatabaseHandle => {
      const own = schemaPool(pool, schema, remember ? paths : undefined)
      const preparing = prepared ? preparingPool(own, namer) : own
      const dialect = sharedCompiler(new PostgresDialect({ pool: probe ? commitCheckingPool(preparing, probe) : preparing }))
      const db = new Kysely<DB>({ dialect, log: logger(onQuery) })
      return {
        db,
        kind,
        namesStatements: prepared,
        poolStats: kind === 'postgres' ? () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }) : undefined,
        close: () => db.destroy(),
      }
    }
  if ('url' in options) {
    const { pool, probe } = newPostgresPool(options)
    const timeoutMs = options.statementTimeoutMs ?? 30_000
    return {
      kind: 'postgres',
      // Behind a transaction-mode pooler nothing stays in a session: SET LOCAL per transaction, as on a host's pool.
      open:
        options.pooler === 'transaction'
          ? (schema, onQuery) => behindPoolerHandle(pool, probe, schema, timeoutMs, onQuery, poolerKeepsStatements(options) ? namer : undefined)
          : handle('postgres', pool, options.preparedStatements !== false, probe),
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      close: () => pool.end(),
    }
  }
  const session = await openPgliteSession(options)
  // A PGlite instance the host passed in is one session the host uses too: its search path may have
  // moved since the last checkout, so it is set at every one (in-process, a fraction of a millisecond).
  return { kind: 'pglite', open: handle('pglite', session.pool, false, undefined, !('pglite' in options)), close: () => session.close() }
}

