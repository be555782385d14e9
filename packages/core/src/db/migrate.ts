import { CompiledQuery, sql, type Kysely, type Migration, type Transaction } from 'kysely'
import { MIGRATIONS } from './migrations/index.js'
import { PLAN_EACH_TIME } from './prepared-statements.js'
import { DEFAULT_SCHEMA, SET_SEARCH_PATH } from './schema.js'

/** Bookkeeping table, one row per applied migration (the layout Kysely's Migrator used). */
const RECORDS = 'cal_migrations'
/**
 * Ends the bookkeeping statements, whose text names the schema: a calendar set shares one capped
 * set of statement names among all its calendars, and each schema's texts would take one more.
 */
const UNNAMED = sql.raw(PLAN_EACH_TIME)

/** What one migration run did. */
export interface MigrationReport {
  /** Migrations applied by this run, in order. */
  readonly applied: readonly string[]
  /** True when this run moved an earlier version's tables from `public` into the schema. */
  readonly adopted: boolean
}

/**
 * Applies every pending migration inside the calendar's schema, all in one transaction: a failure
 * anywhere leaves the database as it was (no schema, no bookkeeping table, no half a migration),
 * and the next start retries cleanly. Instances starting together wait for each other.
 */
export async function migrateToLatest<D>(db: Kysely<D>,
  schema: string = DEFAULT_SCHEMA,
  migrations: Record<string, Migration> = MIGRATIONS,
): Promise<MigrationReport> {
  const step: Step = {}
  try {
    return await db.transaction().execute((trx) => migrateWithin(trx, schema, migrations, step, true))
  } catch (err) {
    throw migrationError(err, schema, step)
  }
}

/**
 * `migrateToLatest` inside a transaction of the caller's (a calendar set's spare schema is migrated
 * and listed in one). `adopt: false` leaves an earlier version's tables in `public` where they are.
 */
export async function migrateInTransaction<D>(trx: Transaction<D>, schema: string, { adopt = true } = {}): Promise<MigrationReport> {
  const step: Step = {}
  try {
    return await migrateWithin(trx, schema, MIGRATIONS, step, adopt)
  } catch (err) {
    throw migrationError(err, schema, step)
  }
}

/**
 * After `ALTER SCHEMA … RENAME` inside `trx`: the pinned search path of the trigger functions (and
 * of the change check's function) is the one place the schema's old name is kept (as text); it is
 * pinned again to the new one.
 */
export async function repinRenamedSchema<D>(trx: Transaction<D>, schema: string): Promise<void> {
  await trx.executeQuery(CompiledQuery.raw(SET_SEARCH_PATH, [schema, true]))
  await sql.raw(PIN_FUNCTIONS).execute(trx)
}

/** The migration a run was applying when it failed, if any. */
type Step = { current?: string }

function migrationError(err: unknown, schema: string, step: Step): Error {
  const reason = err instanceof Error ? err.message : String(err)
  const what = step.current ? `Migration ${step.current} failed` : `Could not migrate the calendar schema "${schema}"`
  return new Error(`${what}: ${reason}`, { cause: err })
}

async function migrateWithin<D>(trx: Transaction<D>, schema: string, migrations: Record<string, Migration>, step: Step, adopt: boolean): Promise<MigrationReport> {
  await sql`select pg_advisory_xact_lock(hashtext(${`cal-events migrate ${schema}`}))`.execute(trx)
  // Created only when missing: a role without CREATE on the database can use a schema a DBA made.
  const { rows } = await sql<{ present: boolean }>`select to_regnamespace(${quoted(schema)}) is not null as present`.execute(trx)
  if (!rows[0]!.present) await sql`create schema ${sql.id(schema)}`.execute(trx)
  await trx.executeQuery(CompiledQuery.raw(SET_SEARCH_PATH, [schema, true]))
  const adopted = adopt && (await adoptPublicLayout(trx, schema))
  const records = sql.id(schema, RECORDS)
  await sql`create table if not exists ${records} (name varchar(255) primary key, timestamp varchar(255) not null)`.execute(trx)
  const done = new Set((await sql<{ name: string }>`select name from ${records} ${UNNAMED}`.execute(trx)).rows.map((r) => r.name))
  const unknown = [...done].filter((name) => !(name in migrations))
  if (unknown.length > 0) {
    throw new Error(`the schema "${schema}" has migrations this version does not know (${unknown.join(', ')}); a newer version migrated it`)
  }
  const applied: string[] = []
  // Numbers are handed out ahead of time to work landing in any order: a database that already
  // ran 0010 still takes a later-landed 0007 instead of calling its history corrupted.
  for (const name of Object.keys(migrations).sort()) {
    if (done.has(name)) continue
    step.current = name
    await migrations[name]!.up(trx)
    await sql`insert into ${records} (name, timestamp) values (${name}, ${new Date().toISOString()}) ${UNNAMED}`.execute(trx)
    applied.push(name)
  }
  step.current = undefined
  if (applied.length > 0 || adopted) await sql.raw(PIN_FUNCTIONS).execute(trx)
  return { applied, adopted }
}

