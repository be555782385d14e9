import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The example server's production build. */
export const SERVER_MAIN = fileURLToPath(new URL('../../examples/server/dist/main.js', import.meta.url))

export const ADMIN_TOKEN = 'cal_bench_admin_token_0123456789'

/** A running child process serving HTTP. */
export interface RunningServer {
  /** `http://127.0.0.1:PORT` */
  origin: string
  /** `origin` + `/cal/events/v1` for the calendar; just `origin` for a bare server. */
  base: string
  pid: number
  /** The PostgreSQL database a calendar server uses (none for PGlite or a bare server). */
  database?: string
  stop(): Promise<void>
}

export interface ServerStats {
  queries: number
  requests: number
  rss: number
}

/** Resident set size of a process in bytes (VmRSS), or 0 when it is gone. */
export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) * 1024 : 0
  } catch {
    return 0
  }
}

/** Waits for `pattern` on the child's stdout; rejects when it exits first or after `timeoutMs`. */
function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number, log: string[]): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let buffer = ''
    const timer = setTimeout(() => reject(new Error(`server did not start within ${timeoutMs} ms:\n${log.join('')}`)), timeoutMs)
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString()
      log.push(chunk.toString())
      const m = pattern.exec(buffer)
      if (m) {
        clearTimeout(timer)
        resolve(m)
      }
    })
    child.stderr!.on('data', (chunk: Buffer) => log.push(chunk.toString()))
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`server exited with ${code} before listening:\n${log.join('')}`))
    })
  })
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      const force = setTimeout(() => child.kill('SIGKILL'), 15_000)
      child.once('exit', () => {
        clearTimeout(force)
        resolve()
      })
      child.kill('SIGTERM')
    })
}

/**
 * Starts `node examples/server/dist/main.js` on a free port with the stats endpoint on.
 * `database`: a PostgreSQL URL, or `{ dataDir }` for PGlite. The hot-read cache is off unless
 * `responseCache` is set, so that every other scenario measures the read itself, as before the cache.
 * `env`: more of the server's environment (e.g. `CAL_DB_POOLER`).
 */
export async function startCalendarServer(
  database: string | { dataDir: string },
  { responseCache = false, env: extra = {} }: { responseCache?: boolean; env?: Record<string, string> } = {},
): Promise<RunningServer> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    PORT: '0',
    HOST: '127.0.0.1',
    CAL_ADMIN_TOKEN: ADMIN_TOKEN,
    CAL_DEMO: '0',
    CAL_BENCH_STATS: '1',
    // 0 turns it off; unset is the server's default size.
    ...(responseCache ? {} : { CAL_RESPONSE_CACHE_MB: '0' }),
    ...(process.env.CAL_DB_POOL_SIZE ? { CAL_DB_POOL_SIZE: process.env.CAL_DB_POOL_SIZE } : {}),
    // Request lines at info cost CPU on this 2-core machine; warnings and errors are still logged.
    CAL_LOG_LEVEL: 'warn',
    ...(typeof database === 'string' ? { DATABASE_URL: database } : { CAL_DATA_DIR: database.dataDir }),
    // Node flags for the server only (e.g. a heap limit), to measure their effect; none by default.
    ...(process.env.BENCH_SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS } : {}),
    // The caller's own settings last (a pooler's, a pool size).
    ...extra,
  }
  // Node/V8 flags on the command line (some, like --heap-growing-percent, are refused in NODE_OPTIONS).
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []
  const child = spawn(process.execPath, [...nodeArgs, SERVER_MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  const log: string[] = []
  const m = await waitForLine(child, /listening at (http:\/\/[^/\s]+)(\/\S*)/, 180_000, log)
  // Keep draining the pipes so the child never blocks on a full one.
  child.stdout!.resume()
  child.stderr!.resume()
  const own = typeof database === 'string' ? { database: decodeURIComponent(new URL(database).pathname.slice(1)) } : {}
  return { origin: m[1]!, base: `${m[1]}${m[2]}`, pid: child.pid!, ...own, stop: stopper(child) }
}

export async function serverStats(server: RunningServer): Promise<ServerStats> {
  const res = await fetch(`${server.origin}/__stats`)
  if (!res.ok) throw new Error(`GET /__stats answered ${res.status}`)
  return (await res.json()) as ServerStats
}

/** A bare `node:http` server in its own process, answering every request with these exact bytes and headers. */
export async function startBareServer(status: number, headers: Record<string, string>, body: Buffer): Promise<RunningServer> {
  const code = `
    import { createServer } from 'node:http'
    const { status, headers, body } = JSON.parse(process.env.BARE_RESPONSE)
    const bytes = Buffer.from(body, 'base64')
    const server = createServer((req, res) => {
      req.resume()
      res.writeHead(status, headers)
      res.end(bytes)
    })
    server.keepAliveTimeout = 5000
    server.listen(0, '127.0.0.1', () => console.log('listening at http://127.0.0.1:' + server.address().port + '/'))
    process.on('SIGTERM', () => server.close(() => process.exit(0)) && server.closeAllConnections())
  `
  const env = { PATH: process.env.PATH, BARE_RESPONSE: JSON.stringify({ status, headers, body: body.toString('base64') }) }
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  const log: string[] = []
  const m = await waitForLine(child, /listening at (http:\/\/[^/\s]+)(\/\S*)/, 10_000, log)
  child.stdout!.resume()
  child.stderr!.resume()
  return { origin: m[1]!, base: m[1]!, pid: child.pid!, stop: stopper(child) }
}
