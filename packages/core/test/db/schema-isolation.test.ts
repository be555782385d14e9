import { afterEach, describe, expect, it } from 'vitest'
import { Migrator, sql } from 'kysely'
import pg from 'pg'
import { createCalendar, type Calendar, type CalendarOptions } from '@cal-events/core'
import { openDatabase } from '../../src/db/create-db.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { MIGRATIONS } from '../../src/db/migrations/index.js'
import { scratchDatabase } from '../../../../test-support/scratch-db.js'
import { BACKEND } from '../../../../test-support/test-db.js'

// The calendar in a host's database: its own schema (default `cal_events`), nothing created in or
// taken from `public`, migrations all-or-nothing, and the layout of earlier versions (tables in
// `public`) adopted. Each test gets a database of its own, as a host would have it.

interface HostDatabase {
  database: NonNullable<CalendarOptions['database']>
  /** Runs SQL as the host would: its own session, default search_path (PGlite: names qualified). */
  sql<R = Record<string, unknown>>(statement: string): Promise<R[]>
  close(): Promise<void>
}

let counter = 0
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function hostDatabase(): Promise<HostDatabase> {
  if (BACKEND === 'pglite') {
    const [{ PGlite }, { pg_trgm }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite/contrib/pg_trgm')])
    const pglite = await PGlite.create({ extensions: { pg_trgm } })
    const host: HostDatabase = {
      database: { pglite },
      async sql(statement) {
        const results = await pglite.exec(statement)
        return (results[results.length - 1]?.rows ?? []) as never[]
      },
      close: () => pglite.close(),
    }
    cleanups.push(() => host.close())
    return host
  }
  const scratch = scratchDatabase(`iso${process.env.VITEST_POOL_ID ?? 0}_${++counter}`)
  await scratch.create()
  const client = new pg.Client({ connectionString: scratch.url })
  await client.connect()
  const host: HostDatabase = {
    database: { url: scratch.url, poolSize: 2 },
    async sql(statement) {
      const result = (await client.query(statement)) as pg.QueryResult | pg.QueryResult[]
      return (Array.isArray(result) ? result[result.length - 1]!.rows : result.rows) as never[]
    },
    async close() {
      await client.end()
      await scratch.drop()
    },
  }
  cleanups.push(() => host.close())
  return host
}

async function open(host: HostDatabase, options: Omit<CalendarOptions, 'database'> = {}): Promise<Calendar> {
  const calendar = await createCalendar({ ...options, database: host.database })
  cleanups.push(() => calendar.close())
  return calendar
}

/** Everything in `public` that a migration could add or change, as comparable text. */
async function publicObjects(host: HostDatabase): Promise<string[]> {
  const rows = await host.sql<{ o: string }>(`
    select c.relkind::text || ' ' || c.relname as o from pg_class c where c.relnamespace = 'public'::regnamespace
    union all select 'f ' || p.oid::regprocedure::text from pg_proc p where p.pronamespace = 'public'::regnamespace
    union all select 't ' || t.tgname from pg_trigger t join pg_class c on c.oid = t.tgrelid where c.relnamespace = 'public'::regnamespace
    union all select 'col ' || table_name || '.' || column_name || ' ' || data_type from information_schema.columns where table_schema = 'public'
    order by 1`)
  return rows.map((r) => r.o)
}

const HOST_TABLES = `
  create table public.users (id serial primary key, email text not null unique);
  create table public.events (id serial primary key, name text not null, happened date);
  create table public.terms (id serial primary key, word text not null);
  create table public.images (id serial primary key, path text not null);
  insert into public.users (email) values ('ann@example.org'), ('bob@example.org');
  insert into public.events (name, happened) values ('launch', '2020-01-01');
  insert into public.terms (word) values ('alpha'), ('beta'), ('gamma');
  insert into public.images (path) values ('/a.png');`

const HOST_ROWS = `select (select json_agg(u order by id) from public.users u)::text as users,
  (select json_agg(e order by id) from public.events e)::text as events,
  (select json_agg(t order by id) from public.terms t)::text as terms,
  (select json_agg(i order by id) from public.images i)::text as images`

describe(`the calendar's own schema in a host's database (${BACKEND})`, () => {
  it('migrates beside host tables named users, events, terms and images, leaves them untouched and serves the API', async () => {
    const host = await hostDatabase()
    await host.sql(HOST_TABLES)
    const rowsBefore = await host.sql(HOST_ROWS)
    const publicBefore = await publicObjects(host)

    const calendar = await open(host)
    const created = await calendar.events.create({
      title: 'Open day',
      start_date: '2030-06-01 10:00:00',
      end_date: '2030-06-01 16:00:00',
      categories: ['Music'],
      venue: { venue: 'Town hall' },
    })
    expect((await calendar.events.get(created.id, { as: null })).title).toBe('Open day')
    expect((await calendar.events.list({ start_date: '2030-06-01', end_date: '2030-06-01' }, { as: null })).events.map((e) => e.id)).toEqual([created.id])
    expect((await calendar.categories.list({}, { as: null })).categories.map((c) => c.count)).toEqual([1])

    expect(await host.sql(HOST_ROWS)).toEqual(rowsBefore)
    expect(await publicObjects(host)).toEqual(publicBefore)
    const ours = await host.sql<{ relname: string }>(`select relname from pg_class where relnamespace = 'cal_events'::regnamespace and relkind = 'r' order by 1`)
    expect(ours.map((r) => r.relname)).toEqual(expect.arrayContaining(['cal_migrations', 'events', 'images', 'terms', 'users']))
  }, 120_000) // a PGlite of its own, migrated: seconds when idle, over 30 s with files side by side on a loaded machine

  it.runIf(BACKEND === 'postgres')('a host session writing the calendar tables fires triggers that stay in the calendar schema', async () => {
    const host = await hostDatabase()
    await host.sql(HOST_TABLES)
    const calendar = await open(host)
    const event = await calendar.events.create({ title: 'Gig', start_date: '2030-06-01 20:00:00', end_date: '2030-06-01 22:00:00', categories: ['Music'] })
    const rowsBefore = await host.sql(HOST_ROWS)
    // The host's session has the default search_path: unqualified `terms` there is the host's table.
    await host.sql(`delete from cal_events.event_terms where event_id = ${event.id}`)
    expect(await host.sql(HOST_ROWS)).toEqual(rowsBefore)
    expect((await calendar.categories.list({ hide_empty: false }, { as: null })).categories.map((c) => c.count)).toEqual([0])
  })

  it('a failing migration leaves nothing behind, and the next start migrates cleanly', async () => {
    const host = await hostDatabase()
    await host.sql(HOST_TABLES)
    const publicBefore = await publicObjects(host)
    const handle = await openDatabase(host.database, undefined, 'cal_events')
    const failing = {
      ...MIGRATIONS,
      '9999-fails': {
        async up(db: Parameters<(typeof MIGRATIONS)[string]['up']>[0]) {
          await sql`create table half_done (x integer)`.execute(db)
          throw new Error('disk on fire')
        },
      },
    }
    await expect(migrateToLatest(handle.db, 'cal_events', failing)).rejects.toThrow('Migration 9999-fails failed: disk on fire')
    await handle.close()
    expect(await host.sql(`select to_regnamespace('cal_events') as schema, to_regclass('public.cal_migrations') as records`)).toEqual([
      { schema: null, records: null },
    ])
    expect(await publicObjects(host)).toEqual(publicBefore)

    const calendar = await open(host)
    expect((await calendar.events.create({ title: 'After', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' })).title).toBe('After')
  })

  // PGlite has a single session, whose search_path only one calendar can own (README).
  it.runIf(BACKEND === 'postgres')('two calendars in two schemas of one database work side by side', async () => {
    const host = await hostDatabase()
    const a = await open(host, { schema: 'cal_a' })
    const b = await open(host, { schema: 'cal_b' })
    const inA = await a.events.create({ title: 'Only in A', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' })
    const inB = await b.events.create({ title: 'Only in B', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00', categories: ['B'] })
    expect(inA.id).toBe(inB.id) // separate id sequences
    expect((await a.events.list({ start_date: '2030-01-01', end_date: '2030-01-01' }, { as: null })).events.map((e) => e.title)).toEqual(['Only in A'])
    expect((await b.events.list({ start_date: '2030-01-01', end_date: '2030-01-01' }, { as: null })).events.map((e) => e.title)).toEqual(['Only in B'])
    expect((await a.categories.list({ hide_empty: false }, { as: null })).categories).toEqual([])
    expect(await host.sql(`select count(*)::int as n from pg_class where relnamespace = 'public'::regnamespace`)).toEqual([{ n: 0 }])
  })

  it('with migrate: false, refuses to start while migrations are pending, naming them; starts once they are applied', async () => {
    const host = await hostDatabase()
    const all = Object.keys(MIGRATIONS).sort()
    // Nothing migrated yet: every migration is pending.
    const never = createCalendar({ database: host.database, migrate: false })
    await expect(never).rejects.toThrow(`the schema "cal_events" lacks ${all.length} migration(s) (${all.join(', ')})`)
    await expect(never).rejects.toThrow(/migrateCalendar/)
    // An older version's schema: all but the last two applied.
    const handle = await openDatabase(host.database, undefined, 'cal_events')
    await migrateToLatest(handle.db, 'cal_events', Object.fromEntries(all.slice(0, -2).map((name) => [name, MIGRATIONS[name]!])))
    await handle.close()
    await expect(createCalendar({ database: host.database, migrate: false })).rejects.toThrow(`lacks 2 migration(s) (${all.slice(-2).join(', ')})`)
    // Migrated: it starts and serves.
    const migrated = await open(host)
    await migrated.close()
    const calendar = await open(host, { migrate: false })
    expect((await calendar.events.create({ title: 'Ready', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' })).title).toBe('Ready')
  })

  it('rejects a schema name that is not a plain identifier', async () => {
    await expect(createCalendar({ schema: 'Cal; drop' })).rejects.toThrow(/schema/)
  })

  it('adopts the layout of earlier versions (tables in public): data, ids and counts carry over', async () => {
    const host = await hostDatabase()
    await host.sql(`create table public.host_orders (id serial primary key, total int); insert into public.host_orders (total) values (42)`)
    // Migrations 0001-0004 as earlier versions ran them: Kysely's Migrator, everything in `public`.
    const legacy = await openDatabase(host.database, undefined, 'public')
    const early = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name <= '0004'))
    const migrator = new Migrator({
      db: legacy.db,
      provider: { getMigrations: async () => early },
      migrationTableName: 'cal_migrations',
      migrationLockTableName: 'cal_migrations_lock',
    })
    expect((await migrator.migrateToLatest()).error).toBeUndefined()
    await sql`insert into terms (taxonomy, name, slug) values ('category', 'Legacy', 'legacy')`.execute(legacy.db)
    await sql`insert into events (status, title, slug, date_utc, modified_utc, start_local, end_local, start_utc, end_utc)
      values ('publish', 'Old event', 'old-event', '2026-01-01', '2026-01-01', '2030-03-01 10:00', '2030-03-01 11:00', '2030-03-01 10:00', '2030-03-01 11:00')`.execute(legacy.db)
    await sql`insert into event_terms (event_id, term_id) select e.id, t.id from events e, terms t`.execute(legacy.db)
    const oldId = (await sql<{ id: number }>`select id from events`.execute(legacy.db)).rows[0]!.id
    await legacy.close()

    const calendar = await open(host)
    const old = await calendar.events.get(oldId, { as: null })
    expect(old.title).toBe('Old event')
    expect(old.categories.map((c) => [c.name, c.count])).toEqual([['Legacy', 1]])
    const next = await calendar.events.create({ title: 'New event', start_date: '2030-03-02 10:00:00', end_date: '2030-03-02 11:00:00' })
    expect(next.id).toBeGreaterThan(oldId)
    const inPublic = await host.sql<{ relname: string }>(`select relname from pg_class where relnamespace = 'public'::regnamespace and relkind in ('r', 'S') order by 1`)
    expect(inPublic.map((r) => r.relname)).toEqual(['host_orders', 'host_orders_id_seq'])
    expect(await host.sql(`select total from public.host_orders`)).toEqual([{ total: 42 }])
    const records = await host.sql<{ name: string }>(`select name from cal_events.cal_migrations order by name`)
    expect(records.map((r) => r.name)).toEqual(Object.keys(MIGRATIONS).sort())
    await calendar.close()
    cleanups.pop()
    // A second start finds nothing to adopt or apply.
    const again = await open(host)
    expect((await again.events.get(next.id, { as: null })).title).toBe('New event')
  })
})
