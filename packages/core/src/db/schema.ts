import { CompiledQuery, type DatabaseConnection } from 'kysely'
import { PLAN_EACH_TIME } from './prepared-statements.js'

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

/**
 * One statement without parameters that sets the calendar's search path (as `SET_SEARCH_PATH`) and
 * statement timeout for the current transaction only: sent in the same message as its BEGIN on a
 * connection the calendar borrows from a host (`host-pool.ts`). `schema` is a checked identifier.
 */
export function localSettings(schema: string, statementTimeoutMs: number): string {
  if (!SCHEMA_NAME.test(schema) || !Number.isInteger(statementTimeoutMs) || statementTimeoutMs < 0) throw new TypeError('bad schema or timeout')
  const searchPath = SET_SEARCH_PATH.replaceAll('$1::text', `'${schema}'::text`).replace('$2::boolean', 'true')
  return `${searchPath}, set_config('statement_timeout', '${statementTimeoutMs}', true) ${PLAN_EACH_TIME}`
}

/**
 * A query (no parameters) answering `search_path`: the search path `SET_SEARCH_PATH` would set for
 * `schema`, its names quoted, ready to be written into `set local search_path = …`.
 */
export function searchPathQuery(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new TypeError('bad schema')
  return SET_SEARCH_PATH.replace(/^select set_config\('search_path', /, 'select ')
    .replace(/, \$2::boolean\)$/, ' as search_path')
    .replaceAll('$1::text', `'${schema}'::text`)
}
