import type { HostClient } from '../db/host-pool.js'
import type { HealthReport, PoolStats } from '../db/health.js'
import type { ResolvedOptions } from '../config/options.js'
import type { CachedAnswer, CalendarRequest, CalendarResponse } from '../http/request.js'
import type { RouteDef } from '../http/routes.js'
import type { CalendarScripts } from './script-types.js'

/** A running calendar: HTTP-neutral handler, route table and typed services. */
export interface Calendar extends CalendarScripts {
  readonly options: ResolvedOptions
  /** Routes in registration order; every adapter and the root descriptor use this table. */
  readonly routes: readonly RouteDef[]
  /** Answers one framework-neutral request; never rejects. */
  handle(request: CalendarRequest): Promise<CalendarResponse>
  /**
   * The hot-read cache's fast path (docs/response-cache.md): for an anonymous GET/HEAD whose answer
   * is kept and still valid, that answer ready to write; `undefined` (at once, or once the shared
   * check is done) when the request must go to `handle`. An adapter calls it before its own routing.
   * `client`, `body` and `native` of the request are not read. Never rejects.
   */
  cachedAnswer(request: CalendarRequest): Promise<CachedAnswer | undefined> | undefined
  /** Turns anything thrown into the contract's error response; given the request, with the CORS and compatibility-path headers its answers get. */
  toErrorResponse(err: unknown, request?: CalendarRequest): CalendarResponse
  /**
   * Runs `work` with the script services inside the host's own transaction on `client` (a
   * `pg.PoolClient` or `pg.Client` after BEGIN): the calendar's writes commit or roll back with
   * the host's, and its reads see the transaction's writes. Each call is a savepoint: one that
   * fails is undone and leaves the host's transaction usable. The host commits or rolls back after
   * `work`; the services given to `work` refuse calls once it has returned. README "Embedding".
   *
   * @example
   * await client.query('begin')
   * const event = await calendar.withTransaction(client, (cal) => cal.events.create(input))
   * await client.query('insert into orders (event_id) values ($1)', [event.id])
   * await client.query('commit')
   */
  withTransaction<T>(client: HostClient, work: (calendar: CalendarScripts) => Promise<T>): Promise<T>
  /**
   * Readiness: whether the database answers (within `timeoutMs`, default 2 s) and every migration
   * is applied, plus pool usage. Never throws; for `/readyz` probes and metrics.
   */
  health(timeoutMs?: number): Promise<HealthReport>
  /** Connections of the PostgreSQL pool right now (`undefined` for PGlite); no database round trip. */
  poolStats(): PoolStats | undefined
  /**
   * Does now the start-up work the first call would otherwise do (moving the stored occurrence
   * horizon of recurring events): a server calls it before listening, so no request pays for it.
   */
  warmUp(): Promise<void>
  /** Releases the database. */
  close(): Promise<void>
}
