import { readdirSync, readFileSync } from 'node:fs'
import { postgresTicks, processTicks, TICK_MS } from './cpu.js'
import { preparePostgres } from './prepare.js'
import { DB_PREFIX } from './series.js'
import { startCalendarServer } from './server.js'

// Issue 28: where one full feed's CPU goes, by thread. The hostile mix's feeds cost the list
// beside them more than their build slot suggests; this downloads `feeds` uncached full feeds one
// after another (each a day earlier, as the mix does) and splits the CPU they took between the
// server's threads (the event loop, the feed worker, libuv's pool where zlib compresses, V8's
// helpers) and the database's backends, once asking for gzip (what `fetch` sends) and once not.
// `pnpm --filter @cal-events/bench feed-cost [events] [feeds]` (the seeded `<BENCH_DB_PREFIX>_<events>` is reused).

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const EVENTS = Number(process.argv[2] ?? 20_000)
const FEEDS = Number(process.argv[3] ?? 6)

/** CPU ticks of each thread of `pid`, by thread name (the event loop is the thread whose id is the pid). */
function threadTicks(pid: number): Map<string, number> {
  const byName = new Map<string, number>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let name: string
    try {
      name = tid === String(pid) ? 'event loop' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
    } catch {
      continue
    }
    byName.set(name, (byName.get(name) ?? 0) + processTicks(`${pid}/task/${tid}`))
  }
  return byName
}

/** CPU ticks of the PostgreSQL backends connected to `database`. */
const backendTicks = (database: string) => [...postgresTicks(database).values()].reduce((a, b) => a + b, 0)

const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)
const selfTicks = () => processTicks(process.pid)

const db = await preparePostgres(ADMIN_URL, `${DB_PREFIX}_${EVENTS}`, EVENTS, true, 0)
const server = await startCalendarServer(db.url)
const database = server.database!
let day = 0
try {
  for (const encoding of ['gzip, deflate', 'identity']) {
    // One feed first, not counted: the worker starts, statements are planned.
    const fetchFeed = async () => {
      const res = await fetch(`${server.base}/events/ical?start_date=${addDays(db.targets.feed.start, -1 - day++)}&end_date=${db.targets.feed.end}`, {
        headers: { 'accept-encoding': encoding },
      })
      const bytes = (await res.arrayBuffer()).byteLength
      if (res.status !== 200) throw new Error(`feed answered ${res.status}`)
      return { bytes, coding: res.headers.get('content-encoding') ?? 'none' }
    }
    await fetchFeed()
    const threads0 = threadTicks(server.pid)
    const pg0 = backendTicks(database)
    const self0 = selfTicks()
    const t0 = performance.now()
    let last = { bytes: 0, coding: '' }
    for (let i = 0; i < FEEDS; i++) last = await fetchFeed()
    const wall = performance.now() - t0
    const threads1 = threadTicks(server.pid)
    const per = (ticks: number) => ((ticks * TICK_MS) / FEEDS).toFixed(0).padStart(5)
    console.log(`\naccept-encoding: ${encoding}; answered ${last.coding}, ${(last.bytes / 1e6).toFixed(1)} MB; ${FEEDS} feeds, ${(wall / FEEDS).toFixed(0)} ms each`)
    console.log(`CPU ms per feed:`)
    const names = [...new Set([...threads0.keys(), ...threads1.keys()])].sort()
    for (const name of names) {
      const d = (threads1.get(name) ?? 0) - (threads0.get(name) ?? 0)
      if (d > 0) console.log(`  ${per(d)}  server ${name}`)
    }
    console.log(`  ${per(backendTicks(database) - pg0)}  PostgreSQL backends`)
    console.log(`  ${per(selfTicks() - self0)}  this client (download${encoding === 'identity' ? '' : ', inflate'})`)
  }
} finally {
  await server.stop()
}
