import { execFileSync } from 'node:child_process'
import { appendFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { binary, initdb, pgServer, randomFreePort, runAs, serverDir, type PgServer } from './private-postgres.js'

/**
 * A private primary and a streaming replica of it (PostgreSQL's own `pg_basebackup -R`), each on
 * a random loopback port in 25000-29999 and a temp directory, for tests and the cluster harness
 * that stop and start the replica: the machine's shared server on 5432 is never touched.
 */
export interface ReplicatedPair {
  readonly primary: PgServer
  readonly replica: PgServer
  /** Waits until the replica has replayed the primary's current WAL position. */
  caughtUp(timeoutMs?: number): Promise<void>
  destroy(): Promise<void>
}

export interface ReplicatedPairOptions {
  /** The replica's `recovery_min_apply_delay` in ms (0: replay as soon as WAL arrives). */
  applyDelayMs?: number
  /** `max_connections` of each server (default 100). */
  maxConnections?: number
}

/** initdb, start the primary, pg_basebackup -R a replica of it, start the replica (about 3 s). */
export async function startReplicatedPair(options: ReplicatedPairOptions = {}): Promise<ReplicatedPair> {
  const dir = serverDir('cal-repl-')
  const primaryDir = join(dir, 'primary')
  const replicaDir = join(dir, 'replica')
  initdb(primaryDir)
  const common = { max_connections: String(options.maxConnections ?? 100) }
  const primaryPort = await randomFreePort()
  const primary = pgServer(primaryDir, dir, primaryPort, { ...common, wal_level: 'replica', max_wal_senders: '4' })
  await primary.start()
  let replica: PgServer | undefined
  try {
    execFileSync(binary('pg_basebackup'), ['-D', replicaDir, '-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-R', '-X', 'stream', '--no-sync'], { ...runAs(), stdio: 'pipe' })
    const replicaPort = await randomFreePort()
    // Settings of the standby: its delay, and queries not cancelled by replay for a while.
    appendFileSync(replicaDir + '/postgresql.auto.conf', `recovery_min_apply_delay = '${options.applyDelayMs ?? 0}ms'\nhot_standby_feedback = on\n`)
    replica = pgServer(replicaDir, dir, replicaPort, common)
    await replica.start()
  } catch (err) {
    await primary.stop('immediate')
    rmSync(dir, { recursive: true, force: true })
    throw err
  }
  const standby = replica
  return {
    primary,
    replica: standby,
    async caughtUp(timeoutMs = 30_000) {
      const p = new pg.Client({ connectionString: primary.url })
      const r = new pg.Client({ connectionString: standby.url })
      await Promise.all([p.connect(), r.connect()])
      try {
        const target = (await p.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows[0]!.lsn
        const deadline = Date.now() + timeoutMs
        for (;;) {
          const { rows } = await r.query<{ done: boolean }>('select pg_last_wal_replay_lsn() >= $1::pg_lsn as done', [target])
          if (rows[0]!.done) return
          if (Date.now() > deadline) throw new Error(`replica did not replay ${target} within ${timeoutMs} ms`)
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      } finally {
        await Promise.all([p.end(), r.end()])
      }
    },
    async destroy() {
      await standby.stop('immediate')
      await primary.stop('immediate')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
