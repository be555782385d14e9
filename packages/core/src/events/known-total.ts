import { CompiledQuery, sql, type Compilable, type Kysely } from 'kysely'
import { changedSince, currentPoint, ORIGIN_POINT, type ChangeKind, type ChangePoint } from '../changes/change-log.js'
import type { DB } from '../db/generated.js'

// The "known total" protocol of the event list (docs/list-query.md). A list statement carries the
// total it last counted for the same filters and the point that total holds at; the database
// counts again only when the calendar changed since. Three parties keep to it: the list query
// (`event-list-query.ts`, which puts the pair first), the list operation (`event-list.ts`, which
// remembers the pair), and the bench's SQL ceiling (which replays the statement).

/** A list total counted earlier for the same filters, and the point (`change-log.ts`) it holds at. */
export interface KnownCount {
  total: number
  snapshot: ChangePoint
}

/**
 * The `total` and `snapshot` columns of a list statement: the known total while no change of the
 * kinds `countDependsOn` was recorded since its point, else `count`. The known point and total are
 * the first two parameters of the expression (and so of the statement, when it comes first).
 * Without a known total the origin point is bound, which always counts as changed: the text is
 * the same either way.
 */
export function knownTotalColumns(known: KnownCount | undefined, count: Compilable, countDependsOn: readonly ChangeKind[]) {
  const changed = changedSince(known?.snapshot ?? ORIGIN_POINT, countDependsOn)
  const total = sql<number>`case when not ${changed} then ${known?.total ?? 0}::int else (${count}) end`
  return [total.as('total'), currentPoint().as('snapshot')] as const
}

/** Per calendar database: the known totals per filters, and the compiled statements per filters and page. */
export interface KnownTotals {
  counts: Map<string, KnownCount>
  statements: Map<string, KeptStatement>
  /** Per filters: the statement on its way that counts them with no total known yet. */
  counting: Map<string, Promise<unknown>>
}

/** A compiled statement's text and parameters: its operation tree (hundreds of objects) is not kept (issue 31). */
type KeptStatement = Pick<CompiledQuery, 'sql' | 'parameters'>

const perDatabase = new WeakMap<Kysely<DB>, KnownTotals>()
const MAX_COUNTS = 1000
const MAX_STATEMENTS = 200

// The calendars of a set keep the same statement texts (their statements name no schema): one copy
// of each text for all of them (issue 31: ~2 kB per calendar for the default list alone). Bounded:
// past it, a calendar keeps its own copy.
const texts = new Map<string, string>()
const MAX_TEXTS = 1000

/** The process's one copy of `sql`. */
function sharedText(sql: string): string {
  const known = texts.get(sql)
  if (known !== undefined) return known
  if (texts.size < MAX_TEXTS) texts.set(sql, sql)
  return sql
}

/** The known totals of `db` (one set per Kysely instance, so per calendar). */
export function knownTotalsOf(db: Kysely<DB>): KnownTotals {
  let totals = perDatabase.get(db)
  if (!totals) perDatabase.set(db, (totals = { counts: new Map(), statements: new Map(), counting: new Map() }))
  return totals
}

/** Sets `key`, dropping the least recently set key beyond `max` (Map order is insertion order). */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key)
  map.set(key, value)
  if (map.size > max) map.delete(map.keys().next().value!)
}

const PROBE: KnownCount = { snapshot: '\u0000probe', total: -1 }

/**
 * The statement `build` makes, with the known total of `countKey` bound in. Built and compiled
 * once per `statementKey`: the known point and total must be its first two parameters (checked
 * once with a probe, never assumed), so a repeat only swaps those in.
 */
export function knownTotalStatement(
  totals: KnownTotals,
  countKey: string,
  statementKey: string,
  build: (known: KnownCount) => Compilable,
): CompiledQuery {
  let compiled = totals.statements.get(statementKey)
  if (!compiled) {
    const { sql, parameters } = build(PROBE).compile()
    // A change that breaks this must fail every list test, not quietly compile each request again.
    if (parameters[0] !== PROBE.snapshot || parameters[1] !== PROBE.total) {
      throw new Error('known total: the known point and total are not the first two parameters of the statement')
    }
    compiled = { sql: sharedText(sql), parameters }
    remember(totals.statements, statementKey, compiled, MAX_STATEMENTS)
  }
  const known = totals.counts.get(countKey)
  return CompiledQuery.raw(compiled.sql, [known?.snapshot ?? ORIGIN_POINT, known?.total ?? 0, ...compiled.parameters.slice(2)])
}

/**
 * Sends a list statement of `countKey` (`send` binds the known total when it runs). With no total
 * known for the filters, only one statement counts them: requests that arrive while it is on its
 * way wait for it, then send theirs with its total (still checked against the change log by their
 * own statement). A count grows with the rows that match (at 1,000,000 events a search's took
 * 4 s on the loaded bench machine, against 0.2 s at 10,000), and 32 callers each counting at once
 * after a server start timed out (issue 33 item 3).
 */
export async function sendCounted<T>(totals: KnownTotals, countKey: string, send: () => Promise<T>): Promise<T> {
  const counting = totals.counting.get(countKey)
  if (counting && !totals.counts.has(countKey)) await counting.catch(() => {})
  if (totals.counts.has(countKey)) return send()
  const sent = send()
  totals.counting.set(countKey, sent)
  try {
    return await sent
  } finally {
    if (totals.counting.get(countKey) === sent) totals.counting.delete(countKey)
  }
}

/** Remembers the total and point a statement of `countKey` answered with (its first row). */
export function rememberTotal(totals: KnownTotals, countKey: string, row: KnownCount): void {
  remember(totals.counts, countKey, { total: row.total, snapshot: row.snapshot }, MAX_COUNTS)
}

/**
 * The parameters to send a list statement again with, after it answered `rows`: its answer's
 * total and point in place of the first two, as the calendar does. For clients that replay the
 * calendar's statements (the bench's SQL ceiling).
 */
export function followKnownTotal(values: readonly unknown[], rows: readonly Record<string, unknown>[]): unknown[] {
  const head = rows[0]
  if (!head || typeof head.snapshot !== 'string' || typeof head.total !== 'number' || typeof values[0] !== 'string') return [...values]
  return [head.snapshot, head.total, ...values.slice(2)]
}
