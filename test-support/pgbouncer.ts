import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { chownSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { randomFreePort, runAs } from './private-postgres.js'

/**
 * A PgBouncer of one test run, in transaction pooling mode, in front of a PostgreSQL server: every
 * database name is passed through to the server (`* = host=… port=…`). By default 1.21 or later
 * (`scripts/pgbouncer/ensure.sh`), keeping protocol-level prepared statements (`max_prepared_statements`);
 * `binary` may name an older one (Debian bookworm's 1.18), which keeps none.
 * Its clients get a different server connection for each transaction, so whatever a calendar
 * keeps in a session is lost or seen by another client: what `database.pooler: 'transaction'` must cope with.
 */
export interface PgBouncer {
  /** The loopback port it listens on (25000-29999). */
  readonly port: number
  /** Its version, as `pgbouncer --version` says it (`PgBouncer 1.24.1`). */
  readonly version: string
  /** Whether it keeps protocol-level prepared statements in transaction mode (1.21 or later). */
  readonly keepsPreparedStatements: boolean
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

/** What `pgbouncer --version` says. */
export interface PgBouncerVersion {
  /** Its first line (`PgBouncer 1.18.0`). */
  readonly text: string
  readonly major: number
  readonly minor: number
}

/** The version of the PgBouncer at `path`; `undefined` when there is none there or it does not say. */
export function pgbouncerVersion(path: string): PgBouncerVersion | undefined {
  let out: string
  try {
    out = execFileSync(path, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString()
  } catch {
    return undefined
  }
  const text = out.split('\n')[0]!.trim()
  const match = /^PgBouncer (\d+)\.(\d+)/.exec(text)
  return match ? { text, major: Number(match[1]), minor: Number(match[2]) } : undefined
}

/** Whether that version keeps protocol-level prepared statements in transaction mode (`max_prepared_statements`, 1.21). */
export function keepsPreparedStatements(version: PgBouncerVersion): boolean {
  return version.major > 1 || (version.major === 1 && version.minor >= 21)
}

async function waitForPort(port: number, child: ChildProcess, logFiles: string[]): Promise<void> {
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
      const log = logFiles.map((file) => (existsSync(file) ? readFileSync(file, 'utf8') : '')).join('')
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
  /**
   * PgBouncer's `max_prepared_statements`: 0 behaves as PgBouncer 1.18 did (none kept). Default 200;
   * for a binary older than 1.21 the setting is left out (such a one refuses to start on a key it
   * does not know), and more than 0 is refused.
   */
  maxPreparedStatements?: number
  /** The PgBouncer to run (Debian's `/usr/sbin/pgbouncer`). Default `pgbouncerBinary()`. */
  binary?: string
}

/** Starts a private PgBouncer in transaction mode on a random loopback port (about 100 ms). */
export async function startPgBouncer(options: PgBouncerOptions = {}): Promise<PgBouncer> {
  const path = options.binary ?? pgbouncerBinary()
  const version = pgbouncerVersion(path)
  if (!version) throw new Error(`${path} is not a PgBouncer (\`${path} --version\` did not say \`PgBouncer x.y\`)`)
  const keeps = keepsPreparedStatements(version)
  // PgBouncer 1.18 ends at once on an unknown setting: "unknown parameter:
  // pgbouncer/max_prepared_statements", then "FATAL cannot load config file" (on stderr).
  if (!keeps && (options.maxPreparedStatements ?? 0) > 0) {
    throw new Error(`${path} is ${version.text}: max_prepared_statements needs PgBouncer 1.21 or later`)
  }
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
      ...(keeps ? [`max_prepared_statements = ${options.maxPreparedStatements ?? 200}`] : []),
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
  // What it says before its logfile is open (a refused setting) goes to stderr.
  const stderrFile = join(dir, 'stderr.log')
  const stderr = openSync(stderrFile, 'w')
  const child = spawn(path, [ini], { ...user, stdio: ['ignore', 'ignore', stderr] })
  closeSync(stderr)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  try {
    await waitForPort(port, child, [stderrFile, logFile])
  } catch (err) {
    child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
    throw err
  }
  return {
    port,
    version: version.text,
    keepsPreparedStatements: keeps,
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
