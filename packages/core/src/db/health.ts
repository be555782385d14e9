import type { Kysely } from 'kysely'
import { pendingMigrations } from './migrate.js'
import { eventLoopDelay, type EventLoopDelay } from '../shared/loop-delay.js'

/** What `calendar.health()` tells a readiness probe. */
export interface HealthReport {
  /** The database answers and every migration of this version is applied. */
  readonly ready: boolean
  readonly database: 'up' | 'down'
  /** Migrations of this version not applied yet (empty when the database is down: unknown). */
  readonly pendingMigrations: readonly string[]
  /** Connections of the PostgreSQL pool (absent for PGlite). */
  readonly pool?: PoolStats
  /** How late the process's event loop has been over the last 10 to 20 seconds (`shared/loop-delay.ts`). */
  readonly eventLoop: EventLoopDelay
  /** With read replicas: reads served by replicas and by the primary, and each replica's state. */
  readonly reads?: ReadStats
  /** Why the database counts as down. */
  readonly error?: string
}

/** Counts of the router, for tests, metrics and the bench. */
export interface ReadStats {
  readonly replicaReads: number
  readonly primaryReads: number
  readonly fallbacks: number
  /** Each replica in the order configured (no URL: `/readyz` shows this, and a URL names internal hosts): in use, known replay position, lag. */
  readonly replicas: readonly { up: boolean; replayed: string | undefined; lagMs: number | undefined }[]
}

/** Connections of the PostgreSQL pool: open, idle, and requests waiting for one. */
export interface PoolStats {
  readonly total: number
  readonly idle: number
  readonly waiting: number
}

/** Asks the database for the applied migrations, within `timeoutMs`. Never throws. */
export async function checkHealth<D>(db: Kysely<D>, schema: string, timeoutMs: number, pool?: () => PoolStats, reads?: () => ReadStats): Promise<HealthReport> {
  const stats = { ...(pool ? { pool: pool() } : {}), eventLoop: eventLoopDelay(), ...(reads ? { reads: reads() } : {}) }
  let timer: NodeJS.Timeout | undefined
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
    })
    const pending = await Promise.race([pendingMigrations(db, schema), timeout])
    return { ready: pending.length === 0, database: 'up', pendingMigrations: pending, ...stats }
  } catch (err) {
    return { ready: false, database: 'down', pendingMigrations: [], ...stats, error: err instanceof Error ? err.message : String(err) }
  } finally {
    clearTimeout(timer)
  }
}
