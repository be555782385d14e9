import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { Kysely, PostgresDialect, type LogEvent } from 'kysely'
import pg from 'pg'
import type { PGlite } from '@electric-sql/pglite'
import type { DatabaseOptions } from './database-options.js'
import type { DB } from './generated.js'
import { commitCheckingPool, freshConnectionProbe, type XactStatusProbe } from './commit-check.js'
import { calendarTypes } from './pg-types.js'
import { preparingPool, sharedNamer, type StatementNamer } from './prepared-statements.js'
import { DEFAULT_SCHEMA, useSchema } from './schema.js'
import { hostPoolProbe, localSettingsPool } from './host-pool.js'
import type { PoolStats } from './health.js'

/** An open database: the typed Kysely instance and how to release it. */
export interface DatabaseHandle {
  readonly db: Kysely<DB>
  readonly kind: 'postgres' | 'pglite'
  /** Connections of the PostgreSQL pool (PGlite has one session). */
  readonly poolStats?: () => PoolStats
  /**
   * Set when the calendar's search path is set per transaction (a pooler, a host's pool): its
   * schema, which a statement sent alone, outside a transaction, names (`SCHEMA_QUALIFIED`).
   */
  readonly qualifiedSchema?: string
  /**
   * True when hot statements become named prepared statements, planned once per connection; the
   * change check is then sent written out, else as a call of its PL/pgSQL function (`change-log.ts`).
   */
  readonly namesStatements: boolean
  close(): Promise<void>
}

export type QueryListener = ((sql: string, durationMs: number, parameters: readonly unknown[]) => void) | undefined

export function logger(onQuery: QueryListener) {
  if (!onQuery) return undefined
  return (event: LogEvent) => onQuery(event.query.sql, event.queryDurationMillis, event.query.parameters)
}

/**
 * Opens the configured database: a pg pool, or embedded PGlite behind the same dialect. Every
 * connection works in `schema` (its search_path), where the migrations put the calendar's objects.
 */
export async function openDatabase(options: DatabaseOptions, onQuery?: QueryListener, schema = DEFAULT_SCHEMA): Promise<DatabaseHandle> {
  if ('url' in options) return openPostgres(options, onQuery, schema)
  if ('pool' in options) return openHostPool(options, onQuery, schema)
  return openPglite(options, onQuery, schema)
}

function openPostgres(
  options: Extract<DatabaseOptions, { url: string }>,
  onQuery: QueryListener,
  schema: string,
): DatabaseHandle {
  if (options.pooler !== undefined && options.pooler !== 'transaction') {
    throw new TypeError(`Invalid calendar options: database.pooler: expected 'transaction', got ${JSON.stringify(options.pooler)}.`)
  }
  if (options.pooler === 'transaction') return openBehindPooler(options, onQuery, schema)
  const { pool, probe } = newPostgresPool(options)
  const dialect = new PostgresDialect({
    pool: commitCheckingPool(options.preparedStatements === false ? pool : preparingPool(pool), probe),
    onCreateConnection: useSchema(schema),
  })
  return postgresHandle(dialect, pool, onQuery, options.preparedStatements !== false)
}

/**
 * A calendar's handle on PostgreSQL through `dialect`, its pool figures read from `pool` (the pg
 * pool underneath); `namesStatements`: whether `dialect`'s pool names hot statements.
 */
function postgresHandle(dialect: PostgresDialect, pool: Pick<pg.Pool, 'totalCount' | 'idleCount' | 'waitingCount'>, onQuery: QueryListener, namesStatements: boolean): DatabaseHandle {
  const db = new Kysely<DB>({ dialect, log: logger(onQuery) })
  return {
    db,
    kind: 'postgres',
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    namesStatements,
    close: () => db.destroy(),
  }
}

/**
 * The pg pool of `database: { url }` (a calendar's own, or the one a calendar set shares,
 * `shared-database.ts`), and how a lost commit is settled beside it.
 */