// The schema or the records table missing: nothing applied yet.
const NOT_MIGRATED = new Set(['42P01', '3F000'])

/** The migrations of this version the schema has not applied, in order; database errors are thrown. */
export async function pendingMigrations<D>(db: Kysely<D>, schema: string = DEFAULT_SCHEMA): Promise<string[]> {
  const applied = await sql<{ name: string }>`select name from ${sql.id(schema, RECORDS)} ${UNNAMED}`
    .execute(db)
    .then((r) => new Set(r.rows.map((row) => row.name)))
    .catch((err: { code?: string }) => {
      if (NOT_MIGRATED.has(err.code ?? '')) return new Set<string>()
      throw err
    })
  return Object.keys(MIGRATIONS).filter((name) => !applied.has(name)).sort()
}

/**
 * For `migrate: false`: a schema this version has not fully migrated would answer every call with
 * 500, so the calendar refuses to start instead, naming what is missing.
 */
export async function assertMigrated<D>(db: Kysely<D>, schema: string = DEFAULT_SCHEMA): Promise<void> {
  const pending = await pendingMigrations(db, schema)
  if (pending.length === 0) return
  throw new Error(
    `Cannot start with migrate: false: the schema "${schema}" lacks ${pending.length} migration(s) (${pending.join(', ')}). ` +
      'Apply them first: migrateCalendar(options), a migrate command, or one start with migrate: true.',
  )
}

// Trigger functions also fire for writes from other sessions (a host's SQL on `cal_events.events`),
// whose search_path could lead `update terms` to the host's own `terms`. Each trigger function of
// the schema keeps the search_path of the migration (the calendar's schema first); after every run,
// so functions of later migrations are covered too. So does every function a migration created
// with a search path of its own (`set search_path from current`): `cal_check_changes` (0023), called
// by its schema's name behind a pooler, from sessions with another search path. Other functions
// are left unpinned: a SQL function with a setting of its own is never inlined into its caller (and
// `cal_event_relations` keeps its plan_cache_mode only). pg_trgm's own functions are left alone.

/**
 * The trigger functions of the current schema and its functions that pin a search path, but an
 * extension's. Found through the schema's entries in pg_depend (every function depends on its
 * schema), read by index: pg_proc has no index on the schema, and a calendar set's pg_proc holds
 * every calendar's functions (some 70 each). With
 * 66,000 functions the scan took 72 ms (EXPLAIN ANALYZE, a synthetic catalog, load ~10), this 0.2 ms.
 * Their OIDs, not `regprocedure`: printing one checks that the name is not hidden by another
 * function of the same name, a look-up of every calendar's function of that name.
 */
export const SCHEMA_PINNED_FUNCTIONS = `select p.oid as fn from pg_depend n join pg_proc p on p.oid = n.objid
     where n.refclassid = 'pg_namespace'::regclass and n.refobjid = current_schema()::regnamespace and n.classid = 'pg_proc'::regclass
       and p.pronamespace = n.refobjid
       and (p.prorettype = 'trigger'::regtype or exists (select 1 from unnest(p.proconfig) c where c like 'search_path=%'))
       and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')`

