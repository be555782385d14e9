import pg from 'pg'
import { createCalendar, createCalendars, type Calendar } from '@cal-events/core'
import { LIST_REQUEST, alternatingRounds, median } from './paired.js'

// Many calendars on one pool (docs/multi-calendar.md) against one calendar alone: the default list
// of one calendar of a database holding CALENDARS calendars of EVENTS events each, and of a
// database holding one calendar of EVENTS events, same process, rounds alternating; the time to
// create a calendar; the heap an opened, idle calendar keeps.
// `pnpm --filter @cal-events/bench calendars [calendars] [events] [seconds] [rounds]`
// (PostgreSQL at DATABASE_URL; run with NODE_OPTIONS=--expose-gc for the heap figure).
// Seeding: one calendar is filled through the API; every other one is created through
// `calendars.create` (timed, with a spare schema ready: the bench waits for the set's background
// refill before each) and gets a copy of its rows by SQL (triggers off during the copy, the
// derived tables copied too), which is what makes a million events affordable on a busy machine.
// Creation without spares (every migration run by `create`) is timed too, in the same run.

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const CALENDARS = Number(process.argv[2] ?? 1000)
const EVENTS = Number(process.argv[3] ?? 1000)
const SECONDS = Number(process.argv[4] ?? 3)
const ROUNDS = Number(process.argv[5] ?? 5)
const CONCURRENCY = 8
const POOL = 4
const HEAP_SAMPLE = Math.min(200, CALENDARS)
const NOW = new Date('2026-11-21T00:00:00Z')

const keyOf = (i: number) => `c${String(i).padStart(5, '0')}`
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!

async function fill(calendar: Calendar): Promise<void> {
  for (let i = 0; i < EVENTS; i++) {
    const day = String(1 + (i % 28)).padStart(2, '0')
    await calendar.events.create({ title: `Event ${i}`, start_date: `2026-12-${day} 10:00:00`, end_date: `2026-12-${day} 12:00:00`, venue: { venue: `Hall ${i % 20}` }, categories: [`Cat ${i % 7}`] })
  }
}

/** Copies every row of schema `from` into schema `to` (same migrations), sequences included. */
async function copyRows(client: pg.ClientBase, from: string, to: string, tables: { name: string; columns: string }[], sequences: string[]): Promise<void> {
  // The migrations seed a few rows (the change log's horizon): replaced by the template's.
  const statements = ['begin', 'set local session_replication_role = replica', `truncate ${tables.map((t) => `"${to}"."${t.name}"`).join(', ')}`]
  for (const { name, columns } of tables) statements.push(`insert into "${to}"."${name}" (${columns}) overriding system value select ${columns} from "${from}"."${name}"`)
  for (const seq of sequences) statements.push(`select setval('"${to}"."${seq}"', (select last_value from "${from}"."${seq}"))`)
  statements.push('commit')
  await client.query(statements.join(';\n'))
  // Statistics, as autovacuum would gather them for a calendar filled through the API (it lags far
  // behind on a busy machine with thousands of fresh tables): without them the plans are guesses.
  await client.query(tables.map(({ name }) => `analyze "${to}"."${name}"`).join(';\n'))
}