export function newPostgresPool(options: Extract<DatabaseOptions, { url: string }>): { pool: pg.Pool; probe: XactStatusProbe } {
  const statementTimeoutMs = options.statementTimeoutMs ?? 30_000
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    // Fail fast when the server is away instead of queueing requests until the client gives up.
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 3000,
    // A transaction-mode pooler refuses startup parameters: there the timeout is set per
    // transaction (`behindPoolerHandle`).
    ...(options.pooler === 'transaction' ? {} : { statement_timeout: statementTimeoutMs }),
    // Behind a pooler that keeps named statements, a named one is written with its transaction's
    // BEGIN and COMMIT without waiting for their answers (`localSettingsPool`).
    ...(poolerKeepsStatements(options) ? { pipeline: true } : {}),
    // A server that vanished mid-query never answers; give up client-side too.
    query_timeout: statementTimeoutMs + 2_000,
    types: calendarTypes,
  })
  // A client losing its server emits 'error': an idle one on the pool, a checked-out one on itself.
  // Unhandled, either kills the process (and an embedding host's with it). The query in flight
  // fails on its own and answers 503; the broken client is dropped when it is released.
  pool.on('error', () => {})
  pool.on('connect', (client) => client.on('error', () => {}))
  // A commit whose answer was lost is settled on a fresh connection: the pool may be what failed.
  // It opens a connection of its own, which takes longer than waiting for a pooled one: a short
  // pool wait (a tight pool) must not turn a committed write into an unknown one.
  const probeTimeoutMs = Math.max(options.connectionTimeoutMs ?? 3000, 1000)
  const probe = freshConnectionProbe({ connectionString: options.url, connectionTimeoutMillis: probeTimeoutMs, query_timeout: probeTimeoutMs })
  return { pool, probe }
}

/**
 * Whether `options` name a transaction-mode pooler that keeps protocol-level prepared statements
 * (`preparedStatements: true` with `pooler: 'transaction'`: PgBouncer 1.21 or later with
 * `max_prepared_statements` > 0). Debian bookworm's PgBouncer 1.18 keeps none, hence off by default.
 */
export function poolerKeepsStatements(options: Extract<DatabaseOptions, { url: string }>): boolean {
  return options.pooler === 'transaction' && options.preparedStatements === true
}

/**
 * PostgreSQL behind a transaction-mode pooler (PgBouncer `pool_mode = transaction`): consecutive
 * transactions of one client connection may run on different server connections, and a pooler
 * refuses startup parameters such as `statement_timeout`. So the pool keeps nothing in the session:
 * it is run as a host's pool is (`host-pool.ts`, search path and statement timeout by SET LOCAL in
 * each transaction, short statements sent in one message with it), and names no prepared statement
 * unless the pooler keeps them (`poolerKeepsStatements`). Advisory locks are all transaction-scoped
 * (`pg_advisory_xact_lock`) anyway.
 */
function openBehindPooler(options: Extract<DatabaseOptions, { url: string }>, onQuery: QueryListener, schema: string): DatabaseHandle {
  const { pool, probe } = newPostgresPool(options)
  const namer = poolerKeepsStatements(options) ? sharedNamer() : undefined
  const handle = behindPoolerHandle(pool, probe, schema, options.statementTimeoutMs ?? 30_000, onQuery, namer)
  return {
    ...handle,
    // This pool is the calendar's own: ended with it (the host-pool wrapper leaves it open).
    close: async () => {
      await handle.close()
      await pool.end()
    },
  }
}

/**
 * A calendar's handle on `pool`, a pool behind a transaction-mode pooler (`openBehindPooler`; a
 * calendar set's shares one pool); closing it leaves the pool open. With `namer` (a pooler that
 * keeps named statements, its clients pipelined) hot statements are named.
 */
export function behindPoolerHandle(
  pool: pg.Pool,
  probe: XactStatusProbe,
  schema: string,
  statementTimeoutMs: number,
  onQuery: QueryListener,
  namer?: StatementNamer,
): DatabaseHandle {
  // Every unnamed statement whose parameters can be written in goes in one message with its
  // transaction: it has no kept plan to lose, and the two round trips of a transaction around it
  // (and the connection held meanwhile) would cost more. A named one is pipelined with its
  // transaction instead: one round trip too, and its plan kept.
  const settings = localSettingsPool(pool, schema, statementTimeoutMs, Number.POSITIVE_INFINITY, namer !== undefined)
  const dialect = new PostgresDialect({ pool: commitCheckingPool(namer ? preparingPool(settings, namer) : settings, probe) })
  return { ...postgresHandle(dialect, pool, onQuery, namer !== undefined), qualifiedSchema: schema }
}

/**
 * The host's pool (`host-pool.ts`): statements run with the calendar's settings set per transaction,
 * the host's session settings untouched; closing the calendar leaves the pool open.
 */
