import pg from 'pg'
import { CALENDAR_SCHEMA_OPTION } from './db.js'
import { measure, type LoadResult } from './load.js'
import { allScenarios, type Targets } from './scenarios.js'
import { ADMIN_TOKEN, startCalendarServer, type RunningServer } from './server.js'
import { seededRandom } from '../../test-support/seeded-random.js'

// Steady state (issue 34): a calendar in use is never a fresh seed. The read scenarios are
// measured on the seed, then a history of writes goes through the API (creates, updates, trashes
// spread over categories, tags, venues and dates), then the same scenarios again, in the same run,
// with PostgreSQL's settings as found: no VACUUM or ANALYZE in between (the seed's own is before).
// Then 16 clients write overlapping terms at once: 5xx answers, deadlocks and term counts.

/** Server + PostgreSQL CPU ms per request (the backends of the server's own database when measured). */
export const cpuOf = (r: LoadResult) => r.cpu.server + (r.cpu.postgresOwn ?? r.cpu.postgres)

/** The read scenarios compared before and after the history; `hot-list` on a server with the cache on. */
const READS = ['list', 'list-window-category', 'categories', 'search', 'hot-list'] as const
/** Each read after the history must reach this share of its figure before (issue 34). */
export const STEADY_GOAL = 0.9

export interface SteadyScenario {
  name: string
  before: LoadResult
  after: LoadResult
  ratio: number
}

export interface SteadyResult {
  history: { creates: number; updates: number; trashes: number; seconds: number; perSecond: number; failed: number; logRows: number; deadTerms: number }
  scenarios: SteadyScenario[]
  concurrency: ConcurrencyResult
}

export interface ConcurrencyResult {
  clients: number
  operations: number
  seconds: number
  status5xx: number
  /** Other non-2xx answers (a trashed event's second DELETE is a 410, say): expected, not counted as failures. */
  other4xx: number
  /** `pg_stat_database.deadlocks` of the bench database over the scenario (sessions report as they end). */
  deadlocks: number
  /** Terms whose count as the API answers differs from a recount of published events carrying them. */
  countMismatches: number
}

interface Vocabulary {
  categories: number[]
  tags: number[]
  venues: number[]
  events: number[]
}

type Opts = { connections: number; duration: number; warmup: number }

function pick<T>(next: () => number, from: readonly T[], n: number): T[] {
  const out = new Set<T>()
  while (out.size < Math.min(n, from.length)) out.add(from[Math.floor(next() * from.length)]!)
  return [...out]
}

const day = (base: Date, offsetDays: number) => new Date(base.getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10)

async function withSession<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const withSchema = new URL(url)
  withSchema.searchParams.set('options', CALENDAR_SCHEMA_OPTION)
  const client = new pg.Client({ connectionString: withSchema.href })
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

async function vocabulary(url: string): Promise<Vocabulary> {
  return withSession(url, async (c) => {
    const ids = async (q: string) => (await c.query<{ id: number }>(q)).rows.map((r) => r.id)
    return {
      categories: await ids(`select id from terms where taxonomy = 'category' order by id`),
      tags: await ids(`select id from terms where taxonomy = 'tag' order by id`),
      venues: await ids(`select id from venues where status = 'publish' order by id limit 2000`),
      events: await ids(`select id from events where status = 'publish' and post_parent is null and recurrence is null order by random() limit 20000`),
    }
  })
}

async function api(server: RunningServer, method: string, path: string, body?: unknown): Promise<number> {
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (method === 'POST' && path === '/events' && res.status === 201) return JSON.parse(text).id as number
  return -res.status
}

/**
 * The history: `creates` creates, as many updates (terms, dates, title) and a fifth as many
 * trashes, interleaved, by 4 clients at once (a busy calendar's editors, not a load test).
 */
