import { createCalendar, type Calendar } from '@cal-events/core'
import { pooledDatabase } from './pooled-database.js'
import { alternatingRounds, LIST_REQUEST, median } from './paired.js'

// Issue 32: the default list through PgBouncer 1.21+ in transaction mode (scripts/pgbouncer/ensure.sh)
// against the same list on a direct connection, same database, same process, rounds alternating:
// `pooler: 'transaction'` with named statements kept by PgBouncer (`preparedStatements: true`, its
// statements pipelined with their transaction) and without (settings per transaction, statements
// unnamed, as with Debian bookworm's 1.18); with the hot-read cache off (every request reads) and
// on (every request waits for a shared check statement).
// Callers default to `pnpm bench`'s 32 connections: a throughput is compared where the process is the
// bottleneck. With 8, neither calendar keeps the process busy (70 % direct), the rate is callers /
// latency, and the figure compares one request's latency, PgBouncer's extra hop included (the
// one-caller line says how much).
// `pnpm --filter @cal-events/bench pooler [events] [seconds] [rounds] [callers]` (PostgreSQL at DATABASE_URL).

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const EVENTS = Number(process.argv[2] ?? 1000)
const SECONDS = Number(process.argv[3] ?? 3)
const ROUNDS = Number(process.argv[4] ?? 5)
const CONCURRENCY = Number(process.argv[5] ?? 32)
const POOL = 4
const NOW = new Date('2026-11-21T00:00:00Z')

const LATENCY_REQUESTS = 300

/** Milliseconds of each default-list request per mode, one caller, the modes taking turns. */
async function interleavedLatencies(modes: readonly (readonly [string, Calendar])[], requests: number): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = Object.fromEntries(modes.map(([mode]) => [mode, []]))
  for (let i = 0; i < requests; i++) {
    for (const [mode, calendar] of i % 2 ? [...modes].reverse() : modes) {
      const start = performance.now()
      const res = await calendar.handle(LIST_REQUEST)
      if (res.status !== 200) throw new Error(`${mode}: ${res.status}`)
      out[mode]!.push(performance.now() - start)
    }
  }
  return out
}

async function main() {
  const name = `cal_bench_pooler_${process.pid}`
  const { url, bouncer, stop } = await pooledDatabase(ADMIN_URL, name, POOL)
  try {
    const seed = await createCalendar({ now: () => NOW, database: { url: url, poolSize: POOL } })
    for (let i = 0; i < EVENTS; i++) {
      const day = String(1 + (i % 28)).padStart(2, '0')
      await seed.events.create({ title: `Event ${i}`, start_date: `2026-12-${day} 10:00:00`, end_date: `2026-12-${day} 12:00:00`, venue: { venue: `Hall ${i % 20}` } })
    }
    await seed.close()
    for (const cached of [false, true]) {
      const common = { now: () => NOW, migrate: false, ...(cached ? {} : { responseCache: false as const }) }
      const direct = await createCalendar({ ...common, database: { url: url, poolSize: POOL } })
      const pooled = await createCalendar({ ...common, database: { url: bouncer.through(url), poolSize: POOL, pooler: 'transaction' } })
      const prepared = await createCalendar({
        ...common,
        database: { url: bouncer.through(url), poolSize: POOL, pooler: 'transaction', preparedStatements: true },
      })
      // Where the difference comes from (BENCH_SPLIT=1): the pooler mode on a direct connection, and
      // the direct pool without named prepared statements.
      const split = process.env.BENCH_SPLIT === '1'
        ? {
            'pooler mode, direct': await createCalendar({ ...common, database: { url: url, poolSize: POOL, pooler: 'transaction' } }),
            'direct, unnamed': await createCalendar({ ...common, database: { url: url, poolSize: POOL, preparedStatements: false } }),
          }
        : {}
      const modes: [string, Calendar][] = [['direct', direct], ['prepared', prepared], ['pooled', pooled], ...Object.entries(split)]
      const { rates, errors } = await alternatingRounds(
        modes.map(([mode, calendar]) => [mode, () => calendar] as const),
        ROUNDS,
        { seconds: SECONDS, callers: CONCURRENCY },
      )
      if (process.env.BENCH_SPLIT === '1') console.log(Object.entries(rates).map(([m, r]) => `${m} ${median(r).toFixed(0)} req/s`).join(', '))
      // One caller, the modes taking turns request by request: the cost of one request's path
      // (latency) with the machine's drift spread alike over all of them.
      const latencies = await interleavedLatencies(modes, LATENCY_REQUESTS)
      console.log(
        `  one caller, modes alternating per request (${LATENCY_REQUESTS} each): median ms ` +
          Object.entries(latencies).map(([mode, ms]) => `${mode} ${median(ms).toFixed(2)}`).join(', '),
      )
      // Paired by round: the machine's load drifts between rounds more than between the parts of one.
      const ratios = (mode: string) => rates[mode]!.map((p, i) => p / rates.direct![i]!)
      const through = (mode: string, what: string) =>
        `through PgBouncer, ${what}: ${median(rates[mode]!).toFixed(0)} req/s, per round ${ratios(mode).map((r) => r.toFixed(2)).join(' ')}, median ${median(ratios(mode)).toFixed(2)}`
      console.log(
        `default list${cached ? ' from the hot-read cache' : ', cache off'} (${EVENTS} events, ${CONCURRENCY} callers, pools of ${POOL}, ${bouncer.version} default_pool_size ${POOL}): ` +
          `direct ${median(rates.direct!).toFixed(0)} req/s; ${through('prepared', 'named statements kept')}; ${through('pooled', 'unnamed')}; errors ${errors}`,
      )
      // The split calendars too, only now: the latency loop above takes turns with every mode.
      for (const calendar of Object.values(split)) await calendar.close()
      await prepared.close()
      await pooled.close()
      await direct.close()
    }
  } finally {
    await stop()
  }
}

await main()
