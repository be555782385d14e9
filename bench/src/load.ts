import { createInterface } from 'node:readline'
import type autocannon from 'autocannon'
import { spawnBenchChild } from './child.js'
import { cpuMark, cpuPerRequest, type CpuPerRequest } from './cpu.js'
import type { Targets } from './scenarios.js'
import { rssOf, serverStats, type RunningServer } from './server.js'

/** What a scenario sends: one request, or a function that builds the next one (ids, bodies…). */
export interface LoadSpec {
  method?: 'GET' | 'POST' | 'PATCH'
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

/**
 * What a measurement sends: a fixed request, or a scenario the generator's process rebuilds from
 * the targets (a `next` function cannot cross to that process as JSON).
 */
export type LoadSource = { spec: Omit<LoadSpec, 'next'> } | { scenario: string; targets: Targets }

/** What `load-child.ts` is told to do (its one argument, as JSON). */
export interface GeneratorJob {
  base: string
  source: LoadSource
  connections: number
  duration: number
  warmup: number
}

/** What `load-child.ts` reports of its measured run. */
export type GeneratorResult = Pick<LoadResult, 'rps' | 'requests' | 'p50' | 'p90' | 'p99' | 'max' | 'errors' | 'non2xx'>

const drain = () => new Promise((resolve) => setTimeout(resolve, 300))

/** Options of one autocannon run of `spec` against the server at `base`. */
export function autocannonOptions(base: string, spec: LoadSpec, connections: number, duration: number): autocannon.Options {
  let i = 0
  const next = spec.next
  const prefix = new URL(base).pathname.replace(/\/$/, '')
  return {
    url: base,
    connections,
    duration,
    timeout: 30,
    requests: [
      {
        method: spec.method ?? 'GET',
        path: `${prefix}${spec.path}`,
        headers: spec.headers ?? {},
        ...(spec.body !== undefined ? { body: spec.body } : {}),
        ...(next
          ? {
              setupRequest: (req: autocannon.Request) => {
                const n = next(i++)
                req.path = `${prefix}${n.path}`
                if (n.body !== undefined) req.body = n.body
                return req
              },
            }
          : {}),
      },
    ],
  }
}

/** A load generator process that has finished its warm-up and waits for "go". */
interface Generator {
  pid: number
  run(): Promise<GeneratorResult>
  close(): void
}

/**
 * Starts autocannon in a process of its own, fresh for each measurement: in the harness's process
 * its garbage collector did three times the work by the ceiling rounds (after the bare server's
 * 19,000 requests a second), and its pauses delayed reading responses, which counts as latency.
 */
async function startGenerator(job: GeneratorJob): Promise<Generator> {
  const child = spawnBenchChild('./load-child.ts', job, ['pipe', 'pipe', 'inherit'])
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`load generator exited with ${code}`))))
  exited.catch(() => {})
  const nextLine = async () => {
    const { value, done } = await Promise.race([lines.next(), exited])
    if (done) throw new Error('load generator closed its output')
    return value
  }
  const ready = await nextLine()
  if (ready !== 'ready') throw new Error(`load generator said ${ready}`)
  return {
    pid: child.pid!,
    async run() {
      child.stdin!.write('go\n')
      return JSON.parse(await nextLine()) as GeneratorResult
    },
    close() {
      child.stdin!.end('exit\n')
    },
  }
}

/**
 * Warm-up, then a measured run at `connections` for `duration` seconds, by a load generator in its
 * own process. Statements per request come from the server's stats endpoint (delta of statements
 * over delta of requests), RSS from /proc sampled every 200 ms.
 */
export async function measure(
  server: RunningServer,
  source: LoadSource,
  { connections, duration, warmup, stats }: { connections: number; duration: number; warmup: number; stats: boolean },
): Promise<LoadResult> {
  const generator = await startGenerator({ base: server.base, source, connections, duration, warmup })
  try {
    // Requests cut off at the end of a run still finish on the server; let them, so the counters
    // taken around the measurement do not split a request.
    await drain()
    const before = stats ? await serverStats(server) : undefined
    let rssPeak = rssOf(server.pid)
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssOf(server.pid))), 200)
    let result: GeneratorResult
    const cpuBefore = cpuMark(server.pid, generator.pid, server.database)
    let cpuAfter
    try {
      result = await generator.run()
      cpuAfter = cpuMark(server.pid, generator.pid, server.database)
    } finally {
      clearInterval(sampler)
    }
    rssPeak = Math.max(rssPeak, rssOf(server.pid))
    await drain()
    const after = stats ? await serverStats(server) : undefined
    // The stats request itself is not counted by the server (it answers before the counter).
    const sqlPerRequest =
      before && after && after.requests > before.requests ? (after.queries - before.queries) / (after.requests - before.requests) : undefined
    return { ...result, sqlPerRequest, rssPeak, cpu: cpuPerRequest(cpuBefore, cpuAfter, result.requests) }
  } finally {
    generator.close()
  }
}
