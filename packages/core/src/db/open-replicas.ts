import type { Kysely } from 'kysely'
import { openDatabase, type DatabaseHandle } from './create-db.js'
import type { DatabaseOptions } from './database-options.js'
import type { DB } from './generated.js'
import { createReadRouter, DEFAULT_REPLICA_POLICY, type ReadRouter } from './replicas.js'

/** What opening the replicas reads of the resolved options (config/ stands above db/). */
interface ReplicaOptions {
  readonly database: DatabaseOptions
  readonly onQuery: Parameters<typeof openDatabase>[1]
  readonly schema: string
}

const POSTGRES_URL = /^postgres(ql)?:\/\/\S+$/

/**
 * The read router over `database.replicas`, or `undefined` without replicas. Each replica is opened
 * with the primary's settings (pool size, pooler, timeouts) and its own URL; nothing connects yet,
 * so a replica that is down at start only means reads go to the primary until it answers.
 */
export async function openReplicas(options: ReplicaOptions, primary: Kysely<DB>): Promise<ReadRouter | undefined> {
  const database = options.database
  if (!('url' in database) || database.replicas === undefined) return undefined
  const { replicas, replicaMaxLagMs } = database
  if (!Array.isArray(replicas) || !replicas.every((url) => typeof url === 'string' && POSTGRES_URL.test(url))) {
    throw new TypeError('Invalid calendar options: database.replicas: expected an array of postgres:// URLs.')
  }
  if (replicaMaxLagMs !== undefined && (!Number.isInteger(replicaMaxLagMs) || replicaMaxLagMs <= 0)) {
    throw new TypeError('Invalid calendar options: database.replicaMaxLagMs: expected a positive whole number of milliseconds.')
  }
  if (replicas.length === 0) return undefined
  const handles: { url: string; handle: DatabaseHandle }[] = []
  for (const url of replicas) {
    const { replicas: _none, replicaMaxLagMs: _lag, ...settings } = database
    handles.push({ url, handle: await openDatabase({ ...settings, url }, options.onQuery, options.schema) })
  }
  return createReadRouter(primary, handles, { ...DEFAULT_REPLICA_POLICY, ...(replicaMaxLagMs ? { maxLagMs: replicaMaxLagMs } : {}) })
}
