import { measure } from './load.js'
import { HOSTILE_GOALS, startMix } from './hostile.js'
import { preparePostgres } from './prepare.js'
import { DB_PREFIX } from './series.js'
import { startCalendarServer } from './server.js'

// Issue 28, the default list beside the hostile mix, in alternating short windows on one server:
// the list alone, then beside the mix (started a moment before, stopped and drained after), and
// again. The bench's hostile-beside measures 13 s alone, then 34 s later 13 s beside: on the shared
// 2-core machine, whose load swings within a minute, its ratio read 0.27 to 2.61 for the same
// build. Here both sides meet the same load from the rest of the machine, window by window.
// `pnpm --filter @cal-events/bench hostile-interleaved [events] [pairs] [seconds]` (PostgreSQL at
// DATABASE_URL; the seeded database `<BENCH_DB_PREFIX>_<events>` is reused when there, and kept).

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const EVENTS = Number(process.argv[2] ?? 20_000)
const PAIRS = Number(process.argv[3] ?? 6)
const SECONDS = Number(process.argv[4] ?? 4)
const CONNECTIONS = 32
/** The mix runs this long before its window is measured (the feeds' builds under way). */
const MIX_LEAD_MS = 2000

const db = await preparePostgres(ADMIN_URL, `${DB_PREFIX}_${EVENTS}`, EVENTS, true, 0)
const server = await startCalendarServer(db.url)
const list = () => measure(server, { scenario: 'list', targets: db.targets }, { connections: CONNECTIONS, duration: SECONDS, warmup: 1, stats: false })
const alone: number[] = []
const beside: number[] = []
const answers: Record<string, number> = {}
try {
  await list()
  for (let i = 0; i < PAIRS; i++) {
    alone.push((await list()).rps)
    const mix = startMix(server, db.targets)
    await new Promise((resolve) => setTimeout(resolve, MIX_LEAD_MS))
    beside.push((await list()).rps)
    // Stopped and drained: a build still running would be in the next "alone" window.
    for (const kind of await mix.stop()) {
      const what = kind.name.startsWith('full feed') ? 'full feeds' : kind.name
      for (const [status, n] of Object.entries(kind.statuses)) answers[`${what} ${status}`] = (answers[`${what} ${status}`] ?? 0) + n
    }
  }
} finally {
  await server.stop()
}
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
const ratio = sum(beside) / sum(alone)
const f0 = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(' ')
console.log(`list req/s alone:  ${f0(alone)}\nlist req/s beside: ${f0(beside)}`)
console.log(`pairs: ${beside.map((b, i) => (b / alone[i]!).toFixed(2)).join(' ')}`)
console.log(`list beside / alone ${ratio.toFixed(2)} (goal >= ${HOSTILE_GOALS.ratio}), ${PAIRS} pairs of ${SECONDS} s windows, ${CONNECTIONS} connections`)
console.log(`the mix: ${Object.entries(answers).map(([k, n]) => `${k}: ${n}`).join(', ')}`)