async function main() {
  const tag = `${process.pid}`
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  admin.on('error', (err) => console.error(`admin connection: ${err.message}`))
  await admin.connect()
  const dbUrl = (name: string) => {
    const url = new URL(ADMIN_URL)
    url.pathname = `/${name}`
    return url.href
  }
  const prefix = process.env.BENCH_DB_PREFIX ?? 'multical_bench'
  const single = `${prefix}_aloneDb${tag}`
  const many = `${prefix}_many_${tag}`
  await admin.query(`create database "${single}"`)
  await admin.query(`create database "${many}"`)
  const common = { now: () => NOW, responseCache: false as const }
  try {
    console.log(`seeding: one calendar of ${EVENTS} events alone, and ${CALENDARS} calendars of ${EVENTS} events on one pool of ${POOL}…`)
    const alone = await createCalendar({ ...common, database: { url: dbUrl(single), poolSize: POOL } })
    await fill(alone)

    const calendars = await createCalendars({ ...common, database: { url: dbUrl(many), poolSize: POOL } })
    const template = await calendars.create(keyOf(0))
    await fill(template)
    await alone.handle(LIST_REQUEST)
    const copier = new pg.Client({ connectionString: dbUrl(many) })
    copier.on('error', (err) => console.error(`copy connection: ${err.message}`))
    await copier.connect()
    const { rows: tableRows } = await copier.query<{ name: string; columns: string }>(
      `select c.relname as name, string_agg(quote_ident(a.attname), ', ' order by a.attnum) as columns
         from pg_class c join pg_attribute a on a.attrelid = c.oid
        where c.relnamespace = 'cal_c_c00000'::regnamespace and c.relkind in ('r', 'p') and c.relname <> 'cal_migrations'
          and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
        group by c.relname`,
    )
    // Both calendars filled through the API get their statistics now too, as the copies do.
    await copier.query(tableRows.map(({ name }) => `analyze "cal_c_c00000"."${name}"`).join(';\n'))
    const aloneDb = new pg.Client({ connectionString: dbUrl(single) })
    await aloneDb.connect()
    await aloneDb.query('analyze')
    await aloneDb.end()
    const { rows: seqRows } = await copier.query<{ name: string }>(`select relname as name from pg_class where relnamespace = 'cal_c_c00000'::regnamespace and relkind = 'S'`)
    const createMs: number[] = []
    /** Creates by the hundred of calendars they made (the catalog grows by ~115 relations each). */
    const byHundred: number[][] = []
    const started = Date.now()
    // Bounded: a spare the set failed to make (a connection or statement timeout on a loaded machine)
    // is not retried until the next create, which then migrates its schema itself; waiting for it
    // without a bound stalled a run of 1,000 calendars.
    let noSpare = 0
    const spareReady = async () => {
      const until = Date.now() + 60_000
      while ((await copier.query<{ n: number }>('select count(*)::int as n from cal_registry.spares')).rows[0]!.n === 0) {
        if (Date.now() > until) {
          noSpare++
          return false
        }
        await new Promise((r) => setTimeout(r, 10))
      }
      return true
    }
    // Creates without spares, in turn with the first ten others: a schema given is migrated by
    // `create` (a spare is never used for it), as every create was before spares.
    const bareMs: number[] = []
    const bare = await createCalendars({ ...common, database: { url: dbUrl(many), poolSize: POOL }, spareSchemas: 0 })
    for (let i = 1; i < CALENDARS; i++) {
      const ready = await spareReady()
      const t0 = performance.now()
      await calendars.create(keyOf(i))
      if (ready) {
        createMs.push(performance.now() - t0)
        ;(byHundred[Math.floor(i / 100)] ??= []).push(createMs.at(-1)!)
      }
      if (i <= 10) {
        const t1 = performance.now()
        await bare.create(`bare-${i}`, { schema: `cal_bare_${i}` })
        bareMs.push(performance.now() - t1)
        await bare.delete(`bare-${i}`)
      }
      await copyRows(copier, 'cal_c_c00000', `cal_c_${keyOf(i)}`, tableRows, seqRows.map((r) => r.name))
      if (i % 100 === 0) console.log(`  ${i} calendars (${((Date.now() - started) / 1000).toFixed(0)} s${noSpare ? `; ${noSpare} creates found no spare within a minute` : ''})`)
    }
    console.log(`create median by hundred of calendars (spare ready): ${byHundred.map((ms, h) => `${h * 100 + 1}-${h * 100 + 100} ${median(ms).toFixed(1)} ms`).join(', ')}`)
    const { rows: size } = await copier.query<{ relations: number; events: number }>(
      `select (select count(*)::int from pg_class) as relations, (select count(*)::int from cal_c_c00000.events) * ${CALENDARS} as events`,
    )
    await copier.end()
    await bare.close()
    console.log(`created ${CALENDARS - 1} calendars in ${((Date.now() - started) / 1000).toFixed(0)} s (copies included), a spare ready for ${createMs.length} (none within a minute for ${noSpare}): median ${median(createMs).toFixed(1)} ms, p95 ${pct(createMs, 0.95).toFixed(1)} ms, max ${Math.max(...createMs).toFixed(1)} ms; ` +
      `without spares (${bareMs.length} creates in turn with the first ones): median ${median(bareMs).toFixed(0)} ms, p95 ${pct(bareMs, 0.95).toFixed(0)} ms; catalog ${size[0]!.relations} relations, ~${size[0]!.events} events`)

    // The calendar under test: filled through the API as the one alone was (a copied calendar's
    // derived rows, the change log and the known totals, are the template's, not its own), opened
    // like any other; the copies around it make the catalog and the pool's other work.
    const one = (await calendars.get(keyOf(process.env.CAL_BENCH_COPIED === '1' ? Math.floor(CALENDARS / 2) : 0)))!
    let statements = 0
    const counting = await createCalendars({ ...common, database: { url: dbUrl(many), poolSize: 1 }, onQuery: () => void statements++ })
    await (await counting.get(keyOf(1)))!.handle(LIST_REQUEST)
    statements = 0
    await (await counting.get(keyOf(1)))!.handle(LIST_REQUEST)
    console.log(`statements per default list on a calendar of the set: ${statements}`)
    await counting.close()

    // Spread: each request on another of 100 calendars (a connection changes its search path often).
    const spread = await Promise.all(Array.from({ length: 100 }, (_, i) => calendars.get(keyOf((i * 7) % CALENDARS)).then((c) => c!)))
    let next = 0
    const anyOf = () => spread[next++ % spread.length]!
    const { rates, errors } = await alternatingRounds(
      [['alone', () => alone], ['one', () => one], ['spread', anyOf]],
      ROUNDS,
      { seconds: SECONDS, callers: CONCURRENCY },
      (round, r) =>
        console.log(`round ${round + 1}: alone ${r.alone.at(-1)!.toFixed(0)} req/s, one of ${CALENDARS} ${r.one.at(-1)!.toFixed(0)} req/s, spread over 100 ${r.spread.at(-1)!.toFixed(0)} req/s`),
    )
    if (errors) throw new Error(`${errors} answers other than 200`)
    const ratio = (mode: 'one' | 'spread') => rates[mode].map((r, i) => r / rates.alone[i]!)
    console.log(
      `default list (${EVENTS} events, ${CONCURRENCY} callers, pools of ${POOL}): alone ${median(rates.alone).toFixed(0)} req/s; one calendar of ${CALENDARS}: ` +
        `ratio per round ${ratio('one').map((r) => r.toFixed(2)).join(' ')}, median ${median(ratio('one')).toFixed(2)}; spread over 100 calendars: median ${median(ratio('spread')).toFixed(2)}`,
    )
    // Interleaved, one caller: a request to each in turn, so that the machine's drift (other
    // processes) hits both alike; the medians of their latencies compared.
    const lat = { alone: [] as number[], one: [] as number[] }
    for (let i = 0; i < 40 * SECONDS * ROUNDS; i++) {
      for (const [mode, calendar] of (i % 2 ? [['one', one], ['alone', alone]] : [['alone', alone], ['one', one]]) as [keyof typeof lat, Calendar][]) {
        const t0 = performance.now()
        await calendar.handle(LIST_REQUEST)
        lat[mode].push(performance.now() - t0)
      }
    }
    console.log(
      `interleaved, one caller (${lat.alone.length} requests each): median latency alone ${median(lat.alone).toFixed(2)} ms, one of ${CALENDARS} ${median(lat.one).toFixed(2)} ms: ratio (alone/one) ${(median(lat.alone) / median(lat.one)).toFixed(2)}`,
    )
    console.log(`connections of the shared pool: ${JSON.stringify(calendars.poolStats())}`)

    // Heap per opened, idle calendar: HEAP_SAMPLE more calendars opened and used once, then left.
    const gc = (globalThis as { gc?: () => void }).gc
    if (gc) {
      const heap = () => {
        gc()
        gc()
        return process.memoryUsage().heapUsed
      }
      const fresh = await createCalendars({ ...common, database: { url: dbUrl(many), poolSize: POOL } })
      await (await fresh.get(keyOf(0)))!.handle(LIST_REQUEST)
      const before = heap()
      for (let i = 1; i < HEAP_SAMPLE; i++) await (await fresh.get(keyOf(i)))!.handle(LIST_REQUEST)
      const after = heap()
      console.log(`heap per opened idle calendar (one list served each, ${HEAP_SAMPLE - 1} calendars): ${((after - before) / (HEAP_SAMPLE - 1) / 1024).toFixed(1)} kB`)
      await fresh.close()
    } else console.log('heap per calendar: run with NODE_OPTIONS=--expose-gc')
    await calendars.close()
    await alone.close()
  } finally {
    await admin.query(`drop database if exists "${single}" with (force)`)
    await admin.query(`drop database if exists "${many}" with (force)`)
    await admin.end()
  }
}

await main()