// Each function is created again as PostgreSQL prints it, its search path line replaced, instead
// of `ALTER FUNCTION … SET search_path`: ALTER finds the function by name, which reads every
// calendar's function of that name, and each ALTER drops the cached look-ups for the next one; at
// 1,000 calendars that was 70-140 ms of a create (BENCHMARKS.md, "Issue 31"). CREATE OR REPLACE
// finds it by its exact name, arguments and schema. Its body is not checked again (PostgreSQL
// checked it when a migration created it, and the check names the function the costly way), as
// pg_dump restores functions. A definition without the usual `AS` line is altered as before.
const PIN_FUNCTIONS = `do $$
declare
  fn oid;
  def text;
  body_at int;
  checking text := current_setting('check_function_bodies');
begin
  perform set_config('check_function_bodies', 'off', true);
  for fn in
    ${SCHEMA_PINNED_FUNCTIONS}
  loop
    def := pg_get_functiondef(fn);
    body_at := strpos(def, e'\\nAS ');
    if body_at = 0 then
      execute format('alter function %s set search_path from current', fn::regprocedure);
    else
      execute regexp_replace(left(def, body_at), e'\\n SET search_path TO [^\\n]*', '')
        || e' SET search_path FROM CURRENT\\n' || substr(def, body_at + 1);
    end if;
  end loop;
  perform set_config('check_function_bodies', checking, true);
end $$`

function quoted(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`
}

// Versions before schema isolation created these in `public` (migrations 0001-0004, and 0007 and 0010 on
// development builds between the two).
const LEGACY_TABLES = [
  'users', 'api_tokens', 'images', 'venues', 'organizers', 'events', 'event_organizers', 'terms', 'event_terms',
  'cal_changes', 'cal_change_horizon', RECORDS,
]
const LEGACY_SEQUENCES = ['post_id_seq']
const LEGACY_FUNCTIONS = [
  'cal_event_terms_count()',
  'cal_event_status_count()',
  'cal_event_delete_count()',
  'cal_image_json(integer)',
  'cal_venue_json(integer)',
  'cal_event_organizers_json(integer)',
  'cal_event_terms_json(integer)',
  'cal_event_relations(integer[])',
  'cal_record_change()',
  'cal_changed_since(pg_snapshot)',
  'cal_prune_changes(timestamptz)',
  'cal_event_revision()',
]

/**
 * Upgrade path from the layout of earlier versions: when `public` holds the calendar's migration
 * records and the schema holds none, the calendar's tables (with their indexes, constraints,
 * triggers and owned sequences), its shared id sequence and its functions move into the schema,
 * data and ids intact. Other objects in `public` (the host's, the pg_trgm extension) stay.
 */
async function adoptPublicLayout<D>(trx: Transaction<D>, schema: string): Promise<boolean> {
  if (schema === 'public') return false
  const { rows } = await sql<{ legacy: boolean }>`select to_regclass(${`${quoted(schema)}.${RECORDS}`}) is null
      and to_regclass(${`public.${RECORDS}`}) is not null as legacy`.execute(trx)
  if (!rows[0]!.legacy) return false
  const target = sql.id(schema)
  const present = async (kind: 'regclass' | 'regprocedure', name: string) =>
    (await sql<{ ok: boolean }>`select ${sql.raw(kind === 'regclass' ? 'to_regclass' : 'to_regprocedure')}(${`public.${name}`}) is not null as ok`.execute(trx)).rows[0]!.ok
  for (const table of LEGACY_TABLES) {
    if (await present('regclass', table)) await sql`alter table ${sql.id('public', table)} set schema ${target}`.execute(trx)
  }
  for (const sequence of LEGACY_SEQUENCES) {
    if (await present('regclass', sequence)) await sql`alter sequence ${sql.id('public', sequence)} set schema ${target}`.execute(trx)
  }
  for (const fn of LEGACY_FUNCTIONS) {
    if (await present('regprocedure', fn)) await sql`alter function ${sql.raw(`public.${fn}`)} set schema ${target}`.execute(trx)
  }
  // Kysely's Migrator kept a lock row here; the runner above locks with an advisory lock instead.
  await sql`drop table if exists ${sql.id('public', `${RECORDS}_lock`)}`.execute(trx)
  return true
}
