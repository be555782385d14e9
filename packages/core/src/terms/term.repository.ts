import { sql, type Kysely, type SelectQueryBuilder, type SqlBool, type Transaction } from 'kysely'
import type { ListScope } from '../auth/permissions.js'
import { readableInScopeSql } from '../auth/visibility.js'
import type { DB } from '../db/generated.js'
import { containsPattern, pageBound } from '../db/sql-literals.js'
import type { TermOrderBy } from './term.args.js'
import type { Taxonomy } from './taxonomies.js'
import type { TermRow } from './term.serializer.js'

type Db = Kysely<DB> | Transaction<DB>
type TermsQuery = SelectQueryBuilder<DB & { t: DB['terms'] }, 't', object>

/**
 * A term's count (published events carrying it): the folded base plus the deltas writes appended
 * since (migration 0020, docs/term-counts.md), read in one snapshot.
 */
export const termCountSql = sql<number>`(t.count + coalesce((select sum(d.delta) from cal_term_count_deltas d where d.term_id = t.id), 0))::int`

const TERM_COLUMNS = ['t.id', 't.taxonomy', 't.name', 't.slug', 't.description', 't.parent_id', termCountSql.as('count'), 't.language'] as const

/** One term of a taxonomy, any language; `undefined` when the id is not such a term. */
export async function findTerm(db: Db, taxonomy: Taxonomy, id: number, forUpdate = false): Promise<TermRow | undefined> {
  return db
    .selectFrom('terms as t')
    .select(TERM_COLUMNS)
    .where('t.id', '=', id)
    .where('t.taxonomy', '=', taxonomy.name)
    .$if(forUpdate, (q) => q.forUpdate())
    .executeTakeFirst()
}

/** Whether every id names a term of the taxonomy (any language). */
export async function allTermsExist(db: Db, taxonomy: Taxonomy, ids: readonly number[]): Promise<boolean> {
  const wanted = [...new Set(ids)]
  if (wanted.length === 0) return true
  const { n } = await db
    .selectFrom('terms')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('taxonomy', '=', taxonomy.name)
    .where('id', 'in', wanted)
    .executeTakeFirstOrThrow()
  return n === wanted.length
}

