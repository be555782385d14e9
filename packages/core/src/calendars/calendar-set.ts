import { sql, type Kysely, type Transaction } from 'kysely'
import { resolveOptions, type Authenticate, type CalendarOptions, type ResolvedOptions } from '../config/options.js'
import { startCalendar, type Calendar } from '../create-calendar.js'
import type { DatabaseHandle } from '../db/create-db.js'
import type { HealthReport, PoolStats } from '../db/health.js'
import { eventLoopDelay } from '../shared/loop-delay.js'
import { assertMigrated, migrateInTransaction, migrateToLatest, pendingMigrations } from '../db/migrate.js'
import { SCHEMA_NAME } from '../db/schema.js'
import { openSharedDatabase } from '../db/shared-database.js'
import { waitForDatabase } from '../db/connect.js'
import { CalendarError } from '../errors.js'
import { spareSchemas } from './spare-schemas.js'

// Many calendars in one process, on one pool (docs/multi-calendar.md): each calendar is a schema of
// its own (the same tables, migrations and statements as a single calendar), listed in a small
// registry that maps keys to schemas. Calendars open when first asked for; the most recently used
// stay open, the others cost a registry row.

/** A calendar key: lower-case letters, digits and inner hyphens, 1 to 50 characters (URL- and schema-safe). */
export const CALENDAR_KEY = /^[a-z0-9](?:[a-z0-9-]{0,48}[a-z0-9])?$/

/** Default schema of the registry of keys. */
export const DEFAULT_REGISTRY_SCHEMA = 'cal_registry'

/** Options one calendar of a set may have of its own (kept in the registry, applied over the set's). */
export interface CalendarSettings {
  variant?: 'A' | 'B'
  languages?: string[]
  siteTimezone?: string
  publicBaseUrl?: string
  dateFilterMode?: 'event-local' | 'utc'
  unfilteredHtml?: 'editors' | 'nobody'
}

/** `calendars.create`'s options: the calendar's own settings, and optionally an existing schema to take in. */
export interface CreateCalendarOptions extends CalendarSettings {
  /**
   * The schema to keep the calendar in. Default `cal_c_<key>` (hyphens as underscores). An existing
   * calendar's schema (`cal_events` of a single-calendar install) is taken in as it is, data kept.
   */
  schema?: string
}

/** One calendar of the registry. */
export interface CalendarInfo {
  readonly key: string
  readonly schema: string
  readonly settings: CalendarSettings
  /** ISO 8601 instant. */
  readonly createdAt: string
}

/** Options of `createCalendars`: every calendar option but `schema`, shared by all calendars, and the set's own. */
export interface CalendarsOptions extends Omit<CalendarOptions, 'schema' | 'authenticate'> {
  /**
   * Replaces the default bearer-token authenticator, for every calendar; told which calendar the
   * request is for, so one user may hold a different role in each.
   */
  authenticate?: (request: Parameters<Authenticate>[0], calendar: { readonly key: string }) => ReturnType<Authenticate>
  /** Schema of the registry of keys. Default `cal_registry`. */
  registrySchema?: string
  /**
   * Calendars kept open at most (the most recently used); another one is opened again when asked
   * for (one statement, its migrations checked). An open idle calendar keeps about 30 kB of heap
   * (its handle, dispatcher and caches; the operations, their routes and the query compiler are shared,
   * the script API is built on first use); a closed one costs a registry row. Default 500 (about 15 MB).
   */
  maxOpen?: number
  /**
   * Schemas kept migrated ahead of need (listed in the registry, made in the background after a
   * `create`), so that `create` renames one instead of running every migration: milliseconds, not
   * the ~100 ms to 1 s of the migrations' DDL. Default 2 on PostgreSQL, 0 on PGlite (one session:
   * a spare being made would hold every request); 0: each `create` migrates its schema.
   */
  spareSchemas?: number
}

