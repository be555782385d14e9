import { inject } from 'vitest'
import './vitest-context.js'
import pg from 'pg'
import { createCalendar, createCalendars, type Calendar, type CalendarOptions, type Calendars } from '@cal-events/core'

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

/** Which database the current project runs on. */
export const BACKEND: 'postgres' | 'pglite' = process.env.CAL_TEST_BACKEND === 'pglite' ? 'pglite' : 'postgres'

/**
 * `pgbouncer` in the project that runs the HTTP suite through a private PgBouncer in transaction
 * mode (global-setup.ts starts it): the worker's calendars connect through it with
 * `pooler: 'transaction', preparedStatements: true`; raw sessions of the tests (`querySql`,
 * `workerDatabaseUrl`) stay direct.
 */
export const POOLER: 'pgbouncer' | undefined = process.env.CAL_TEST_POOLER === 'pgbouncer' ? 'pgbouncer' : undefined

interface WorkerDb {
  database: CalendarOptions['database']
  migrated: boolean
}

const cacheKey = Symbol.for('cal-events.test-db')
const cache = globalThis as unknown as { [cacheKey]?: Promise<WorkerDb> }

/** The worker's own database: a fresh PostgreSQL database, or one PGlite instance shared by its files. */
function workerDb(): Promise<WorkerDb> {
  cache[cacheKey] ??= (async () => {
    if (BACKEND === 'pglite') {
      const [{ PGlite }, { pg_trgm }] = await Promise.all([
        import('@electric-sql/pglite'),
        import('@electric-sql/pglite/contrib/pg_trgm'),
      ])
      const pglite = await PGlite.create({ extensions: { pg_trgm } })
      return { database: { pglite }, migrated: false }
    }
    const name = `cal_t_${inject('calRunId')}_${process.env.VITEST_POOL_ID ?? '0'}`
    const admin = new pg.Client({ connectionString: ADMIN_URL })
    await admin.connect()
    await admin.query(`drop database if exists "${name}" with (force)`)
    await admin.query(`create database "${name}"`)
    await admin.end()
    const url = new URL(ADMIN_URL)
    url.pathname = `/${name}`
    return { database: calendarDatabase(url.href, 4), migrated: false }
  })()
  return cache[cacheKey]
}

/** Database options of a calendar on `url` (the worker's database), through PgBouncer in the pooler project. */
function calendarDatabase(url: string, poolSize: number): CalendarOptions['database'] {
  if (!POOLER) return { url, poolSize }
  const port = inject('calPgBouncerPort')
  if (!port) throw new Error('CAL_TEST_POOLER=pgbouncer but no PgBouncer was started (test-support/global-setup.ts)')
  const through = new URL(url)
  through.hostname = '127.0.0.1'
  through.port = String(port)
  // The harness's PgBouncer keeps named statements (1.21 or later, max_prepared_statements).
  // A login through the pooler waits for PgBouncer's one thread: under a loaded run (load 15 on two
  // cores) the default 3 s ran out while a large feed's writes filled its pool.
  return { url: through.href, poolSize, pooler: 'transaction', preparedStatements: true, connectionTimeoutMs: 10_000 }
}

/**
 * Database options for another calendar on the worker's database (`migrate: false`, it is
 * migrated by `freshCalendar`), connected as the worker's own calendars are.
 */
export async function workerCalendarDatabase(poolSize: number): Promise<NonNullable<CalendarOptions['database']>> {
  const { database } = await workerDb()
  if (!database || !('url' in database)) throw new Error('workerCalendarDatabase needs the postgres backend')
  return { ...database, poolSize }
}

/**
 * `CAL_TEST_MULTI=1` (project `http-multi`): each test's calendar is the calendar `main` of a
 * calendar set (docs/multi-calendar.md), the worker's `cal_events` schema taken in as an existing
 * install's would be, and `startServer` serves it through a resolver under `/calendars/main`.
 */
export const MULTI = process.env.CAL_TEST_MULTI === '1'

const sets = new WeakMap<Calendar, Calendars>()

/** The calendar set a calendar of `freshCalendar` belongs to (`CAL_TEST_MULTI=1`). */
export function setOf(calendar: Calendar): Calendars | undefined {
  return sets.get(calendar)
}

async function calendarOfSet(options: Omit<CalendarOptions, 'database'>, database: NonNullable<CalendarOptions['database']>, migrate: boolean): Promise<Calendar> {
  const { schema: _schema, ...shared } = options
  const set = await createCalendars({ ...shared, database, migrate })
  const calendar = (await set.get('main')) ?? (await set.create('main', { schema: 'cal_events' }))
  const close = calendar.close
  sets.set(calendar, set)
  // Closing the test's calendar closes its set (and the set's pool).
  return Object.assign(calendar, { close: async () => (await close(), await set.close()) })
}

