import pg from 'pg'
import { createCalendar } from '@cal-events/core'
import { calendarTypes, followKnownTotal } from '@cal-events/core/internal'
import { spawnBenchChild } from './child.js'
import { measure, type LoadResult } from './load.js'
import { startBareServer, type RunningServer } from './server.js'
import { CALENDAR_SCHEMA_OPTION } from './db.js'

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
 * twice (the first request may differ, e.g. a cold cache), its `onQuery` hook recording each
 * statement as sent.
 */
export async function captureListSql(url: string, query: Record<string, unknown> = {}): Promise<{ first: Statement[]; warm: Statement[] }> {
  let seen: Statement[] = []
  const calendar = await createCalendar({
    database: { url, poolSize: 1 },
    migrate: false,
    onQuery: (text, _ms, values) => seen.push({ text, values: [...values] }),
  })
  try {
    await calendar.events.list(query, { as: null })
    const first = seen
    seen = []
    await calendar.events.list(query, { as: null })
    return { first, warm: seen }
  } finally {
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

/** What `ceiling-child.ts` is told to do (its one argument, as JSON). */
export interface SqlCeilingJob {
  url: string
  statements: Statement[]
  run: { connections: number; duration: number; warmup: number }
  /** Follow the point and total each answer carries (core's `followKnownTotal`, as the calendar does). */
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
  follow?: typeof followKnownTotal,
): Promise<SqlCeiling> {
  // The calendar's own type parsers: timestamps stay text, as the calendar's pool reads them.
  const pool = new pg.Pool({ connectionString: url, max: run.connections, types: calendarTypes, options: CALENDAR_SCHEMA_OPTION })
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