/** Many calendars on one pool: `create`, `get`, `list`, `delete`, each answering the same `Calendar` as `createCalendar`. */
export interface Calendars {
  /** The options shared by every calendar (each calendar's `options` adds its own settings). */
  readonly options: ResolvedOptions
  /** Creates a calendar (its schema, migrated) and registers `key`; a key in use is an error. */
  create(key: string, options?: CreateCalendarOptions): Promise<Calendar>
  /** The calendar of `key`, opened if it is not; `undefined` when no calendar has that key. A malformed key throws (`INVALID_CALENDAR_KEY`). */
  get(key: string): Promise<Calendar | undefined>
  /** As `get`, but an unknown key throws `CALENDAR_NOT_FOUND` (404 over HTTP): for request resolvers. */
  resolve(key: string): Promise<Calendar>
  /** Every registered calendar, by key. */
  list(): Promise<CalendarInfo[]>
  /** Drops the calendar of `key` and all its data; false when there was none. */
  delete(key: string): Promise<boolean>
  /** Calendars open right now (in memory). */
  openCount(): number
  /**
   * The calendar of `key` if it is open and started, else `undefined`: no I/O, and not counted as a
   * use (the least recently used still goes first). For observers such as the metrics router.
   */
  opened(key: string): Calendar | undefined
  /** Connections of the shared PostgreSQL pool (`undefined` for PGlite). */
  poolStats(): PoolStats | undefined
  /**
   * Readiness: whether the shared database answers (the registry is read within `timeoutMs`,
   * default 2 s), plus pool usage. Each calendar checks its own migrations when it opens. Never throws.
   */
  health(timeoutMs?: number): Promise<HealthReport>
  /** Stops every calendar's background work and releases the shared database. */
  close(): Promise<void>
}

/** The check of a key, with the error adapters answer as a 400. */
function checkKey(key: unknown): string {
  if (typeof key !== 'string' || !CALENDAR_KEY.test(key)) {
    throw new CalendarError('INVALID_CALENDAR_KEY', 'Invalid calendar key: lower-case letters, digits and inner hyphens, 1 to 50 characters.')
  }
  return key
}

const SETTING_NAMES = ['variant', 'languages', 'siteTimezone', 'publicBaseUrl', 'dateFilterMode', 'unfilteredHtml'] as const

type Row = { key: string; schema_name: string; settings: CalendarSettings; created_at: Date | string }

/**
 * Opens the database once for many calendars (one pool, or one PGlite session) and its registry of
 * keys. `database` and every other option apply to all calendars; `create` adds a calendar's own settings.
 *
 * @example
 * const calendars = await createCalendars({ database: { url: process.env.DATABASE_URL! } })
 * const chess = await calendars.create('chess-club', { siteTimezone: 'Europe/Paris' })
 * const same = await calendars.get('chess-club')
 */