async function history(server: RunningServer, v: Vocabulary, creates: number): Promise<{ seconds: number; failed: number }> {
  const next = seededRandom(34)
  const base = new Date()
  const ops: ('create' | 'update' | 'trash')[] = []
  for (let i = 0; i < creates; i++) ops.push('create', 'update')
  for (let i = 0; i < Math.round(creates / 5); i++) ops.splice(Math.floor(next() * ops.length), 0, 'trash')
  const pool = [...v.events]
  let i = 0
  let failed = 0
  const started = performance.now()
  const eventBody = () => {
    const d = day(base, Math.floor(next() * 540) - 90)
    return {
      start_date: `${d} ${String(9 + Math.floor(next() * 12)).padStart(2, '0')}:00:00`,
      end_date: `${d} 22:00:00`,
      categories: pick(next, v.categories, 1 + Math.floor(next() * 2)),
      tags: pick(next, v.tags, Math.floor(next() * 4)),
      venue: v.venues[Math.floor(next() * v.venues.length)],
    }
  }
  const worker = async () => {
    while (i < ops.length) {
      const n = i++
      const op = ops[n]!
      let status: number
      if (op === 'create') {
        status = await api(server, 'POST', '/events', { title: `Steady ${n}`, description: 'Written by the steady-state history.', ...eventBody() })
        if (status > 0) pool.push(status)
      } else if (op === 'update') {
        const id = pool[Math.floor(next() * pool.length)]!
        status = await api(server, 'POST', `/events/${id}`, { title: `Steady edit ${n}`, ...eventBody() })
      } else {
        const at = Math.floor(next() * pool.length)
        const [id] = pool.splice(at, 1)
        status = await api(server, 'DELETE', `/events/${id}`)
      }
      if (status < 0 && -status >= 300) failed++
      if (n % 2000 === 0) process.stdout.write(`  history ${n}/${ops.length}\r`)
    }
  }
  await Promise.all(Array.from({ length: 4 }, worker))
  return { seconds: (performance.now() - started) / 1000, failed }
}

/** 16 clients updating (terms replaced in random orders), creating and trashing events sharing a few terms. */
async function concurrency(url: string, v: Vocabulary, perClient: number): Promise<ConcurrencyResult> {
  const deadlocks = () => withSession(url, async (c) => (await c.query<{ n: number }>(`select deadlocks::int as n from pg_stat_database where datname = current_database()`)).rows[0]!.n)
  const before = await deadlocks()
  const server = await startCalendarServer(url)
  const categories = v.categories.slice(0, 6)
  const tags = v.tags.slice(0, 6)
  const events = v.events.slice(0, 300)
  const clients = 16
  let status5xx = 0
  let other4xx = 0
  const started = performance.now()
  let countMismatches: number
  try {
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        const next = seededRandom(1000 + c)
        for (let op = 0; op < perClient; op++) {
          const roll = next()
          let status: number
          if (roll < 0.7) {
            status = await api(server, 'POST', `/events/${events[Math.floor(next() * events.length)]}`, {
              categories: pick(next, categories, 1 + Math.floor(next() * 4)),
              tags: pick(next, tags, Math.floor(next() * 4)),
              ...(next() < 0.2 ? { status: next() < 0.5 ? 'draft' : 'publish' } : {}),
            })
          } else if (roll < 0.9) {
            const d = day(new Date(), Math.floor(next() * 60))
            status = await api(server, 'POST', '/events', {
              title: `Contended ${c}.${op}`,
              start_date: `${d} 10:00:00`,
              end_date: `${d} 11:00:00`,
              categories: pick(next, categories, 2),
              tags: pick(next, tags, 2),
            })
            if (status > 0) events.push(status)
          } else {
            status = await api(server, 'DELETE', `/events/${events[Math.floor(next() * events.length)]}`)
          }
          if (status <= -500) status5xx++
          else if (status < 0 && -status >= 300) other4xx++
        }
      }),
    )
    // Counts as the API answers them, against a recount of published events carrying each term.
    const answered = new Map<number, number>()
    for (const collection of ['categories', 'tags']) {
      for (let page = 1; ; page++) {
        const res = await fetch(`${server.base}/${collection}?hide_empty=0&per_page=50&page=${page}`)
        const body = (await res.json()) as Record<string, unknown> & { total_pages: number }
        for (const t of body[collection] as { id: number; count: number }[]) answered.set(t.id, t.count)
        if (page >= body.total_pages) break
      }
    }
    const recount = await withSession(url, async (c) =>
      (await c.query<{ id: number; n: number }>(`select t.id, (select count(*)::int from event_terms et join events e on e.id = et.event_id
                                                   where et.term_id = t.id and e.status = 'publish') as n from terms t`)).rows,
    )
    countMismatches = recount.filter((t) => answered.get(t.id) !== t.n).length
  } finally {
    await server.stop()
  }
  const seconds = (performance.now() - started) / 1000
  // The server's sessions have ended, so they reported their statistics.
  await new Promise((resolve) => setTimeout(resolve, 500))
  return { clients, operations: clients * perClient, seconds, status5xx, other4xx, deadlocks: (await deadlocks()) - before, countMismatches }
}