export function openHostPool(options: Extract<DatabaseOptions, { pool: unknown }>, onQuery: QueryListener, schema: string): DatabaseHandle {
  const hostPool = options.pool
  if (typeof hostPool?.connect !== 'function') throw new TypeError('Invalid calendar options: database.pool: expected a pg.Pool.')
  const pool = localSettingsPool(hostPool, schema, options.statementTimeoutMs ?? 30_000)
  const probe = hostPoolProbe(hostPool, 3000)
  const dialect = new PostgresDialect({ pool: commitCheckingPool(options.preparedStatements === false ? pool : preparingPool(pool), probe) })
  return { ...postgresHandle(dialect, hostPool, onQuery, options.preparedStatements !== false), qualifiedSchema: schema }
}

async function openPglite(
  options: Extract<DatabaseOptions, { dataDir: string } | { memory: true } | { pglite: unknown }>,
  onQuery: QueryListener,
  schema: string,
): Promise<DatabaseHandle> {
  const embedded = await openPgliteSession(options)
  // PGlite has one session: with an instance the host passed in, the host's own unqualified
  // names resolve in the calendar's schema too (README, "Embedding").
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: embedded.pool, onCreateConnection: useSchema(schema) }), log: logger(onQuery) })
  return {
    db,
    kind: 'pglite',
    namesStatements: false,
    async close() {
      await db.destroy()
      await embedded.close()
    },
  }
}

/** An embedded PGlite session as a pg pool (of one connection: PGlite has one session). */
export interface PgliteSession {
  readonly pool: pg.Pool
  /** Closes the instance when it is ours (not one the host passed in) and frees its directory. */
  close(): Promise<void>
}

/** Opens (or adopts) the PGlite instance of the options behind a pg pool. */
export async function openPgliteSession(options: Extract<DatabaseOptions, { dataDir: string } | { memory: true } | { pglite: unknown }>): Promise<PgliteSession> {
  const [{ PGlite }, { pg_trgm }, { createPgConfig }] = await loadPglite()
  let release = () => {}
  let instance: PGlite
  let owned = true
  if ('pglite' in options) {
    // Typed by shape in the options (no PGlite types in the public declarations); a real instance.
    instance = options.pglite as unknown as PGlite
    owned = false
  } else if ('dataDir' in options) {
    mkdirSync(options.dataDir, { recursive: true })
    release = lockDataDir(options.dataDir)
    try {
      instance = await PGlite.create({ dataDir: options.dataDir, extensions: { pg_trgm } })
    } catch (err) {
      release()
      throw new Error(`Could not open the PGlite data directory ${options.dataDir}.`, { cause: err })
    }
  } else {
    instance = await PGlite.create({ extensions: { pg_trgm } })
  }
  // PGlite's node-postgres adapter types do not line up with @types/pg; the shape is right.
  const config = createPgConfig(instance) as unknown as pg.PoolConfig
  const pool = new pg.Pool({ ...config, types: calendarTypes })
  return {
    pool,
    async close() {
      // A calendar's Kysely ends the pool when it is destroyed; a calendar set's pool is ended here.
      if (!pool.ending) await pool.end()
      if (owned) await instance.close()
      release()
    },
  }
}

/**
 * PGlite, loaded when an embedded database is asked for: it is an optional peer dependency, so an
 * app on PostgreSQL installs none of it. Missing, the error says what to install.
 */
async function loadPglite() {
  try {
    return await Promise.all([
      import('@electric-sql/pglite'),
      import('@electric-sql/pglite/contrib/pg_trgm'),
      import('@electric-sql/pglite/node-postgres'),
    ])
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((err as Error).message).includes('@electric-sql/pglite')) {
      throw new Error(
        'The embedded database (PGlite) needs the optional peer dependency @electric-sql/pglite: npm install @electric-sql/pglite. ' +
          'For PostgreSQL, pass database: { url }.',
        { cause: err },
      )
    }
    throw err
  }
}

/**
 * PGlite has no multi-process lock: two processes on one directory corrupt it. A lock file
 * holding our pid keeps a second process out; a lock left by a dead process is taken over.
 */
function lockDataDir(dataDir: string): () => void {
  const lockPath = join(dataDir, '..', `${dataDir.replace(/[\\/]+$/, '').split(/[\\/]/).pop()}.lock`)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx')
      writeSync(fd, String(process.pid))
      closeSync(fd)
      return () => rmSync(lockPath, { force: true })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const holder = Number(readFileSync(lockPath, 'utf8'))
      // Our own pid counts too: a second open in this process would corrupt the directory as well.
      if (holder && isAlive(holder)) {
        throw new Error(`The data directory ${dataDir} is in use by process ${holder}; PGlite allows one process only.`, {
          cause: err,
        })
      }
      rmSync(lockPath, { force: true })
    }
  }
  throw new Error(`Could not lock the data directory ${dataDir}.`)
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