export async function createCalendars(input: CalendarsOptions = {}): Promise<Calendars> {
  const { registrySchema = DEFAULT_REGISTRY_SCHEMA, maxOpen = 500, spareSchemas: spareCountGiven, authenticate, ...shared } = input
  const options = resolveOptions(shared)
  if (!SCHEMA_NAME.test(registrySchema)) throw new TypeError('Invalid calendar options: registrySchema: a lower-case identifier such as cal_registry')
  if (!Number.isInteger(maxOpen) || maxOpen < 1) throw new TypeError('Invalid calendar options: maxOpen: a positive integer')
  if (spareCountGiven !== undefined && (!Number.isInteger(spareCountGiven) || spareCountGiven < 0)) throw new TypeError('Invalid calendar options: spareSchemas: an integer, 0 or more')
  const database = await openSharedDatabase(options.database)
  // PGlite is one session: a spare being made would hold every calendar's requests for its migrations.
  const spareCount = spareCountGiven ?? (database.kind === 'pglite' ? 0 : 2)
  const registryHandle = database.open(registrySchema, options.onQuery)
  const registry = registryHandle.db
  try {
    if ('url' in options.database) await waitForDatabase(registry, options.database.url, options.database.startupWaitMs ?? 0)
    await createRegistry(registry, registrySchema)
  } catch (err) {
    await database.close().catch(() => {})
    throw err
  }
  const table = sql.id(registrySchema, 'calendars')
  // Spares are made in the background, on a handle of their own that `onQuery` does not hear: no
  // call of the host's runs those statements.
  const spareHandle = database.open(registrySchema)
  const spares = spareSchemas(spareHandle.db, registrySchema, spareCount, () => (database.poolStats?.().waiting ?? 0) > 0)
  /** Open calendars, least recently used first (a Map keeps insertion order). */
  const open = new Map<string, Promise<Calendar>>()
  /** What each opening resolved to, for `opened` (synchronous). */
  const started = new WeakMap<Promise<Calendar>, Calendar>()
  const track = (opening: Promise<Calendar>) => {
    opening.then((calendar) => void started.set(opening, calendar), () => {})
    return opening
  }

  const touch = (key: string, calendar: Promise<Calendar>) => {
    open.delete(key)
    open.set(key, calendar)
    while (open.size > maxOpen) {
      const [oldest, evicted] = open.entries().next().value!
      open.delete(oldest)
      // Its background work stops; a request still running on it finishes (the pool is the set's).
      void evicted.then((c) => c.close(), () => {})
    }
  }

  /** `check`: migrate the schema if it lags (`get` with `migrate: true`), refuse it if it does (`migrate: false`), or nothing (just created). */
  async function openCalendar(row: Row, check: 'migrate' | 'assert' | 'none', handle = database.open(row.schema_name, options.onQuery)): Promise<Calendar> {
    const own: ResolvedOptions = {
      ...resolveOptions({
        ...shared,
        ...pickSettings(row.settings),
        schema: row.schema_name,
        authenticate: authenticate && ((request) => authenticate(request, { key: row.key })),
      }),
      siteUnderMount: true,
    }
    if (check === 'migrate' && (await pendingMigrations(handle.db, row.schema_name)).length > 0) await migrateToLatest(handle.db, row.schema_name)
    else if (check === 'assert') await assertMigrated(handle.db, row.schema_name)
    const calendar = startCalendar(own, setHandle(handle))
    const close = calendar.close.bind(calendar)
    return Object.assign(calendar, {
      close: async () => {
        // Closed by its user: the next `get` opens it again.
        const current = open.get(row.key)
        if (current && (await current.catch(() => undefined)) === calendar) open.delete(row.key)
        await close()
      },
    })
  }

  async function find(key: string): Promise<Row | undefined> {
    const { rows } = await sql<Row>`select key, schema_name, settings, created_at from ${table} where key = ${key}`.execute(registry)
    return rows[0]
  }

  async function get(key: string): Promise<Calendar | undefined> {
    checkKey(key)
    const known = open.get(key)
    if (known) {
      touch(key, known)
      return known
    }
    const row = await find(key)
    if (!row) return undefined
    // Checked again: another call may have opened it while the registry answered.
    const raced = open.get(key)
    if (raced) return raced
    const opening = track(openCalendar(row, options.migrate ? 'migrate' : 'assert'))
    touch(key, opening)
    opening.catch(() => {
      if (open.get(key) === opening) open.delete(key)
    })
    return opening
  }

  return {
    options,
    async create(key, createOptions = {}) {
      checkKey(key)
      const { schema: given, ...settings } = createOptions
      const schema = given ?? `cal_c_${key.replaceAll('-', '_')}`
      if (!SCHEMA_NAME.test(schema) || schema === registrySchema) throw new TypeError(`Invalid calendar options: schema: a lower-case identifier other than ${registrySchema}`)
      const kept = pickSettings(settings)
      // The settings are checked before anything is created: a bad time zone creates nothing.
      resolveOptions({ ...shared, ...kept, schema })
      if (await find(key)) throw new TypeError(`A calendar with the key "${key}" exists already.`)
      let row: Row
      try {
        // The schema and the key's row in one transaction: a refused key leaves no schema behind.
        row = await registry.transaction().execute(async (trx) => {
          // A schema given, or one of the default name left over, is taken in as it is (migrated), not replaced by a spare.
          const spare = given === undefined && !(await schemaExists(trx, schema)) && (await spares.take(trx, schema))
          if (!spare) await migrateInTransaction(trx, schema)
          const { rows } = await sql<Row>`insert into ${table} (key, schema_name, settings) values (${key}, ${schema}, ${JSON.stringify(kept)}::jsonb)
            returning key, schema_name, settings, created_at`.execute(trx)
          return rows[0]!
        })
      } catch (err) {
        // 42P06: another create of the key committed its schema before this one renamed a spare to it.
        if (['23505', '42P06'].includes((err as { code?: string }).code ?? '')) throw new TypeError(`The key "${key}" or the schema "${schema}" belongs to another calendar already.`, { cause: err })
        throw err
      } finally {
        spares.refill()
      }
      const opening = track(openCalendar(row, 'none'))
      touch(key, opening)
      return opening
    },
    get,
    async resolve(key) {
      const calendar = await get(key)
      if (!calendar) throw new CalendarError('CALENDAR_NOT_FOUND', 'No calendar has this key.')
      return calendar
    },
    async list() {
      const { rows } = await sql<Row>`select key, schema_name, settings, created_at from ${table} order by key`.execute(registry)
      return rows.map((row) => ({
        key: row.key,
        schema: row.schema_name,
        settings: pickSettings(row.settings),
        createdAt: new Date(row.created_at).toISOString(),
      }))
    },
    async delete(key) {
      checkKey(key)
      const opened = open.get(key)
      open.delete(key)
      if (opened) await opened.then((c) => c.close(), () => {})
      return registry.transaction().execute(async (trx) => {
        const { rows } = await sql<{ schema_name: string }>`delete from ${table} where key = ${key} returning schema_name`.execute(trx)
        if (!rows[0]) return false
        // pg_trgm exists once per database, in the schema that created it (an earlier version's
        // first calendar): dropped with it, it would take every other calendar's search indexes along.
        const { rows: trgm } = await sql<{ here: boolean }>`select exists (select 1 from pg_extension
            where extname = 'pg_trgm' and extnamespace = to_regnamespace(${`"${rows[0].schema_name}"`})) as here`.execute(trx)
        if (trgm[0]!.here) await sql`alter extension pg_trgm set schema ${sql.id(registrySchema)}`.execute(trx)
        await sql`drop schema if exists ${sql.id(rows[0].schema_name)} cascade`.execute(trx)
        return true
      })
    },
    openCount: () => open.size,
    opened(key) {
      const opening = open.get(key)
      return opening && started.get(opening)
    },
    poolStats: () => database.poolStats?.(),
    async health(timeoutMs = 2000) {
      const pool = database.poolStats?.()
      const stats = { ...(pool ? { pool } : {}), eventLoop: eventLoopDelay() }
      let timer: NodeJS.Timeout | undefined
      try {
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
        })
        await Promise.race([sql`select 1 from ${table} limit 1`.execute(registry), timeout])
        return { ready: true, database: 'up', pendingMigrations: [], ...stats }
      } catch (err) {
        return { ready: false, database: 'down', pendingMigrations: [], ...stats, error: err instanceof Error ? err.message : String(err) }
      } finally {
        clearTimeout(timer)
      }
    },
    async close() {
      const all = [...open.values()]
      open.clear()
      await spares.close()
      await Promise.all(all.map((c) => c.then((calendar) => calendar.close(), () => {})))
      await spareHandle.close()
      await registryHandle.close()
      await database.close()
    },
  }
}

