import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { appendFileSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { randomFreePort } from './pgbouncer.js'

/**
 * A private primary and a streaming replica of it (PostgreSQL's own `pg_basebackup -R`), each on
 * a random loopback port in 25000-29999 and a temp directory, for tests and the cluster harness
 * that stop and start the replica: the machine's shared server on 5432 is never touched.
 */
export interface PgServer {
  readonly url: string
  readonly port: number
  readonly dataDir: string
  start(): Promise<void>
  /** `fast` rolls back open transactions and disconnects clients; `immediate` is a crash. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>
  running(): boolean
}

export interface ReplicatedPair {
  readonly primary: PgServer
  readonly replica: PgServer
  /** Waits until the replica has replayed the primary's current WAL position. */
  caughtUp(timeoutMs?: number): Promise<void>
  destroy(): Promise<void>
}

const BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin', '/usr/local/bin', '/usr/bin']

function binary(name: string): string {
  for (const dir of BIN_DIRS) {
    const path = join(dir, name)
    if (existsSync(path)) return path
  }
  return name
}

/** PostgreSQL refuses to run as root; a run as root hands the servers to `postgres`. */
function runAs(): { uid?: number; gid?: number } {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {}
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  }
}

function server(dataDir: string, socketDir: string, port: number, settings: Record<string, string>): PgServer {
  const user = runAs()
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  let child: ChildProcess | undefined
  let exited: Promise<void> = Promise.resolve()
  const handle: PgServer = {
    url,
    port,
    dataDir,
    running: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    async start() {
      const args = ['-D', dataDir, '-p', String(port), '-k', socketDir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off']
      for (const [name, value] of Object.entries(settings)) args.push('-c', `${name}=${value}`)
      child = spawn(binary('postgres'), args, { ...user, stdio: 'ignore' })
      const started = child
      exited = new Promise((resolve) => started.once('exit', () => resolve()))
      const deadline = Date.now() + 30_000
      for (;;) {
        const client = new pg.Client({ connectionString: url })
        client.on('error', () => {})
        try {
          await client.connect()
          await client.end()
          return
        } catch (err) {
          await client.end().catch(() => {})
          if (Date.now() > deadline || started.exitCode !== null) throw err
          await new Promise((r) => setTimeout(r, 50))
        }
      }
    },
    async stop(mode = 'fast') {
      if (!handle.running()) return
      // SIGINT is PostgreSQL's fast shutdown, SIGQUIT its immediate one.
      child!.kill(mode === 'fast' ? 'SIGINT' : 'SIGQUIT')
      await exited
    },
  }
  return handle
}

export interface ReplicatedPairOptions {
  /** The replica's `recovery_min_apply_delay` in ms (0: replay as soon as WAL arrives). */
  applyDelayMs?: number
  /** `max_connections` of each server (default 100). */
  maxConnections?: number
}

/** initdb, start the primary, pg_basebackup -R a replica of it, start the replica (about 3 s). */
export async function startReplicatedPair(options: ReplicatedPairOptions = {}): Promise<ReplicatedPair> {
  const dir = mkdtempSync(join(tmpdir(), 'cal-repl-'))
  const user = runAs()
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid!)
  const primaryDir = join(dir, 'primary')
  const replicaDir = join(dir, 'replica')
  execFileSync(binary('initdb'), ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'], { ...user, stdio: 'pipe' })
  const common = { max_connections: String(options.maxConnections ?? 100) }
  const primaryPort = await randomFreePort()
  const primary = server(primaryDir, dir, primaryPort, { ...common, wal_level: 'replica', max_wal_senders: '4' })
  await primary.start()
  let replica: PgServer | undefined
  try {
    execFileSync(binary('pg_basebackup'), ['-D', replicaDir, '-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-R', '-X', 'stream', '--no-sync'], { ...user, stdio: 'pipe' })
    const replicaPort = await randomFreePort()
    // Settings of the standby: its delay, and queries not cancelled by replay for a while.
    appendFileSync(replicaDir + '/postgresql.auto.conf', `recovery_min_apply_delay = '${options.applyDelayMs ?? 0}ms'\nhot_standby_feedback = on\n`)
    replica = server(replicaDir, dir, replicaPort, common)
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
