import pg from 'pg'
import { createCalendar } from '@cal-events/core'
import { alternatingRounds, median } from './paired.js'

// The default list on the host's pool (`database: { pool }`, settings per transaction) against the
// calendar's own pool (settings per session), same database, same process, rounds alternating.
// `pnpm --filter @cal-events/bench host-pool [events] [seconds] [rounds] [cached]` (PostgreSQL at DATABASE_URL).

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const EVENTS = Number(process.argv[2] ?? 1000)
const SECONDS = Number(process.argv[3] ?? 3)
const ROUNDS = Number(process.argv[4] ?? 5)
/** `cached`: with the hot-read cache on, so that each request is its one check statement. */
const CACHED = process.argv[5] === 'cached'
const CONCURRENCY = 8
const POOL = 4
const NOW = new Date('2026-11-21T00:00:00Z')

async function main() {
  const name = `cal_bench_hostpool_${process.pid}`
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  await admin.connect()
  await admin.query(`create database "${name}"`)
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  const hostPool = new pg.Pool({ connectionString: url.href, max: POOL })
  hostPool.on('error', () => {})
  try {
    const common = { now: () => NOW, ...(CACHED ? {} : { responseCache: false as const }) }
    const own = await createCalendar({ ...common, database: { url: url.href, poolSize: POOL } })
    for (let i = 0; i < EVENTS; i++) {
      const day = String(1 + (i % 28)).padStart(2, '0')
      await own.events.create({ title: `Event ${i}`, start_date: `2026-12-${day} 10:00:00`, end_date: `2026-12-${day} 12:00:00`, venue: { venue: `Hall ${i % 20}` } })
    }
    const host = await createCalendar({ ...common, database: { pool: hostPool }, migrate: false })
    const { rates, errors } = await alternatingRounds(
      [['own', () => own], ['host', () => host]],
      ROUNDS,
      { seconds: SECONDS, callers: CONCURRENCY },
      (round, r) => console.log(`round ${round + 1}: own pool ${r.own.at(-1)!.toFixed(0)} req/s, host pool ${r.host.at(-1)!.toFixed(0)} req/s`),
    )
    if (errors) throw new Error(`${errors} answers other than 200`)
    // Paired by round: the machine's load drifts between rounds more than between the two halves of one.
    const ratios = rates.host.map((host, i) => host / rates.own[i]!)
    console.log(
      `default list${CACHED ? ' from the hot-read cache' : ''} (${EVENTS} events, ${CONCURRENCY} callers, pools of ${POOL}): own ${median(rates.own).toFixed(0)} req/s, host ${median(rates.host).toFixed(0)} req/s; ` +
        `host/own per round ${ratios.map((r) => r.toFixed(2)).join(' ')}, median ${median(ratios).toFixed(2)}`,
    )
    await host.close()
    await own.close()
  } finally {
    await hostPool.end()
    await admin.query(`drop database if exists "${name}" with (force)`)
    await admin.end()
  }
}

await main()