/** Only the settings a calendar of a set may have of its own; anything else stored or given is ignored. */
function pickSettings(settings: CalendarSettings | null | undefined): CalendarSettings {
  const picked: Record<string, unknown> = {}
  for (const name of SETTING_NAMES) if (settings?.[name] !== undefined) picked[name] = settings[name]
  return picked
}

/**
 * A calendar's handle inside a set: closing the calendar stops its background work only. The pool
 * is the set's, and a request still running on a calendar the set let go of must finish.
 */
function setHandle(handle: DatabaseHandle): DatabaseHandle {
  return { ...handle, close: async () => {} }
}

async function schemaExists<D>(trx: Transaction<D>, schema: string): Promise<boolean> {
  const { rows } = await sql<{ present: boolean }>`select to_regnamespace(${`"${schema}"`}) is not null as present`.execute(trx)
  return rows[0]!.present
}

/** The registry: one row per calendar and one per spare schema, created once per database (instances starting together wait for each other). */
async function createRegistry<D>(db: Kysely<D>, schema: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${`cal-events registry ${schema}`}))`.execute(trx)
    await sql`create schema if not exists ${sql.id(schema)}`.execute(trx)
    // Where pg_trgm lives when no one made it yet: in no calendar's schema, which a delete drops.
    await sql`create extension if not exists pg_trgm schema ${sql.id(schema)}`.execute(trx)
    await sql`create table if not exists ${sql.id(schema, 'calendars')} (
      key text primary key,
      schema_name text not null unique,
      settings jsonb not null default '{}',
      created_at timestamptz not null default now()
    )`.execute(trx)
    await sql`create table if not exists ${sql.id(schema, 'spares')} (
      schema_name text primary key,
      created_at timestamptz not null default now()
    )`.execute(trx)
  })
}

