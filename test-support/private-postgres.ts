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

function binary(name: string): string {
  for (const dir of BIN_DIRS) {
    const path = join(dir, name)
    if (existsSync(path)) return path
  }
  return name
}

/** PostgreSQL refuses to run as root; tests that run as root hand the server to `postgres`. */
function runAs(): Pick<SpawnOptions, 'uid' | 'gid'> {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {}
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim())
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim())
  return { uid, gid }
}

async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Creates and starts a private PostgreSQL server (about 2 s). Destroy it in afterAll. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'cal-pg-'))
  const user = runAs()
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid!)
  const dataDir = join(dir, 'data')
  execFileSync(binary('initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'], {
    ...user,
    stdio: 'pipe',
  })
  const port = await freePort()
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  let server: ChildProcess | undefined
  let exited: Promise<void> = Promise.resolve()

  async function waitUntilReady(): Promise<void> {
    const deadline = Date.now() + 20_000
    for (;;) {
      const client = new pg.Client({ connectionString: url })
      client.on('error', () => {})
      try {
        await client.connect()
        await client.end()
        return
      } catch (err) {
        await client.end().catch(() => {})
        if (Date.now() > deadline || server?.exitCode !== null) throw err
        await new Promise((r) => setTimeout(r, 50))
      }
    }
  }

  const handle: PrivatePostgres = {
    url,
    port,
    async start() {
      // fsync off: the data is thrown away, and the run shares its disk with other tests.
      server = spawn(
        binary('postgres'),
        ['-D', dataDir, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=60'],
        { ...user, stdio: 'ignore' },
      )
      const child = server
      exited = new Promise((resolve) => child.once('exit', () => resolve()))
      await waitUntilReady()
    },
    async stop(mode = 'fast') {
      if (!server || server.exitCode !== null) return
      // SIGINT is PostgreSQL's fast shutdown, SIGQUIT its immediate one.
      server.kill(mode === 'fast' ? 'SIGINT' : 'SIGQUIT')
      await exited
    },
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
