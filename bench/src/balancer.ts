import { startBalancer, type Balancer } from '../../test-support/haproxy.js'
import { dropDatabase, freshDatabase } from './db.js'
import { median } from './paired.js'
import { alternatingHttpRounds, busyPercent, PAIRED_POOL, pairedHttpArgs, pairedRatios, seedUpcoming } from './paired-http.js'
import { startCalendarServer, type RunningServer } from './server.js'

// Issue 32 item 4, what the balancer tier adds: the default list over HTTP from one example server
// (production build, direct connection) asked directly and through Debian's HAProxy in front of it
// (the cluster's configuration, `test-support/haproxy.ts`: HTTP mode, round-robin, health checks
// every 500 ms), autocannon in its own process, rounds alternating; with the hot-read cache off and
// on. HAProxy's CPU is most of what the machine spends beside the server, PostgreSQL and the load
// generator ("other"). Connections default to `pnpm bench`'s 32.
// `pnpm --filter @cal-events/bench balancer [events] [seconds] [rounds] [connections]`
// (PostgreSQL at DATABASE_URL; build first: `pnpm build && pnpm --filter @cal-events/example-server build`).

const { adminUrl: ADMIN_URL, events: EVENTS, seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS } = pairedHttpArgs()
const POOL = PAIRED_POOL

async function main() {
  const name = `cal_bench_balancer_${process.pid}`
  const url = await freshDatabase(ADMIN_URL, name)
  let server: RunningServer | undefined
  let balancer: Balancer | undefined
  try {
    await seedUpcoming(url, EVENTS, POOL)
    for (const responseCache of [false, true]) {
      server = await startCalendarServer(url, { responseCache, env: { CAL_DB_POOL_SIZE: String(POOL) } })
      balancer = await startBalancer([Number(new URL(server.origin).port)])
      // The same server, its URLs through HAProxy: its CPU and its database's are still measured.
      const through: RunningServer = { ...server, origin: balancer.url, base: `${balancer.url}${server.base.slice(server.origin.length)}` }
      const { rates, serverCpu, otherCpu, busy, errors } = await alternatingHttpRounds([['direct', server], ['haproxy', through]], ROUNDS, { connections: CONNECTIONS, seconds: SECONDS })
      console.log(
        `default list${responseCache ? ' from the hot-read cache' : ', cache off'} over HTTP (${EVENTS} events, ${CONNECTIONS} connections, pool of ${POOL}): ` +
          `direct ${median(rates.direct).toFixed(0)} req/s; through HAProxy ${median(rates.haproxy).toFixed(0)} req/s, ${pairedRatios(rates, 'haproxy', 'direct')}; ` +
          `CPU ms per request, server + its PostgreSQL backends: direct ${median(serverCpu.direct).toFixed(3)}, through HAProxy ${median(serverCpu.haproxy).toFixed(3)}; ` +
          `the rest of the machine (HAProxy's share): direct ${median(otherCpu.direct).toFixed(3)}, through HAProxy ${median(otherCpu.haproxy).toFixed(3)}; ` +
          `machine busy: direct ${busyPercent(busy.direct)}, through HAProxy ${busyPercent(busy.haproxy)}; errors ${errors}`,
      )
      await balancer.stop()
      balancer = undefined
      await server.stop()
      server = undefined
    }
  } finally {
    await balancer?.stop()
    await server?.stop()
    await dropDatabase(ADMIN_URL, name)
  }
}

await main()
