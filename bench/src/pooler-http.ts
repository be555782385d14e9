import { pooledDatabase } from './pooled-database.js'
import { median } from './paired.js'
import { alternatingHttpRounds, busyPercent, PAIRED_POOL, pairedHttpArgs, pairedRatios, seedUpcoming } from './paired-http.js'
import { startCalendarServer, type RunningServer } from './server.js'

// Issue 32, the second figure of `pooler.ts`: the default list over HTTP, the example server's
// production build on a direct connection against a second one through PgBouncer 1.21+ in
// transaction mode keeping named statements (`CAL_DB_POOLER=transaction`,
// `CAL_DB_PREPARED_STATEMENTS=1`), same database, autocannon in its own process, rounds
// alternating; with the hot-read cache off (every request reads) and on (every request waits for a
// shared change check). An HTTP request carries its own parsing and writing, which the in-process
// figure leaves out.
// Connections default to `pnpm bench`'s 32: a throughput is compared where the server is the
// bottleneck. With few connections the rate is connections / latency, and the figure compares the
// latency of one request: PgBouncer's extra hop on each check (BENCHMARKS.md, "The lead's quiet
// runs, third session").
// `pnpm --filter @cal-events/bench pooler-http [events] [seconds] [rounds] [connections]`
// (PostgreSQL at DATABASE_URL; build first: `pnpm build && pnpm --filter @cal-events/example-server build`).

const { adminUrl: ADMIN_URL, events: EVENTS, seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS } = pairedHttpArgs()
const POOL = PAIRED_POOL

async function main() {
  const name = `cal_bench_pooler_http_${process.pid}`
  const { url, bouncer, stop } = await pooledDatabase(ADMIN_URL, name, POOL)
  const servers: RunningServer[] = []
  try {
    await seedUpcoming(url, EVENTS, POOL)
    for (const responseCache of [false, true]) {
      const pool = { CAL_DB_POOL_SIZE: String(POOL) }
      const direct = await startCalendarServer(url, { responseCache, env: pool })
      servers.push(direct)
      const pooled = await startCalendarServer(bouncer.through(url), {
        responseCache,
        env: { ...pool, CAL_DB_POOLER: 'transaction', CAL_DB_PREPARED_STATEMENTS: '1' },
      })
      servers.push(pooled)
      const { rates, serverCpu, busy, errors } = await alternatingHttpRounds([['direct', direct], ['pooled', pooled]], ROUNDS, { connections: CONNECTIONS, seconds: SECONDS })
      console.log(
        `default list${responseCache ? ' from the hot-read cache' : ', cache off'} over HTTP (${EVENTS} events, ${CONNECTIONS} connections, pools of ${POOL}, ${bouncer.version} default_pool_size ${POOL}): ` +
          `direct ${median(rates.direct).toFixed(0)} req/s; through PgBouncer, named statements kept: ${median(rates.pooled).toFixed(0)} req/s, ` +
          `${pairedRatios(rates, 'pooled', 'direct')}; ` +
          `CPU ms per request, server + its PostgreSQL backends (PgBouncer's not counted): direct ${median(serverCpu.direct).toFixed(3)}, through PgBouncer ${median(serverCpu.pooled).toFixed(3)}; ` +
          `machine busy: direct ${busyPercent(busy.direct)}, through PgBouncer ${busyPercent(busy.pooled)}; errors ${errors}`,
      )
      for (const running of servers.splice(0)) await running.stop()
    }
  } finally {
    for (const running of servers) await running.stop()
    await stop()
  }
}

await main()
