import { afterAll, beforeAll, expect, it } from 'vitest'
import pg from 'pg'
import { sql } from 'kysely'
import { createCalendars, type Calendars, type CalendarsOptions } from '@cal-events/core'
import { migrateToLatest, repinRenamedSchema, SCHEMA_PINNED_FUNCTIONS } from '../../src/db/migrate.js'
import { MIGRATIONS } from '../../src/db/migrations/index.js'
import { openSharedDatabase } from '../../src/db/shared-database.js'
import { scratchDatabase } from '../../../../test-support/scratch-db.js'
import { BACKEND } from '../../../../test-support/test-db.js'

// Spare schemas (issue 31, docs/multi-calendar.md): `calendars.create` renames a schema migrated
// ahead of need instead of running every migration's DDL while the caller waits. The calendar it
// gives must be whole: triggers (change log, term counts, row changes) pinned to its own schema,
// the trigram search index working, nothing named after the spare left.

const EVENT = { title: 'Chess night', start_date: '2027-03-01 19:00:00', end_date: '2027-03-01 22:00:00', status: 'publish' as const }
const DDL = /^\s*(create|alter table|drop)\b/i

let query: (text: string) => Promise<Record<string, unknown>[]>
let database: NonNullable<CalendarsOptions['database']>
let drop = async () => {}

beforeAll(async () => {
  if (BACKEND === 'postgres') {
    const scratch = scratchDatabase(`spares${process.env.VITEST_POOL_ID ?? 0}`)
    await scratch.create()
    drop = scratch.drop
    database = { url: scratch.url, poolSize: 2 }
    const client = new pg.Client({ connectionString: scratch.url })
    await client.connect()
    query = async (text) => (await client.query(text)).rows
    const dropScratch = drop
    drop = async () => {
      await client.end()
      await dropScratch()
    }
  } else {
    const [{ PGlite }, { pg_trgm }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite/contrib/pg_trgm')])
    const instance = await PGlite.create({ extensions: { pg_trgm } })
    database = { pglite: instance as never }
    query = async (text) => (await instance.query<Record<string, unknown>>(text)).rows
    drop = () => instance.close()
  }
})

afterAll(async () => {
  await drop()
})

/** Waits until the registry lists `n` spares (they are made in the background). */
async function sparesListed(n: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const [row] = await query('select count(*)::int as n from cal_registry.spares')
    if (row!.n === n) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`the registry never listed ${n} spare schemas`)
}

it('creates a calendar from a spare schema without migration DDL, whole and under its own name', async () => {
  const statements: string[] = []
  const set: Calendars = await createCalendars({ database, spareSchemas: 2, onQuery: (text) => void statements.push(text) })
  try {
    await set.create('first')
    await sparesListed(2)
    statements.length = 0
    const chess = await set.create('chess-club')
    expect(statements.filter((text) => DDL.test(text))).toEqual([])
    expect((await set.list()).map((c) => [c.key, c.schema])).toEqual([['chess-club', 'cal_c_chess_club'], ['first', 'cal_c_first']])

    // Triggers work in the renamed schema: term counts, the change log (ETags move), search.
    const created = await chess.events.create({ ...EVENT, categories: ['Games'] })
    expect((await chess.categories.list()).categories.map((c) => [c.name, c.count])).toEqual([['Games', 1]])
    expect((await chess.events.list({ search: 'chess' })).events.map((e) => e.id)).toEqual([created.id])
    await chess.events.update(created.id, { categories: [] })
    expect((await chess.categories.list({ hide_empty: false })).categories.map((c) => [c.name, c.count])).toEqual([['Games', 0]])

    // No function of the calendar keeps the spare's name, and the spare it took is gone.
    const pinned = await query(`select p.proname, c.config from pg_proc p, unnest(p.proconfig) c(config)
      where p.pronamespace = 'cal_c_chess_club'::regnamespace and c.config like 'search_path=%'`)
    expect(pinned.length).toBeGreaterThan(5)
    for (const row of pinned) expect(row.config).toMatch(/^search_path=cal_c_chess_club(, |$)/)
    // The change check's function (migration 0023) among them: behind a pooler it is called by its
    // schema's name from a session whose search path is not the calendar's (this one's is the default).
    expect(pinned.map((row) => row.proname)).toContain('cal_check_changes')
    const [check] = await query(`select * from cal_c_chess_club.cal_check_changes('1:1:')`)
    expect(check!.later).toEqual(expect.arrayContaining(['events', 'terms']))
    expect(await query(`select nspname from pg_namespace where nspname like 'cal_spare_%' and nspname not in (select schema_name from cal_registry.spares)`)).toEqual([])
    await set.delete('chess-club')
  } finally {
    await set.close()
  }
})