/** Whether `id` is an event (any status). */
export async function eventExists(db: Db, id: number): Promise<boolean> {
  return (await db.selectFrom('events').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
}

/**
 * Whether `ancestor` is `id` itself or one of its ancestors, walking up from `id`. `union`
 * (not `union all`) stops the walk even if a cycle ever made it into the data.
 */
export async function isSelfOrAncestor(db: Db, id: number, ancestor: number): Promise<boolean> {
  const found = await sql<{ id: number }>`
    with recursive up(id, parent_id) as (
      select id, parent_id from terms where id = ${id}
      union
      select t.id, t.parent_id from terms t join up on t.id = up.parent_id
    ) select id from up where id = ${ancestor} limit 1`.execute(db)
  return found.rows.length > 0
}

/** The ids of one taxonomy's terms in one language, to narrow further: the lookups by name and slug. */
export function termIdsIn(db: Db, taxonomy: Taxonomy, language: string) {
  return db.selectFrom('terms').select('id').where('taxonomy', '=', taxonomy.name).where('language', '=', language)
}

/** A term of the same taxonomy and language (and level, when `parentId` is given) with this name, case-insensitively. */
export async function findTermByName(
  db: Db,
  t: { taxonomy: Taxonomy; language: string; name: string; parentId: number | null | undefined },
): Promise<number | undefined> {
  const row = await termIdsIn(db, t.taxonomy, t.language)
    .where(sql<string>`lower(name)`, '=', t.name.toLowerCase())
    .$if(t.parentId !== undefined, (q) => (t.parentId === null ? q.where('parent_id', 'is', null) : q.where('parent_id', '=', t.parentId!)))
    .orderBy('id')
    .limit(1)
    .executeTakeFirst()
  return row?.id
}

/** A term of the same taxonomy and language holding `slug`, other than `exceptId`. */
export async function findSlugHolder(db: Db, taxonomy: Taxonomy, language: string, slug: string, exceptId: number): Promise<number | undefined> {
  const row = await termIdsIn(db, taxonomy, language)
    .where('slug', '=', slug)
    .where('id', '<>', exceptId)
    .executeTakeFirst()
  return row?.id
}

/** Everything a term list filters and sorts on, already validated. */
export interface TermListFilters {
  taxonomy: Taxonomy
  /** Active language (variant B); `undefined` = every language. */
  language?: string
  search?: string
  include?: readonly number[]
  exclude?: readonly number[]
  hideEmpty: boolean
  /** `null` = top level only. */
  parent?: number | null
  eventId?: number
  /** The request can match nothing (the terms of an event the caller cannot unlock). */
  nothing?: boolean
  /** Who asks: implicitly created terms of events they cannot see stay hidden from them. */
  scope: ListScope
  slug?: string
  orderby: TermOrderBy
  order: 'asc' | 'desc'
}

/** The filtered terms of a list request, before ordering and paging. Pure: builds, never runs. */
export function termListQuery(db: Kysely<DB>, f: TermListFilters): TermsQuery {
  return (db.selectFrom('terms as t') as unknown as TermsQuery)
    .where('t.taxonomy', '=', f.taxonomy.name)
    .$if(f.language !== undefined, (q) => q.where('t.language', '=', f.language!))
    .$if(f.search !== undefined, (q) => {
      const pattern = containsPattern(f.search!)
      return q.where((eb) => eb.or([eb('t.name', 'ilike', pattern), eb('t.slug', 'ilike', pattern)]))
    })
    .$if(f.include !== undefined, (q) => q.where('t.id', 'in', [...f.include!]))
    .$if(f.exclude !== undefined, (q) => q.where('t.id', 'not in', [...f.exclude!]))
    .$if(f.hideEmpty, (q) => q.where(termCountSql, '>', 0))
    .$if(f.parent === null, (q) => q.where('t.parent_id', 'is', null))
    .$if(typeof f.parent === 'number', (q) => q.where('t.parent_id', '=', f.parent!))
    .$if(f.eventId !== undefined, (q) =>
      q.where(({ exists, selectFrom }) =>
        exists(selectFrom('event_terms as et').select('et.term_id').whereRef('et.term_id', '=', 't.id').where('et.event_id', '=', f.eventId!)),
      ),
    )
    .$if(f.slug !== undefined, (q) => q.where('t.slug', '=', f.slug!))
    .$if(f.nothing === true, (q) => q.where(sql.lit(false)))
    .$if(f.scope.kind !== 'all', (q) => q.where(termShownSql(f.scope)))
}

/**
 * A term with no published event that is used only by events the caller cannot see was most
 * likely created implicitly by one of them (CONTRACT 10.5): its name would reveal a draft's or a
 * private event's content, so it is listed only to callers who can see one of its events (and to
 * editors). Terms in use by nothing, or by a published event, are listed to everyone.
 */
function termShownSql(scope: ListScope) {
  return termShownSqlFor(scope)
}

/** Whether the term `id` is shown to callers of `scope` (the single read answers as for a missing id otherwise). */
export async function termShownTo(db: Db, id: number, scope: ListScope): Promise<boolean> {
  if (scope.kind === 'all') return true
  const row = await (db as Kysely<DB>)
    .selectFrom('terms as t')
    .select('t.id')
    .where('t.id', '=', id)
    .where(termShownSqlFor(scope))
    .executeTakeFirst()
  return row !== undefined
}

function termShownSqlFor(scope: ListScope) {
  return sql<SqlBool>`(${termCountSql} > 0
    or not exists (select 1 from event_terms et0 where et0.term_id = t.id)
    or exists (select 1 from event_terms et1 join events ev1 on ev1.id = et1.event_id
               where et1.term_id = t.id and ${readableInScopeSql(scope, 'ev1', { trashHidden: true })}))`
}

/** Orders a term list by `orderby`/`order`, ties by id ascending (CONTRACT 8). */
export function orderTermList(qb: TermsQuery, f: TermListFilters) {
  const dir = f.order
  const ordered = (() => {
    switch (f.orderby) {
      case 'id':
        return qb.orderBy('t.id', dir)
      case 'slug':
        return qb.orderBy('t.slug', dir)
      case 'count':
        return qb.orderBy(termCountSql, dir)
      case 'description':
        return qb.orderBy(sql`lower(t.description)`, dir).orderBy('t.description', dir)
      // Every term is in group 0, so only the tie-break remains.
      case 'term_group':
        return qb
      case 'include':
        if (f.include !== undefined) return qb.orderBy(sql`array_position(${sql.val([...f.include])}::int[], t.id)`, dir)
        return byName(qb, dir)
      // `slug` is a single exact value here, so there is no slug list to follow.
      case 'include_slugs':
      case 'name':
        return byName(qb, dir)
    }
  })()
  return ordered.orderBy('t.id', 'asc')
}

// Case-insensitive first, as the reference's database collation sorts, so `apple` precedes `Banana`.
function byName(qb: TermsQuery, dir: 'asc' | 'desc'): TermsQuery {
  return qb.orderBy(sql`lower(t.name)`, dir).orderBy('t.name', dir)
}

/** One page of the filtered, ordered terms. */
export function selectTermPage(db: Kysely<DB>, f: TermListFilters, limit: number, offset: number) {
  return orderTermList(termListQuery(db, f), f).select(TERM_COLUMNS).limit(pageBound(limit)).offset(pageBound(offset))
}
