import autocannon from 'autocannon'
import { cpuMark, cpuPerRequest, type CpuPerRequest } from './cpu.js'
import { rssOf, serverStats, type RunningServer } from './server.js'

/** What a scenario sends: one request, or a function that builds the next one (ids, bodies…). */
export interface LoadSpec {
  method?: 'GET' | 'POST'
  /** Path under the server's base URL (e.g. `/events?per_page=5`). */
  path: string
  headers?: Record<string, string>
  body?: string
  /** Varies each request; gets a counter. */
  next?: (i: number) => { path: string; body?: string }
}

export interface LoadResult {
  rps: number
  p50: number
  p90: number
  p99: number
  max: number
  requests: number
  errors: number
  non2xx: number
  /** SQL statements per request (stats endpoint), `undefined` for servers without one. */
  sqlPerRequest: number | undefined
  /** Peak resident set size of the server process during the measurement, bytes. */
  rssPeak: number
  /** CPU ms per request: server process, PostgreSQL processes, load generator (this process), rest. */
  cpu: CpuPerRequest
}

const drain = () => new Promise((resolve) => setTimeout(resolve, 300))

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)))
  })
}

function options(server: RunningServer, spec: LoadSpec, connections: number, duration: number): autocannon.Options {
  let i = 0
  const next = spec.next
  return {
    url: server.base,
    connections,
    duration,
    timeout: 30,
    requests: [
      {
        method: spec.method ?? 'GET',
        path: `${new URL(server.base).pathname.replace(/\/$/, '')}${spec.path}`,
        headers: spec.headers ?? {},
        ...(spec.body !== undefined ? { body: spec.body } : {}),
        ...(next
          ? {
              setupRequest: (req: autocannon.Request) => {
                const n = next(i++)
                req.path = `${new URL(server.base).pathname.replace(/\/$/, '')}${n.path}`
                if (n.body !== undefined) req.body = n.body
                return req
              },
            }
          : {}),
      },
    ],
  }
}

/**
 * Warm-up, then a measured run at `connections` for `duration` seconds. Statements per request
 * come from the server's stats endpoint (delta of statements over delta of requests), RSS from
 * /proc sampled every 200 ms.
 */
export async function measure(
  server: RunningServer,
  spec: LoadSpec,
  { connections, duration, warmup, stats }: { connections: number; duration: number; warmup: number; stats: boolean },
): Promise<LoadResult> {
  if (warmup > 0) await run(options(server, spec, connections, warmup))
  // Requests cut off at the end of a run still finish on the server; let them, so the counters
  // taken around the measurement do not split a request.
  await drain()
  const before = stats ? await serverStats(server) : undefined
  let rssPeak = rssOf(server.pid)
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssOf(server.pid))), 200)
  let result: autocannon.Result
  const cpuBefore = cpuMark(server.pid)
  let cpuAfter
  try {
    result = await run(options(server, spec, connections, duration))
    cpuAfter = cpuMark(server.pid)
  } finally {
    clearInterval(sampler)
  }
  rssPeak = Math.max(rssPeak, rssOf(server.pid))
  await drain()
  const after = stats ? await serverStats(server) : undefined
  // The stats request itself is not counted by the server (it answers before the counter).
  const sqlPerRequest =
    before && after && after.requests > before.requests ? (after.queries - before.queries) / (after.requests - before.requests) : undefined
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    requests: result.requests.total,
    errors: result.errors,
    non2xx: result.non2xx,
    sqlPerRequest,
    rssPeak,
    cpu: cpuPerRequest(cpuBefore, cpuAfter, result.requests.total),
  }
}
