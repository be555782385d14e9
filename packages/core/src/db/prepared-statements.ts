import { createHash } from 'node:crypto'
import type { PostgresPool } from 'kysely'
import { clientQuery, wrappedPool } from './wrapped-pool.js'

/** A client that takes pg's query config (`pg.PoolClient`, or a host pool's client in `host-pool.ts`). */
export interface ConfigClient {
  query(config: { name?: string; text: string; values: unknown[] }): unknown
  query(cursor: object): unknown
  release(): void
}

/** A pool of such clients (`pg.Pool`). */
export interface ConfigPool {
  connect(): Promise<ConfigClient>
  end(): Promise<void>
}

/** How many times a statement text runs before it becomes a named prepared statement. */
const HOT_AFTER = 3
/** Texts named per pool; each connection holds a plan per name, so the set stays small. */
const MAX_NAMED = 100
/**
 * Texts marked `SCHEMA_QUALIFIED` named per pool, besides `MAX_NAMED`: each is one schema's, and
 * the calendars of a set share one namer, so a hundred calendars must not take the names of the
 * statements every calendar runs (the list's). Past it they run unnamed, planned each time.
 */
const MAX_NAMED_QUALIFIED = 16
/** Texts whose runs are counted before the counts start over (one-off statements never pile up). */
const MAX_COUNTED = 2000
/**
 * A LIKE/ILIKE pattern given as a parameter. Once PostgreSQL's plan cache settles on a generic plan
 * for a named statement (after five runs, when that plan looks no costlier than the custom ones),
 * the plan no longer sees the pattern, and a generic plan cannot use a trigram or
 * `text_pattern_ops` index for an unknown pattern (search fell to 27 requests a second). Patterns
 * must be literals (`sql-literals.ts`); this one is refused.
 */
const PATTERN_PARAMETER = /\bi?like\s+\$\d/i
/**
 * The statements PostgreSQL plans. Any other (DDL, DO blocks, VACUUM, transaction control) gains
 * nothing from a name, and migrations run the same DDL texts for every schema a calendar set makes:
 * named, they took the set's capped names and left every calendar's list unnamed, parsed and
 * planned on each request (issue 31: 0.54 of a calendar alone).
 */
const PLANNED = /^\s*(?:select|with|insert|update|delete|values)\b/i
/** String literals, blanked before that check: a searched text may itself read `like $1`. */
const STRING_LITERAL = /E?'(?:[^']|'')*'/g

/**
 * Ends a statement that must be planned for its own values every time, so it is never named
 * (`event-list-query.ts`), or whose text is one schema's (`migrate.ts`). Inside a comment, so
 * PostgreSQL ignores it.
 */
export const PLAN_EACH_TIME = '/* plan each time */'

/**
 * Ends a short statement that names every object of the calendar with its schema (the change
 * check, `change-log.ts`): on a connection that gets the calendar's search path per transaction (a
 * pooler, a host's pool) it is sent alone, outside a transaction (`host-pool.ts`), and its text is
 * one schema's, so few of them are named (`MAX_NAMED_QUALIFIED`). Inside a comment, so PostgreSQL
 * ignores it.
 */
export const SCHEMA_QUALIFIED = '/* schema-qualified */'

// Plan choice is left to PostgreSQL (`plan_cache_mode = auto`): after five runs of a named statement
// it keeps the generic plan only when that plan does not look costlier than the custom ones. Forced
// generic plans had saved the category list 0.7 ms of planning, but a generic plan never sees the
// date window, and list pages deep in the default window took 210 ms instead of 5. Statements are
// written so that their generic plans estimate sensibly (`sql-literals.ts`, `event-list-query.ts`);
// the bench's sweep (`pnpm bench`) times each list shape on the plan PostgreSQL kept.

/** Gives a statement text its prepared-statement name once it is hot; `undefined` until then. */
export type StatementNamer = (text: string) => string | undefined

/**
 * The counting behind `preparingPool`: one per pool, or one for every calendar of a set (names
 * follow the text, so calendars on one connection share a name only for the same text, and
 * PostgreSQL plans it again when it runs under another search path).
 */
export function sharedNamer(): StatementNamer {
  const names = new Map<string, string>()
  const counts = new Map<string, number>()
  let qualified = 0
  return (text: string): string | undefined => {
    const known = names.get(text)
    if (known !== undefined || text.endsWith(PLAN_EACH_TIME) || !PLANNED.test(text)) return known
    const own = text.endsWith(SCHEMA_QUALIFIED)
    if (own ? qualified >= MAX_NAMED_QUALIFIED : names.size - qualified >= MAX_NAMED) return undefined
    const seen = (counts.get(text) ?? 0) + 1
    if (seen === 1 && PATTERN_PARAMETER.test(text.replace(STRING_LITERAL, "''"))) throw new Error(`A LIKE pattern must be a literal (likePattern), not a parameter: ${text}`)
    if (seen < HOT_AFTER) {
      if (counts.size >= MAX_COUNTED) counts.clear()
      counts.set(text, seen)
      return undefined
    }
    counts.delete(text)
    // Named after the text, so two pools over one pg pool never give one name two texts.
    const name = `cal_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`
    names.set(text, name)
    if (own) qualified++
    return name
  }
}

/**
 * A pg pool whose clients run hot statements (same text, seen a few times) as named prepared
 * statements. Parsing a list statement costs PostgreSQL about as much as running it; a named
 * statement is parsed once per connection, and planned once when its generic plan is as good.
 * Statements stay unnamed until they are hot, and at most `MAX_NAMED` texts are ever named, so
 * ad-hoc statements (variable `in` lists) cost nothing. A pattern given as a parameter
 * is refused (`PATTERN_PARAMETER`).
 */
export function preparingPool(pool: ConfigPool, nameOf: StatementNamer = sharedNamer()): PostgresPool {
  return wrappedPool(pool, (client: ConfigClient) => ({
    query: clientQuery((textOrCursor, parameters) => {
      if (typeof textOrCursor !== 'string') return client.query(textOrCursor)
      const values = parameters as unknown[]
      const name = nameOf(textOrCursor)
      return client.query(name === undefined ? { text: textOrCursor, values } : { name, text: textOrCursor, values })
    }),
    release: () => client.release(),
  }))
}
