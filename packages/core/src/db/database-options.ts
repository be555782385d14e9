import type { HostPool } from './host-pool.js'

/**
 * A PGlite instance (`new PGlite()` / `PGlite.create()` of `@electric-sql/pglite`), described by
 * shape: these declarations never load PGlite's own, so an app on PostgreSQL needs no PGlite (nor
 * its types) installed.
 */
export interface PGliteInstance {
  readonly waitReady: Promise<void>
  query(query: string, params?: unknown[]): Promise<{ rows: unknown[] }>
  exec(query: string): Promise<{ rows: unknown[] }[]>
  close(): Promise<void>
}

/**
 * Where the calendar keeps its data. The embedded choices (`dataDir`, `memory`, `pglite`) need the
 * optional peer dependency `@electric-sql/pglite` installed.
 */
export type DatabaseOptions =
  /** A PostgreSQL server (`postgres://user@host:5432/db`). */
  | {
      url: string
      poolSize?: number
      connectionTimeoutMs?: number
      statementTimeoutMs?: number
      /**
       * Run hot statements as named prepared statements. Default true, but false with
       * `pooler: 'transaction'`: set it true there only when the pooler keeps protocol-level prepared
       * statements (PgBouncer 1.21 or later with `max_prepared_statements` > 0).
       */
      preparedStatements?: boolean
      /** On start, wait this long for a server that is not up yet before giving up (default 0: one try). */
      startupWaitMs?: number
      /**
       * `'transaction'`: the URL is a transaction-mode pooler (PgBouncer): no startup parameters, no
       * session state (search path and timeout set per transaction), no named prepared statements
       * unless `preparedStatements: true`.
       */
      pooler?: 'transaction'
      /**
       * Streaming replicas of this database (`postgres://` URLs, opened with the same settings):
       * anonymous reads go to one that has replayed what the caller wrote or was answered
       * (`Cal-Read-After`), else to the primary (docs/production.md "Read replicas").
       */
      replicas?: string[]
      /** A replica further behind the primary than this is skipped until it catches up (default 10,000 ms). */
      replicaMaxLagMs?: number
    }
  /**
   * The host's own `pg.Pool`: never closed by the calendar, and its connections handed back with
   * their session settings as they were (search path and statement timeout are set per transaction
   * only). README "Embedding".
   */
  | {
      pool: HostPool
      /** Limit of each of the calendar's statements on the host's connections (default 30 s); the host's own keep theirs. */
      statementTimeoutMs?: number
      /** As for `url` (default true): hot statements are prepared on the host's connections under names starting `cal_`. */
      preparedStatements?: boolean
    }
  /** Embedded PGlite persisted in a directory (guarded against a second process). */
  | { dataDir: string }
  /** Embedded PGlite in memory (lost on close). */
  | { memory: true }
  /** A PGlite instance owned by the caller (not closed by the calendar). */
  | { pglite: PGliteInstance }