async function readScenarios(url: string, targets: Targets, opts: Opts, label: string): Promise<Map<string, LoadResult>> {
  const out = new Map<string, LoadResult>()
  const known = allScenarios(targets).map((s) => s.name)
  for (const cache of [false, true]) {
    const server = await startCalendarServer(url, { responseCache: cache })
    try {
      for (const name of READS.filter((n) => (n === 'hot-list') === cache && known.includes(n))) {
        const r = await measure(server, { scenario: name, targets }, { ...opts, stats: true })
        out.set(name, r)
        console.log(`  ${label} ${name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, SQL/req ${r.sqlPerRequest?.toFixed(2) ?? '–'}`)
      }
    } finally {
      await server.stop()
    }
  }
  return out
}

/** The steady-state run on a seeded PostgreSQL database (its url and targets). */
export async function steadyRun(url: string, targets: Targets, opts: Opts, creates: number): Promise<SteadyResult> {
  const v = await vocabulary(url)
  console.log(`\nsteady state: reads on the seed, ${creates} creates + ${creates} updates + ${Math.round(creates / 5)} trashes through the API, the reads again (no VACUUM)`)
  const before = await readScenarios(url, targets, opts, 'before')
  const writer = await startCalendarServer(url)
  let h
  try {
    h = await history(writer, v, creates)
  } finally {
    await writer.stop()
  }
  const stats = await withSession(url, async (c) => {
    const log = await c.query<{ n: number }>(`select count(*)::int as n from cal_changes`)
    const dead = await c.query<{ n: number }>(`select n_dead_tup::int as n from pg_stat_user_tables where relname = 'terms' and schemaname = 'cal_events'`)
    return { logRows: log.rows[0]!.n, deadTerms: dead.rows[0]?.n ?? 0 }
  })
  const total = creates * 2 + Math.round(creates / 5)
  console.log(`  history: ${total} writes in ${h.seconds.toFixed(0)} s (${(total / h.seconds).toFixed(0)}/s), ${h.failed} failed; change log ${stats.logRows} rows, terms ${stats.deadTerms} dead rows`)
  const after = await readScenarios(url, targets, opts, 'after')
  const scenarios = [...before].map(([name, b]) => {
    const a = after.get(name)!
    return { name, before: b, after: a, ratio: a.rps / b.rps }
  })
  // CPU per request of the server and its database's backends moves less than req/s with other
  // load on a shared machine (the before and after runs are minutes apart).
  for (const s of scenarios) {
    console.log(`  ${s.name}: ${s.before.rps.toFixed(0)} -> ${s.after.rps.toFixed(0)} req/s = ${s.ratio.toFixed(2)} (goal >= ${STEADY_GOAL}); CPU ms/req ${cpuOf(s.before).toFixed(2)} -> ${cpuOf(s.after).toFixed(2)} = ${(cpuOf(s.before) / cpuOf(s.after)).toFixed(2)} by CPU`)
  }
  console.log('\nconcurrency: 16 clients updating, creating and trashing events with overlapping categories and tags')
  const conc = await concurrency(url, v, Math.max(20, Math.round(creates / 100)))
  console.log(`  ${conc.operations} writes in ${conc.seconds.toFixed(1)} s: ${conc.status5xx} 5xx, ${conc.deadlocks} deadlocks, ${conc.countMismatches} term counts off a recount (${conc.other4xx} other non-2xx)`)
  return {
    history: { creates, updates: creates, trashes: Math.round(creates / 5), seconds: h.seconds, perSecond: total / h.seconds, failed: h.failed, ...stats },
    scenarios,
    concurrency: conc,
  }
}
