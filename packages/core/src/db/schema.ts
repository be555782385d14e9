import { CompiledQuery, type DatabaseConnection } from 'kysely'

/** The PostgreSQL schema that holds the calendar's tables, functions and migration records by default. */
export const DEFAULT_SCHEMA = 'cal_events'

/** Schema names the calendar accepts: a plain lower-case identifier, so no quoting surprises. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/**
 * Statement that points the session's `search_path` at the calendar's schema ($1), then at the
 * schema holding pg_trgm when that is another one (a host or an earlier calendar may have created
 * the extension, which exists once per database). `public` is left out on purpose: no unqualified
 * name of the calendar can ever reach a host's table. $2: `true` for the current transaction only.
 */
export const SET_SEARCH_PATH = `select set_config('search_path', quote_ident($1::text) || coalesce((
    select ', ' || quote_ident(n.nspname) from pg_extension e join pg_namespace n on n.oid = e.extnamespace
     where e.extname = 'pg_trgm' and n.nspname <> $1::text), ''), $2::boolean)`

/** Kysely `onCreateConnection` hook: every new connection works in the calendar's schema. */
export function useSchema(schema: string) {
  return async (connection: DatabaseConnection): Promise<void> => {
    await connection.executeQuery(CompiledQuery.raw(SET_SEARCH_PATH, [schema, false]))
  }
}
