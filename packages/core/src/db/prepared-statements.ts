import { createHash } from 'node:crypto'
import type { PostgresPool, PostgresPoolClient } from 'kysely'
import type pg from 'pg'

/** How many times a statement text runs before it becomes a named prepared statement. */
const HOT_AFTER = 3
/** Texts decided per pool (named, or never named); each connection holds a plan per name, so the set stays small. */
const MAX_NAMED = 100
/** Texts whose runs are counted before the counts start over (one-off statements never pile up). */
const MAX_COUNTED = 2000
/**
 * Pattern matches (`like`, `ilike`) need the pattern to plan well: a generic plan cannot use a
 * trigram or `text_pattern_ops` index for an unknown pattern, and PostgreSQL's guess of a
 * pattern's selectivity made it prefer such a plan for search (60 ms instead of 1 ms a request).
 */
const PLAN_NEEDS_VALUES = /\bi?like\b/i

/**
 * A pg pool whose clients run hot statements (same text, seen a few times) as named prepared
 * statements. Parsing and planning a list statement costs PostgreSQL about as much as running it;
 * a named statement is parsed once per connection and, once PostgreSQL finds its generic plan no
 * worse than the custom ones, planned once too. Statements stay unnamed until they are hot, and at
 * most `MAX_NAMED` texts are ever named, so ad-hoc statements (variable `in` lists) cost nothing.
 * Pattern matches stay unnamed (`PLAN_NEEDS_VALUES`).
 */
export function preparingPool(pool: pg.Pool): PostgresPool {
  // A text's name, or null for a pattern match that is never named.
  const names = new Map<string, string | null>()
  const counts = new Map<string, number>()
  const nameOf = (text: string): string | undefined => {
    const known = names.get(text)
    if (known !== undefined || names.size >= MAX_NAMED) return known ?? undefined
    const seen = (counts.get(text) ?? 0) + 1
    if (seen < HOT_AFTER) {
      if (counts.size >= MAX_COUNTED) counts.clear()
      counts.set(text, seen)
      return undefined
    }
    counts.delete(text)
    // Named after the text, so two pools over one pg pool never give one name two texts.
    const name = PLAN_NEEDS_VALUES.test(text) ? null : `cal_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`
    names.set(text, name)
    return name ?? undefined
  }
  // Kysely keeps one connection object per client it is handed, so hand it the same wrapper.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>()
  const wrap = (client: pg.PoolClient): PostgresPoolClient => ({
    query(textOrCursor: any, parameters?: ReadonlyArray<unknown>): any {
      if (typeof textOrCursor !== 'string') return client.query(textOrCursor)
      const values = parameters as unknown[]
      const name = nameOf(textOrCursor)
      return client.query(name === undefined ? { text: textOrCursor, values } : { name, text: textOrCursor, values })
    },
    release: () => client.release(),
  })
  return {
    async connect() {
      const client = await pool.connect()
      let wrapper = wrappers.get(client)
      if (!wrapper) wrappers.set(client, (wrapper = wrap(client)))
      return wrapper
    },
    end: () => pool.end(),
  }
}
