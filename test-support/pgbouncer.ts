import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { randomFreePort, runAs } from './private-postgres.js'

/**
 * A PgBouncer of one test run (1.21 or later, `scripts/pgbouncer/ensure.sh`), in transaction pooling
 * mode and keeping protocol-level prepared statements (`max_prepared_statements`), in front of a
 * PostgreSQL server: every database name is passed through to the server (`* = host=… port=…`).
 * Its clients get a different server connection for each transaction, so whatever a calendar
 * keeps in a session is lost or seen by another client: what `database.pooler: 'transaction'` must cope with.
 */
export interface PgBouncer {
  /** The loopback port it listens on (25000-29999). */
  readonly port: number
  /** Its version, as `pgbouncer --version` says it (`PgBouncer 1.24.1`). */
  readonly version: string
  /** `url` with PgBouncer's host and port instead of the server's (same user and database). */
  through(url: string): string
  /** Runs a SHOW command on PgBouncer's admin console (`SHOW POOLS`, `SHOW STATS`). */
  show(what: string): string
  /** Stops it and deletes its directory. */
  stop(): Promise<void>
}

const ENSURE_SCRIPT = fileURLToPath(new URL('../scripts/pgbouncer/ensure.sh', import.meta.url))
let binary: string | undefined

/**
 * The PgBouncer binary: `CAL_PGBOUNCER` when set, else what `scripts/pgbouncer/ensure.sh` prints (the
 * one on the PATH when it is 1.21 or later, else 1.24.1 built once into a cache; Debian bookworm's
 * 1.18 cannot keep prepared statements in transaction mode).
 */
export function pgbouncerBinary(): string {
  binary ??= process.env.CAL_PGBOUNCER || execFileSync(ENSURE_SCRIPT, { stdio: ['ignore', 'pipe', 'inherit'] }).toString().trim()
  return binary
}

async function waitForPort(port: number, child: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (open) return
    if (child.exitCode !== null || Date.now() > deadline) {
      const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''
      throw new Error(`PgBouncer did not start on port ${port}:\n${log}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export interface PgBouncerOptions {
  /** The PostgreSQL server behind it. Default 127.0.0.1:5432. */
  serverHost?: string
  serverPort?: number
  /** Server connections per (database, user) pair. Default 20. */
  poolSize?: number
  /** PgBouncer's `max_prepared_statements`: 0 behaves as PgBouncer 1.18 did (none kept). Default 200. */
  maxPreparedStatements?: number
}

/** Starts a private PgBouncer in transaction mode on a random loopback port (about 100 ms). */
export async function startPgBouncer(options: PgBouncerOptions = {}): Promise<PgBouncer> {
  const dir = mkdtempSync(join(tmpdir(), 'cal-pgbouncer-'))
  const user = runAs()
  const port = await randomFreePort()
  const logFile = join(dir, 'pgbouncer.log')
  const ini = join(dir, 'pgbouncer.ini')
  const users = join(dir, 'users.txt')
  writeFileSync(users, '"postgres" ""\n')
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${options.serverHost ?? '127.0.0.1'} port=${options.serverPort ?? 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      // The server trusts loopback connections (the developers' guide's set-up); so does its pooler.
      'auth_type = trust',
      `auth_file = ${users}`,
      'admin_users = postgres',
      'pool_mode = transaction',
      // Protocol-level named statements kept per server connection (`preparedStatements: true`);
      // a calendar names at most 100 texts per pool.
      `max_prepared_statements = ${options.maxPreparedStatements ?? 200}`,
      'max_client_conn = 2000',
      `default_pool_size = ${options.poolSize ?? 20}`,
      // Test databases are dropped WITH (FORCE) at the end while PgBouncer may still hold connections.
      'server_idle_timeout = 5',
      `logfile = ${logFile}`,
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  )
  if (user.uid !== undefined) {
    for (const path of [dir, users, ini]) chownSync(path, user.uid, user.gid!)
  }
  const child = spawn(pgbouncerBinary(), [ini], { ...user, stdio: 'ignore' })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  try {
    await waitForPort(port, child, logFile)
  } catch (err) {
    child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
    throw err
  }
  return {
    port,
    version: execFileSync(pgbouncerBinary(), ['--version']).toString().split('\n')[0]!.trim(),
    through(url) {
      const u = new URL(url)
      u.hostname = '127.0.0.1'
      u.port = String(port)
      return u.href
    },
    show(what) {
      return execFileSync('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-At', 'pgbouncer', '-c', `show ${what}`]).toString()
    },
    async stop() {
      if (child.exitCode === null) {
        // SIGINT: PgBouncer's safe shutdown would wait for clients; SIGTERM ends it at once.
        child.kill('SIGTERM')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