const TABLES = ['event_terms', 'event_organizers', 'events', 'venues', 'organizers', 'terms', 'images', 'api_tokens', 'users']

/** A calendar on an empty worker database (tables truncated, ids restarted). Close it in afterAll. */
export async function freshCalendar(options: Omit<CalendarOptions, 'database'> = {}): Promise<Calendar> {
  const worker = await workerDb()
  const calendar = MULTI
    ? await calendarOfSet(options, worker.database!, !worker.migrated)
    : await createCalendar({ ...options, database: worker.database, migrate: !worker.migrated })
  worker.migrated = true
  await truncate(worker.database!)
  return calendar
}

async function truncate(database: NonNullable<CalendarOptions['database']>): Promise<void> {
  const statement = `truncate ${TABLES.join(', ')} restart identity cascade; alter sequence post_id_seq restart`
  if ('pglite' in database) {
    await database.pglite.exec(statement)
    return
  }
  if (!('url' in database)) throw new Error('unexpected test database')
  const client = new pg.Client({ connectionString: inCalendarSchema(directUrl(database.url)) })
  await client.connect()
  await client.query(statement)
  await client.end()
}

/** Runs SQL on the worker's database directly, for state the API cannot create (e.g. `post_parent`). */
export async function execSql(statement: string): Promise<void> {
  await querySql(statement)
}

/**
 * Runs `run` while the database refuses (a check violation, as a constraint would) every row
 * inserted into `table` whose title is `title`: what a bulk write's one bad item looks like.
 */
export async function whileRefusingTitle(table: 'events' | 'venues' | 'organizers', title: string, run: () => Promise<void>): Promise<void> {
  const fn = `test_refuse_${table}`
  await execSql(`create function ${fn}() returns trigger language plpgsql as $$
    begin raise exception 'refused' using errcode = '23514'; end $$;
    create trigger ${fn} before insert on ${table} for each row when (new.title = '${title.replace(/'/g, "''")}') execute function ${fn}()`)
  try {
    await run()
  } finally {
    await execSql(`drop trigger ${fn} on ${table}; drop function ${fn}()`)
  }
}

/** Runs one SQL statement on the worker's database and returns its rows (for checks against the truth). */
export async function querySql<R = Record<string, unknown>>(statement: string): Promise<R[]> {
  const { database } = await workerDb()
  if (database && 'pglite' in database) {
    const results = await database.pglite.exec(statement)
    return (results[results.length - 1]?.rows ?? []) as R[]
  }
  if (!database || !('url' in database)) throw new Error('unexpected test database')
  // One small pool per worker, closed when the worker exits (connects are the slow part).
  const url = directUrl(database.url)
  pools[url] ??= new pg.Pool({ connectionString: inCalendarSchema(url), max: 2, allowExitOnIdle: true })
  const result = (await pools[url]!.query(statement)) as pg.QueryResult | pg.QueryResult[]
  return (Array.isArray(result) ? result[result.length - 1]!.rows : result.rows) as R[]
}

const pools: Record<string, pg.Pool> = {}

/**
 * Connection URL of the worker's PostgreSQL database (migrated and emptied by freshCalendar). A
 * raw session on it finds the calendar's tables unqualified: its search_path is the calendar's
 * schema (a calendar opened on it sets its own anyway).
 */
export async function workerDatabaseUrl(): Promise<string> {
  const { database } = await workerDb()
  if (!database || !('url' in database)) throw new Error('workerDatabaseUrl needs the postgres backend')
  return inCalendarSchema(directUrl(database.url))
}

/** `url` on the PostgreSQL server itself, not through the project's PgBouncer (which refuses startup `options`). */
function directUrl(url: string): string {
  if (!POOLER) return url
  const direct = new URL(url)
  const server = new URL(ADMIN_URL)
  direct.host = server.host
  return direct.href
}

/** The worker's database options (PostgreSQL or the shared PGlite instance), for a test that opens it without a calendar. */
export async function workerDatabase(): Promise<NonNullable<CalendarOptions['database']>> {
  const { database } = await workerDb()
  if (!database) throw new Error('no worker database')
  return database
}

/** `url` with a startup option that puts the session in the calendar's default schema. */
export function inCalendarSchema(url: string, schema = 'cal_events'): string {
  const withOptions = new URL(url)
  withOptions.searchParams.set('options', `-c search_path=${schema}`)
  return withOptions.href
}
