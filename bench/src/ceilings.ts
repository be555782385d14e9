import pg from 'pg'
import { createCalendar } from '@cal-events/core'
import { spawnBenchChild } from './child.js'
import { measure, type LoadResult } from './load.js'
import { startBareServer, type RunningServer } from './server.js'

/** A response as captured from the calendar, to be replayed by the bare server. */
export interface CapturedResponse {
  status: number
  headers: Record<string, string>
  body: Buffer
}

export async function captureResponse(server: RunningServer, path: string): Promise<CapturedResponse> {
  const res = await fetch(`${server.base}${path}`)
  const body = Buffer.from(await res.arrayBuffer())
  const headers: Record<string, string> = {}
  // What the calendar sets; Date/Connection/Keep-Alive come from node:http in both servers.
  for (const name of ['content-type', 'x-cal-total', 'x-cal-totalpages', 'content-length']) {
    const v = res.headers.get(name)
    if (v !== null) headers[name] = v
  }
  return { status: res.status, headers, body }
}

/** Ceiling 1: node:http answering the captured bytes, same connections and duration. */
export async function bareHttpCeiling(
  captured: CapturedResponse,
  run: { connections: number; duration: number; warmup: number },
): Promise<LoadResult> {
  const bare = await startBareServer(captured.status, captured.headers, captured.body)
  try {
    return await measure(bare, { spec: { path: '/' } }, { ...run, stats: false })
  } finally {
    await bare.stop()
  }
}

export interface Statement {
  text: string
  values: unknown[]
}

/**
 * The SQL a default list request issues, with its parameters: a calendar in this process lists
 * twice (the first request may differ, e.g. a cold cache) while pg's Client#query is observed.
 */
export async function captureListSql(url: string, query: Record<string, unknown> = {}): Promise<{ first: Statement[]; warm: Statement[] }> {
  const calendar = await createCalendar({ database: { url, poolSize: 1 }, migrate: false })
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }
  const original = proto.query
  let seen: Statement[] = []
  proto.query = function (this: unknown, ...args: unknown[]) {
    const [text, values] = args
    // The pool's once-per-connection setting is not part of a request.
    if (typeof text === 'string' && /^set /i.test(text)) return original.apply(this, args)
    if (typeof text === 'string') seen.push({ text, values: Array.isArray(values) ? values : [] })
    else if (text && typeof text === 'object' && 'text' in text) seen.push({ text: String((text as { text: string }).text), values: (text as { values?: unknown[] }).values ?? [] })
    return original.apply(this, args)
  }
  try {
    await calendar.events.list(query, { as: null })
    const first = seen
    seen = []
    await calendar.events.list(query, { as: null })
    return { first, warm: seen }
  } finally {
    proto.query = original
    await calendar.close()
  }
}

export interface SqlCeiling {
  /** Statements of one list request. */
  statements: number
  /** Whole requests (all their statements, in order) per second. */
  requestsPerSecond: number
  statementsPerSecond: number
  p50: number
  p99: number
}

const textTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    // As the calendar's pool: timestamps stay text.
    if (oid === 1114 || oid === 1184) return (v: string) => v
    return pg.types.getTypeParser(oid as never, format)
  },
} as unknown as pg.CustomTypesConfig

/**
 * The calendar's list statement takes the last known total and its snapshot as its first two
 * parameters and returns the current ones; a client replaying it keeps them current the same way,
 * so a write elsewhere on the server costs it one count, as it costs the calendar.
 */
export function followKnownCount(values: unknown[], rows: Record<string, unknown>[]): unknown[] {
  const head = rows[0]
  if (!head || typeof head.snapshot !== 'string' || typeof head.total !== 'number' || typeof values[0] !== 'string') return values
  return [head.snapshot, head.total, ...values.slice(2)]
}

/** What `ceiling-child.ts` is told to do (its one argument, as JSON). */
export interface SqlCeilingJob {
  url: string
  statements: Statement[]
  run: { connections: number; duration: number; warmup: number }
  /** Follow the snapshot and total each answer carries (`followKnownCount`). */
  follow: boolean
}

/**
 * Ceiling 2: the list's statements through a pg.Pool of `connections`, by as many concurrent loops,
 * in a fresh process (`ceiling-child.ts`), as the load generator runs (`load.ts`).
 */
export async function sqlCeiling(
  url: string,
  statements: Statement[],
  run: { connections: number; duration: number; warmup: number },
  follow = false,
): Promise<SqlCeiling> {
  const job: SqlCeilingJob = { url, statements, run, follow }
  const child = spawnBenchChild('./ceiling-child.ts', job, ['ignore', 'pipe', 'inherit'])
  let out = ''
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  if (code !== 0) throw new Error(`SQL ceiling client exited with ${code}`)
  return JSON.parse(out) as SqlCeiling
}

/** The SQL ceiling's loops, in this process. */
export async function sqlCeilingHere(
  url: string,
  statements: Statement[],
  run: { connections: number; duration: number; warmup: number },
  follow?: typeof followKnownCount,
): Promise<SqlCeiling> {
  const pool = new pg.Pool({ connectionString: url, max: run.connections, types: textTypes })
  const loop = async (until: number, latencies: number[] | undefined) => {
    const values = statements.map((s) => s.values)
    let n = 0
    while (performance.now() < until) {
      const t = performance.now()
      for (const [i, s] of statements.entries()) {
        // Named, as the calendar's pool runs a hot statement: parsed and planned once per connection.
        const result = await pool.query({ name: `ceiling_${i}`, text: s.text, values: values[i] })
        if (follow) values[i] = follow(values[i]!, result.rows)
      }
      latencies?.push(performance.now() - t)
      n++
    }
    return n
  }
  try {
    const warmEnd = performance.now() + run.warmup * 1000
    await Promise.all(Array.from({ length: run.connections }, () => loop(warmEnd, undefined)))
    const latencies: number[] = []
    const start = performance.now()
    const end = start + run.duration * 1000
    const counts = await Promise.all(Array.from({ length: run.connections }, () => loop(end, latencies)))
    const seconds = (performance.now() - start) / 1000
    const total = counts.reduce((a, b) => a + b, 0)
    latencies.sort((a, b) => a - b)
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
    return {
      statements: statements.length,
      requestsPerSecond: total / seconds,
      statementsPerSecond: (total * statements.length) / seconds,
      p50: at(0.5),
      p99: at(0.99),
    }
  } finally {
    await pool.end()
  }
}
