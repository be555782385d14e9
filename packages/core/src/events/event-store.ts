import { sql, type RawBuilder, type Transaction } from 'kysely'
import type { DB } from '../db/generated.js'
import { escapeLike, likePattern } from '../db/sql-literals.js'

// An event's row and its links written in one statement (issue 33): the insert or update of
// `events` and the link changes are data-modifying CTEs of one statement, the links' statements
// reading the event's id from the event's CTE (so the event row is written, and locked, first).
// What the write knows is not read back; the response is read once, after the commit.

/** The links a write sets. */
export interface EventLinkWrites {
  /** Organizer ids in order; `undefined` leaves them as they are. */
  organizers?: readonly number[]
  /** Term ids of each taxonomy the write names (ids of no term of it are skipped). */
  terms: readonly { taxonomy: string; ids: readonly number[] }[]
}

const PUBLIC_SLUG_INDEX = sql`(language, slug) where status in ('publish', 'future', 'private') and slug <> ''`

/**
 * SQL for the slug a public event gets: `base`, or `base-2`, `base-3`… when another event of the
 * language holds it (any status, CONTRACT 10.3), as `uniqueSlug` picks it, read in the statement's
 * snapshot from the CTE `slug_taken` (`slugTakenCte`). `withSuffix`'s cut to 200 characters.
 */
function freeSlugSql(base: string): RawBuilder<string> {
  const candidate = sql`(case when c = '' then n::text else c || '-' || n end)`
  return sql<string>`(select case when not exists (select 1 from slug_taken where slug = ${base}::text) then ${base}::text else (
      select ${candidate} from generate_series(2, (select count(*)::int + 2 from slug_taken)) n,
        lateral (select rtrim(left(${base}::text, 199 - length(n::text)), '-') as c) cut
       where ${candidate} not in (select slug from slug_taken) order by n limit 1) end)`
}

/** The CTE of the slugs `freeSlugSql` must avoid: `base` and `base-…` of the language. */
function slugTakenCte(base: string, language: string): RawBuilder<unknown> {
  return sql`slug_taken as (select slug from events where language = ${language} and (slug = ${base} or slug like ${likePattern(`${escapeLike(base)}-%`)}))`
}

/** The link CTEs of a write whose event id comes from the CTE `target`. */
function linkCtes(target: 'ins' | 'upd', links: EventLinkWrites): RawBuilder<unknown>[] {
  const ctes: RawBuilder<unknown>[] = []
  const from = sql.table(target)
  const eventId = sql`(select id from ${from})`
  if (links.organizers !== undefined) {
    const wanted = sql`${[...links.organizers]}::int[]`
    if (target === 'upd') {
      // Only links that go are deleted and only new ones inserted (kept ones change position at
      // most), so no row is both deleted and inserted by the statement.
      ctes.push(sql`org_out as (delete from event_organizers where event_id = ${eventId} and organizer_id <> all(${wanted}))`)
    }
    ctes.push(sql`org_in as (insert into event_organizers (event_id, organizer_id, position)
      select t.id, o.id, (o.n - 1)::smallint from ${from} t, unnest(${wanted}) with ordinality o(id, n)
      ${target === 'upd' ? sql`on conflict (event_id, organizer_id) do update set position = excluded.position where event_organizers.position <> excluded.position` : sql``})`)
  }
  links.terms.forEach(({ taxonomy, ids }, i) => {
    const wanted = sql`${[...ids]}::int[]`
    if (target === 'upd') {
      ctes.push(sql`${sql.raw(`terms_out_${i}`)} as (delete from event_terms where event_id = ${eventId} and term_id <> all(${wanted})
        and term_id in (select id from terms where taxonomy = ${taxonomy}))`)
    }
    // In ascending term id, so that concurrent writers take their terms' key-share locks alike.
    ctes.push(sql`${sql.raw(`terms_in_${i}`)} as (insert into event_terms (event_id, term_id)
      select e.id, t.id from ${from} e, terms t where t.id = any(${wanted}) and t.taxonomy = ${taxonomy} order by t.id
      ${target === 'upd' ? sql`on conflict do nothing` : sql``})`)
  })
  return ctes
}

const columnList = (columns: Record<string, unknown>) => sql.join(Object.keys(columns).map((k) => sql.ref(k)))

/**
 * Inserts an event and its links in one statement; `slugBase` set: its slug is picked free in
 * the statement. `undefined` when a concurrent write took that slug first (the unique index
 * made the insert do nothing): run it again, its snapshot then sees the other's slug.
 */
