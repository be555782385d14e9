import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { startBalancer, waitForOk } from '../../test-support/haproxy.js'
import { startPgBouncer, type PgBouncer } from '../../test-support/pgbouncer.js'
import { randomFreePort } from '../../test-support/private-postgres.js'
import { startReplicatedPair, type ReplicatedPair } from '../../test-support/replication.js'

// The many-instances harness (issue 32 item 3, docs/scaling.md): on loopback ports in 25000-29999,
// a primary (a private initdb), a streaming replica of it (pg_basebackup -R), PgBouncer 1.21 or
// later (scripts/pgbouncer/ensure.sh) in transaction mode in front of the primary, N example servers
// (CAL_DB_POOLER=transaction through PgBouncer, CAL_DATABASE_REPLICA_URLS = the replica) and
// Debian's HAProxy round-robin in front.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

export interface ClusterOptions {
  /** Server instances behind the balancer (default 3). */
  instances?: number
  /** The replica's `recovery_min_apply_delay` in ms (default 0). */
  applyDelayMs?: number
  /** `source` runs examples/server/src through tsx (the working tree as it is); `dist` runs the build (`pnpm build` first). */
  server?: 'source' | 'dist'
  /** Connections of each instance's pool (default 4). */
  poolSize?: number
  /** More environment for every instance. */
  env?: Record<string, string>
}

export interface Instance {
  readonly port: number
  readonly url: string
  running(): boolean
  /** SIGKILL: the process dies with whatever it had in flight. */
  kill(): Promise<void>
  start(): Promise<void>
}

export interface Cluster {
  /** The balancer's base URL (`http://127.0.0.1:PORT`); the API is under `/cal/events/v1`. */
  readonly url: string
  readonly instances: readonly Instance[]
  readonly pair: ReplicatedPair
  readonly bouncer: PgBouncer
  /** The administrator token every instance registered (`CAL_ADMIN_TOKEN`). */
  readonly adminToken: string
  /** The calendar database on the primary, directly (checks against the truth). */
  readonly primaryDatabaseUrl: string
  stop(): Promise<void>
}

function instance(port: number, env: Record<string, string>, server: 'source' | 'dist'): Instance {
  let child: ChildProcess | undefined
  let exited: Promise<void> = Promise.resolve()
  const url = `http://127.0.0.1:${port}`
  const handle: Instance = {
    port,
    url,
    running: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    async start() {
      const args = server === 'dist'
        ? [join(ROOT, 'examples/server/dist/main.js')]
        : ['--conditions=source', '--import', 'tsx', join(ROOT, 'examples/server/src/main.ts')]
      child = spawn(process.execPath, args, { cwd: join(ROOT, 'examples/server'), env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] })
      const started = child
      let stderr = ''
      started.stderr?.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-4000)
        process.stderr.write(chunk)
      })
      exited = new Promise((r) => started.once('exit', () => r()))
      await waitForOk(`${url}/readyz`, started, 90_000).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}; its stderr ended with: ${stderr.trim() || '(nothing)'}`)
      })
    },
    async kill() {
      if (!handle.running()) return
      child!.kill('SIGKILL')
      await exited
    },
  }
  return handle
}

/** Starts the whole cluster (about 15 s with `source` on an idle two-core machine). Stop it when done. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const cleanups: (() => Promise<void>)[] = []
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {})
  }
  try {
    const pair = await startReplicatedPair({ applyDelayMs: options.applyDelayMs ?? 0, maxConnections: 200 })
    cleanups.push(() => pair.destroy())
    const admin = new pg.Client({ connectionString: pair.primary.url })
    await admin.connect()
    await admin.query('create database calendar')
    await admin.end()
    await pair.caughtUp()
    const bouncer = await startPgBouncer({ serverPort: pair.primary.port, poolSize: 10 })
    cleanups.push(() => bouncer.stop())
    const databaseUrl = bouncer.through(`postgres://postgres@127.0.0.1:${pair.primary.port}/calendar`)
    const replicaUrl = `postgres://postgres@127.0.0.1:${pair.replica.port}/calendar`
    const adminToken = `cluster-${randomBytes(16).toString('hex')}`
    const env = {
      DATABASE_URL: databaseUrl,
      CAL_DB_POOLER: 'transaction',
      CAL_DB_PREPARED_STATEMENTS: '1',
      CAL_DATABASE_REPLICA_URLS: replicaUrl,
      CAL_DB_POOL_SIZE: String(options.poolSize ?? 4),
      CAL_ADMIN_TOKEN: adminToken,
      CAL_LOG_LEVEL: 'silent',
      CAL_PUBLIC_URL: 'http://cal.cluster.test',
      ...options.env,
    }
    const instances: Instance[] = []
    for (let i = 0; i < (options.instances ?? 3); i++) instances.push(instance(await randomFreePort(), env, options.server ?? 'source'))
    cleanups.push(async () => {
      await Promise.all(instances.map((i) => i.kill()))
    })
    // One after another: the first migrates, the others then find nothing to do. (A full-suite run
    // once saw a second instance, started beside the third, exit 1 before answering; cause not yet
    // found, so each start is alone and a failure now carries the instance's last stderr lines.)
    for (const i of instances) await i.start()
    const balancer = await startBalancer(instances.map((i) => i.port))
    cleanups.push(() => balancer.stop())
    const url = balancer.url
    return { url, instances, pair, bouncer, adminToken, primaryDatabaseUrl: `postgres://postgres@127.0.0.1:${pair.primary.port}/calendar`, stop }
  } catch (err) {
    await stop()
    throw err
  }
}

// `pnpm cluster [--instances N] [--delay MS] [--dist]`: starts it and keeps it up until Ctrl-C.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name)
    return i < 0 ? undefined : process.argv[i + 1]
  }
  const cluster = await startCluster({
    instances: Number(arg('--instances') ?? 3),
    applyDelayMs: Number(arg('--delay') ?? 0),
    server: process.argv.includes('--dist') ? 'dist' : 'source',
  })
  console.log(`Balancer (HAProxy): ${cluster.url}/cal/events/v1`)
  for (const i of cluster.instances) console.log(`Instance: ${i.url}`)
  console.log(`PgBouncer: 127.0.0.1:${cluster.bouncer.port}  primary: ${cluster.pair.primary.url}  replica: ${cluster.pair.replica.url}`)
  console.log(`Administrator token: ${cluster.adminToken}`)
  console.log('Ctrl-C stops everything.')
  const shutdown = () => void cluster.stop().then(() => process.exit(0))
  process.once('SIGINT', shutdown)
  process.once('SIGTERM', shutdown)
}
