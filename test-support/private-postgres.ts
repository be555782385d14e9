import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

/**
 * A PostgreSQL server of one test alone (initdb into a temp dir, its own port), for fault tests
 * that stop, restart or kill the database: the shared server on 5432 must never be touched.
 */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  readonly url: string
  readonly port: number
  /** Starts the server (again) and resolves once it accepts connections. */
  start(): Promise<void>
  /** Stops it: `fast` rolls back open transactions and disconnects every client. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>
  /** Terminates every client backend but the caller's own; resolves with how many it ended. */
  terminateBackends(): Promise<number>
  /** Runs one statement on the `postgres` database. */
  query<R extends pg.QueryResultRow = Record<string, unknown>>(text: string, values?: unknown[]): Promise<R[]>
  /** Stops the server and deletes its directory. */
  destroy(): Promise<void>
}

const BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin', '/usr/local/bin', '/usr/bin']

/** The path of a PostgreSQL program (`initdb`, `postgres`, `pg_basebackup`): Debian keeps them off the PATH. */
export function binary(name: string): string {
  for (const dir of BIN_DIRS) {
    const path = join(dir, name)
    if (existsSync(path)) return path
  }
  return name
}

/** PostgreSQL and PgBouncer refuse to run as root; a run as root hands them to `postgres`. */
export function runAs(): Pick<SpawnOptions, 'uid' | 'gid'> {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {}
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim())
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim())
  return { uid, gid }
}

/** A free loopback port in 25000-29999, picked at random (other runs pick theirs from the same range). */
export async function randomFreePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 25000 + Math.floor(Math.random() * 5000)
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer()
      server.once('error', () => resolve(false))
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
    })
    if (free) return port
  }
  throw new Error('no free port in 25000-29999')
}

/** A temp directory for private servers, owned by the user they run as. */
export function serverDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const user = runAs()
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid!)
  return dir
}

/** `initdb` of a new cluster in `dataDir`, superuser `postgres` trusted. */
export function initdb(dataDir: string): void {
  execFileSync(binary('initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'], {
    ...runAs(),
    stdio: 'pipe',
  })
}

/** One `postgres` process over a data directory, on a loopback port. */
export interface PgServer {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  readonly url: string
  readonly port: number
  readonly dataDir: string
  /** Starts the server (again) and resolves once it accepts connections. */
  start(): Promise<void>
  /** `fast` rolls back open transactions and disconnects clients; `immediate` is a crash. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>
  running(): boolean
}

/** A server over an initialised `dataDir` (not started); `settings` are passed as `-c name=value`. */
export function pgServer(dataDir: string, socketDir: string, port: number, settings: Record<string, string> = {}): PgServer {
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
      // fsync off: the data is thrown away, and the run shares its disk with other tests.
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

/** Creates and starts a private PostgreSQL server (about 2 s). Destroy it in afterAll. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = serverDir('cal-pg-')
  const dataDir = join(dir, 'data')
  initdb(dataDir)
  const server = pgServer(dataDir, dir, await randomFreePort(), { max_connections: '60' })
  const url = server.url

  const handle: PrivatePostgres = {
    url,
    port: server.port,
    start: () => server.start(),
    stop: (mode) => server.stop(mode),
    async terminateBackends() {
      const rows = await handle.query<{ ended: boolean }>(
        `select pg_terminate_backend(pid) as ended from pg_stat_activity
          where pid <> pg_backend_pid() and backend_type = 'client backend'`,
      )
      return rows.filter((r) => r.ended).length
    },
    async query(text, values) {
      const client = new pg.Client({ connectionString: url })
      client.on('error', () => {})
      await client.connect()
      try {
        return (await client.query(text, values)).rows
      } finally {
        await client.end()
      }
    },
    async destroy() {
      await handle.stop('immediate')
      rmSync(dir, { recursive: true, force: true })
    },
  }
  try {
    await handle.start()
  } catch (err) {
    await handle.destroy()
    throw err
  }
  return handle
}