export async function insertEventStatement(
  trx: Transaction<DB>,
  columns: Record<string, unknown>,
  slugBase: string | undefined,
  language: string,
  links: EventLinkWrites,
): Promise<number | undefined> {
  const { slug: _slug, ...rest } = columns
  const values = [...Object.values(rest).map((v) => sql.val(v)), slugBase === undefined ? sql.val(columns.slug) : freeSlugSql(slugBase)]
  const ctes = [
    ...(slugBase === undefined ? [] : [slugTakenCte(slugBase, language)]),
    sql`ins as (insert into events (${columnList(rest)}, slug) values (${sql.join(values)})
      on conflict ${PUBLIC_SLUG_INDEX} do nothing returning id)`,
    ...linkCtes('ins', links),
  ]
  const { rows } = await sql<{ id: number }>`with ${sql.join(ctes)} select id from ins`.execute(trx)
  return rows[0]?.id
}

/** Updates an event's columns (none: its links only) and replaces the links the write names, in one statement. */
export async function updateEventStatement(trx: Transaction<DB>, id: number, columns: Record<string, unknown>, links: EventLinkWrites): Promise<void> {
  const assignments = Object.entries(columns).map(([k, v]) => sql`${sql.ref(k)} = ${v}`)
  const target = assignments.length === 0 ? sql`select ${id}::int as id` : sql`update events set ${sql.join(assignments)} where id = ${id} returning id`
  const ctes = [sql`upd as (${target})`, ...linkCtes('upd', links)]
  await sql`with ${sql.join(ctes)} select id from upd`.execute(trx)
}

/** A new event of `insertEventRows`: its columns (`origin_uid` set, unique among the rows) and its links. */
export interface NewEventRow {
  columns: Record<string, unknown>
  /** Organizer ids in order, no repeats. */
  organizers: readonly number[]
  /** Term ids with the taxonomy each must be of (ids of no term of it are skipped, as a single write skips them). */
  terms: readonly { taxonomy: string; id: number }[]
}

/**
 * Inserts new events with their organizer and term links, one statement per set of columns (an
 * import's rows usually share one). The rows go as one JSON parameter that
 * `json_populate_recordset` reads with the table's own column types, not as a VALUES list of a
 * parameter per value (25,000 for 1,000 rows), which the driver, the query builder and the parser
 * each paid per value; columns a row does not name take their defaults. The links are CTEs of the
 * same statement, joined to the inserted events by origin id, as a single create writes them
 * (`insertEventStatement`). A row whose public slug another write took meanwhile is left out with
 * its links (the unique index); returns the ids of those inserted with their origin ids.
 */
export async function insertEventRows(trx: Transaction<DB>, rows: readonly NewEventRow[]): Promise<{ id: number; origin_uid: string }[]> {
  const groups = new Map<string, NewEventRow[]>()
  for (const row of rows) {
    const key = Object.keys(row.columns).sort().join(',')
    let group = groups.get(key)
    if (!group) groups.set(key, (group = []))
    group.push(row)
  }
  const inserted: { id: number; origin_uid: string }[] = []
  for (const [key, group] of groups) {
    const columns = sql.join(key.split(',').map((k) => sql.ref(k)))
    const organizers = group.flatMap((row) => row.organizers.map((id, position) => ({ o: row.columns.origin_uid, id, position })))
    const terms = group.flatMap((row) => row.terms.map((t) => ({ o: row.columns.origin_uid, id: t.id, taxonomy: t.taxonomy })))
    const { rows: ids } = await sql<{ id: number; origin_uid: string }>`with ins as (insert into events (${columns})
        select ${columns} from json_populate_recordset(null::events, ${JSON.stringify(group.map((row) => row.columns))}::json)
        on conflict ${PUBLIC_SLUG_INDEX} do nothing returning id, origin_uid),
      org_in as (insert into event_organizers (event_id, organizer_id, position)
        select ins.id, l.id, l.position from json_to_recordset(${JSON.stringify(organizers)}::json) l(o text, id int, position smallint)
          join ins on ins.origin_uid = l.o),
      terms_in as (insert into event_terms (event_id, term_id)
        select ins.id, t.id from json_to_recordset(${JSON.stringify(terms)}::json) l(o text, id int, taxonomy text)
          join ins on ins.origin_uid = l.o join terms t on t.id = l.id and t.taxonomy = l.taxonomy
         order by t.id, ins.id
        on conflict do nothing)
      select id, origin_uid from ins`.execute(trx)
    inserted.push(...ids)
  }
  return inserted
}