it("finds a schema's trigger functions and pinned functions by index, not by reading all of pg_proc (every calendar's functions)", async () => {
  const set = await createCalendars({ database, spareSchemas: 0 })
  try {
    await set.create('pins')
    const ofSchema = SCHEMA_PINNED_FUNCTIONS.replace('current_schema()', "'cal_c_pins'")
    const found = (await query(ofSchema)).map((r) => String(r.fn)).sort()
    const all = await query(`select p.oid as fn from pg_proc p
      where p.pronamespace = 'cal_c_pins'::regnamespace and (p.prorettype = 'trigger'::regtype
        or exists (select 1 from unnest(p.proconfig) c where c like 'search_path=%'))`)
    expect(found.length).toBeGreaterThan(5)
    expect(found).toEqual(all.map((r) => String(r.fn)).sort())
    // A calendar set's create pins them again in the renamed spare: a scan of pg_proc grew with
    // every calendar (72 ms of a create at 1,000 calendars).
    const [plan] = await query(`explain (format json) ${ofSchema}`)
    const scans: string[] = []
    const walk = (node: Record<string, unknown>) => {
      if (node['Node Type'] === 'Seq Scan') scans.push(String(node['Relation Name']))
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child)
    }
    walk(((plan!['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]!).Plan)
    expect(scans).not.toContain('pg_proc')
    await set.delete('pins')
  } finally {
    await set.close()
  }
})

// Every calendar has trigger functions of the same names, and ALTER FUNCTION finds its function
// by name: each look-up read every calendar's function of that name, and each ALTER dropped the
// cached lists, so pinning 33 functions read about 66,000 catalog rows at 1,000 calendars (70-140
// ms of a 85-170 ms create, BENCHMARKS.md "Issue 31"). A pin may read its own functions only.
it.skipIf(BACKEND !== 'postgres')("pins a renamed schema's trigger functions without looking any up by name among every calendar's", async () => {
  const set = await createCalendars({ database, spareSchemas: 0 })
  const shared = await openSharedDatabase(database)
  try {
    for (const key of ['names-a', 'names-b', 'names-c', 'names-d']) await set.create(key)
    const [{ n: functions }] = (await query(`select count(*)::int as n from pg_proc where pronamespace = 'cal_c_names_a'::regnamespace and prorettype = 'trigger'::regtype`)) as [{ n: number }]
    expect(functions).toBeGreaterThan(5)
    /** This transaction's own reads of the index of pg_proc by name, schema and arguments while it pins the schema again. */
    const readsByName = () =>
      shared.open('cal_c_names_a').db.transaction().execute(async (trx) => {
        const read = async () =>
          (await sql<{ n: number }>`select pg_stat_get_xact_tuples_returned('pg_catalog.pg_proc_proname_args_nsp_index'::regclass)::int as n`.execute(trx)).rows[0]!.n
        const before = await read()
        await repinRenamedSchema(trx, 'cal_c_names_a')
        return (await read()) - before
      })
    const atFour = await readsByName()
    for (const key of ['names-e', 'names-f', 'names-g', 'names-h']) await set.create(key)
    const atEight = await readsByName()
    // ALTER read every schema's function of each name: four more calendars added about four rows
    // per function (212 at four here, the database's other tests' schemas counted too). The pin
    // reads its own rows by their exact key, whatever other schemas the database holds.
    expect(atEight - atFour).toBeLessThan(functions)
    const pinned = await query(`select c.config from pg_proc p, unnest(p.proconfig) c(config)
      where p.pronamespace = 'cal_c_names_a'::regnamespace and p.prorettype = 'trigger'::regtype and c.config like 'search_path=%'`)
    expect(pinned).toHaveLength(functions)
    for (const row of pinned) expect(row.config).toMatch(/^search_path=cal_c_names_a(, |$)/)
  } finally {
    for (const key of ['names-a', 'names-b', 'names-c', 'names-d', 'names-e', 'names-f', 'names-g', 'names-h']) await set.delete(key).catch(() => {})
    await shared.close()
    await set.close()
  }
})

it('migrates a spare an earlier version made when it is taken', async () => {
  // A spare of a version that knew the first migrations only, listed as the next to take.
  const shared = await openSharedDatabase(database)
  const names = Object.keys(MIGRATIONS).sort()
  const older = Object.fromEntries(names.slice(0, 5).map((name) => [name, MIGRATIONS[name]!]))
  const registry = shared.open('cal_registry').db
  try {
    await migrateToLatest(shared.open('cal_spare_older').db, 'cal_spare_older', older)
    await sql`insert into cal_registry.spares (schema_name, created_at) values ('cal_spare_older', '2000-01-01')`.execute(registry)
  } finally {
    await shared.close()
  }
  const set = await createCalendars({ database, spareSchemas: 0 })
  try {
    const late = await set.create('late')
    const applied = await query('select name from cal_c_late.cal_migrations order by name')
    expect(applied.map((r) => r.name)).toEqual(names)
    const event = await late.events.create({ ...EVENT, categories: ['Games'] })
    expect((await late.events.list({ search: 'chess' })).events.map((e) => e.id)).toEqual([event.id])
    expect(await query(`select 1 from pg_namespace where nspname = 'cal_spare_older'`)).toEqual([])
  } finally {
    await set.close()
  }
})

it('two creates of one key at once: one calendar, and the loser leaves no schema behind', async () => {
  const set = await createCalendars({ database, spareSchemas: 2 })
  try {
    await set.create('taken')
    await sparesListed(2)
    const outcomes = await Promise.allSettled([set.create('dup'), set.create('dup')])
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected'])
    expect(String((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason)).toMatch(/exists already|belongs to another calendar/)
    // Every schema named as a spare is a listed one (one being made is not visible before it is
    // listed): the loser's rename went back with its transaction.
    expect(await query(`select nspname from pg_namespace where nspname like 'cal_spare_%' and nspname not in (select schema_name from cal_registry.spares)`)).toEqual([])
    expect((await set.list()).map((c) => c.key)).toEqual(['dup', 'first', 'late', 'taken'])
  } finally {
    await set.close()
  }
})

it("deleting the calendar whose schema holds pg_trgm leaves the other calendars' search indexes", async () => {
  const set = await createCalendars({ database, spareSchemas: 0 })
  try {
    const [keep] = [await set.create('keeps-search'), await set.create('holds-trgm')]
    // Where an earlier version left it: in the schema of the first calendar it created.
    await query('alter extension pg_trgm set schema cal_c_holds_trgm')
    expect(await set.delete('holds-trgm')).toBe(true)
    const indexes = await query(`select indexname from pg_indexes where schemaname = 'cal_c_keeps_search' and indexname = 'events_search'`)
    expect(indexes).toEqual([{ indexname: 'events_search' }])
    await keep!.events.create(EVENT)
    expect((await keep!.events.list({ search: 'chess' })).events).toHaveLength(1)
    // Moved to the registry's schema, which no delete drops.
    expect(await query(`select extnamespace::regnamespace::text as schema from pg_extension where extname = 'pg_trgm'`)).toEqual([{ schema: 'cal_registry' }])
  } finally {
    await set.close()
  }
})
