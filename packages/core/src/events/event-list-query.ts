import { sql, type Kysely, type SelectQueryBuilder } from 'kysely'
import type { ListScope } from '../auth/permissions.js'
import { postVisibility } from '../posts/visibility.js'
import { unlockedSql, type EditScope } from '../auth/visibility.js'
import type { DB } from '../db/generated.js'
import { PLAN_EACH_TIME } from '../db/prepared-statements.js'
import { containsPattern, idLiteral, pageBound } from '../db/sql-literals.js'
import type { ChangeKind } from '../changes/change-log.js'
import type { DateBounds } from './event-list-bounds.js'
import { eventRelations, RELATION_COLUMNS } from './event.repository.js'
import { knownTotalColumns, type KnownCount } from './known-total.js'

/** Everything the event list filters on, already validated and resolved to ids. */
export interface EventListFilters {
  bounds: DateBounds
  /** Which columns bounds and ordering use (O-11). */
  frame: 'event-local' | 'utc'
  search?: readonly string[]
  categoryIds?: readonly number[]
  tagIds?: readonly number[]
  venueIds?: readonly number[]
  organizerIds?: readonly number[]
  featured?: boolean
  /** Explicit `status` filter; otherwise the scope decides. */
  statuses?: readonly string[]
  scope: ListScope
  /** Whose password-protected events the caller sees unblanked (CONTRACT 9.3, O-22). */
  editScope: EditScope
  geoloc?: boolean
  include?: readonly number[]
  postParent?: number
  /** Active language (variant B); `undefined` = no language filter. */
  language?: string
}

type EventsQuery = SelectQueryBuilder<DB & { e: DB['events'] }, 'e', object>

/**
 * The partial list indexes hold `status = 'publish' and not hide_from_listings`; with literals in
 * the text, a prepared statement's generic plan can still prove that and use them.
 */
const PUBLISHED = sql<string>`'publish'`

function visible(qb: EventsQuery, f: EventListFilters): EventsQuery {
  // SPEC/O-34: hidden events never appear in this list, not even with `include`.
  let q = qb.where('e.hide_from_listings', '=', sql.lit(false))
  // The shared rule, kept in this list's own SQL text (parameters but for PUBLISHED): its plan
  // tests and prepared statements were measured against it.
  const rule = postVisibility(f.statuses, f.scope)
  const s = rule.status
  if (s.op === 'in') q = q.where('e.status', 'in', [...s.statuses])
  else if (s.op === '=') q = q.where('e.status', '=', PUBLISHED)
  else q = q.where('e.status', '<>', s.status)
  const authorId = rule.publishedOrOwnBy
  if (authorId !== undefined) q = q.where((eb) => eb.or([eb('e.status', '=', 'publish'), eb('e.author_id', '=', authorId)]))
  return q
}

/**
 * How far an event's start may lie after its end in wall-clock terms: writes refuse an end before
 * the start in UTC, so only a backward jump of the zone's offset between the two instants can
 * make the local end earlier, and no zone has ever jumped back by more than a day.
 */
const START_AFTER_END_AT_MOST = `interval '2 days'`

function inBounds(qb: EventsQuery, b: DateBounds, frame: EventListFilters['frame']): EventsQuery {
  const start = frame === 'utc' ? 'e.start_utc' : 'e.start_local'
  const end = frame === 'utc' ? 'e.end_utc' : 'e.end_local'
  // An upper bound on the end also bounds the start (redundant, so the result is the same): the
  // start-ordered index scan then stops at the window's end instead of running to the last event.
  // Written as a row comparison, which selects the same rows (`date_utc` is not null, and every
  // date is <= infinity), so that a generic plan does not read it and the lower start bound as one
  // narrow range: it would guess 0.5 % of the events for any window, well below the default
  // window's 18 %, and then sort the whole window for a deep page or a two-word search (210 ms
  // instead of 3 at 1M events, `pnpm bench` sweep).
  const endBound = b.endLte ?? b.endLt
  return qb
    .$if(endBound !== undefined, (q) =>
      q.where(sql<boolean>`(${sql.ref(start)}, e.date_utc) <= (${endBound}::timestamp + ${sql.raw(START_AFTER_END_AT_MOST)}, 'infinity'::timestamp)`),
    )
    .$if(b.startGte !== undefined, (q) => q.where(start, '>=', b.startGte!))
    .$if(b.endLte !== undefined, (q) => q.where(end, '<=', b.endLte!))
    .$if(b.startLt !== undefined, (q) => q.where(start, '<', b.startLt!))
    .$if(b.startGt !== undefined, (q) => q.where(start, '>', b.startGt!))
    .$if(b.endLt !== undefined, (q) => q.where(end, '<', b.endLt!))
    .$if(b.endGt !== undefined, (q) => q.where(end, '>', b.endGt!))
}

function matchesText(qb: EventsQuery, words: readonly string[], editScope: EditScope): EventsQuery {
  // One concatenated expression, the same as the trigram index's, so the index serves it. A
  // protected event the caller may not unlock matches on its title only: its excerpt and
  // description are blanked in the list, so matching them would let a search recover them.
  const unlocked = unlockedSql(editScope, 'e')
  return words.reduce((q, word) => {
    const pattern = containsPattern(word)
    const matched = q.where(sql<string>`(e.title || ' ' || e.excerpt || ' ' || e.description)`, 'ilike', pattern)
    return editScope.kind === 'all' ? matched : matched.where(sql<boolean>`(${unlocked} or e.title ilike ${pattern})`)
  }, qb)
}

/**
 * Filters on what a list blanks for protected events (terms, venue, organizers, `featured`, the
 * venue's coordinates) must not find an event the caller cannot unlock, or the filter would reveal
 * the blanked value.
 */
function filtersBlankedFields(f: EventListFilters): boolean {
  return [f.categoryIds, f.tagIds, f.venueIds, f.organizerIds, f.featured, f.geoloc].some((v) => v !== undefined)
}

function withTerms(qb: EventsQuery, ids: readonly number[]): EventsQuery {
  return qb.where(({ exists, selectFrom }) =>
    exists(selectFrom('event_terms as et').select('et.event_id').whereRef('et.event_id', '=', 'e.id').where('et.term_id', 'in', ids.map(idLiteral))),
  )
}

function withOrganizers(qb: EventsQuery, ids: readonly number[]): EventsQuery {
  return qb.where(({ exists, selectFrom }) =>
    exists(
      selectFrom('event_organizers as eo').select('eo.event_id').whereRef('eo.event_id', '=', 'e.id').where('eo.organizer_id', 'in', ids.map(idLiteral)),
    ),
  )
}

function withGeoloc(qb: EventsQuery, hasCoordinates: boolean): EventsQuery {
  const located = ({ exists, selectFrom }: any) =>
    exists(selectFrom('venues as gv').select('gv.id').whereRef('gv.id', '=', 'e.venue_id').where('gv.geo_lat', 'is not', null))
  return qb.where((eb) => (hasCoordinates ? located(eb) : eb.not(located(eb))))
}

/** The filtered events of a list request, before ordering and paging. Pure: builds, never runs. */
export function eventListQuery(db: Kysely<DB>, f: EventListFilters): EventsQuery {
  return (db.selectFrom('events as e') as unknown as EventsQuery)
    .$call((q) => visible(q, f))
    .$if(f.language !== undefined, (q) => q.where('e.language', '=', f.language!))
    .$if(f.include !== undefined, (q) => q.where('e.id', 'in', [...f.include!]))
    .$call((q) => inBounds(q, f.bounds, f.frame))
    .$if(f.search !== undefined && f.search.length > 0, (q) => matchesText(q, f.search!, f.editScope))
    .$if(f.editScope.kind !== 'all' && filtersBlankedFields(f), (q) => q.where(unlockedSql(f.editScope, 'e')))
    .$if(f.categoryIds !== undefined, (q) => withTerms(q, f.categoryIds!))
    .$if(f.tagIds !== undefined, (q) => withTerms(q, f.tagIds!))
    .$if(f.venueIds !== undefined, (q) => q.where('e.venue_id', 'in', [...f.venueIds!]))
    .$if(f.organizerIds !== undefined, (q) => withOrganizers(q, f.organizerIds!))
    .$if(f.featured !== undefined, (q) => q.where('e.featured', '=', sql.lit(f.featured!)))
    .$if(f.geoloc !== undefined, (q) => withGeoloc(q, f.geoloc!))
    .$if(f.postParent !== undefined, (q) => q.where('e.post_parent', '=', f.postParent!))
}

/** Orders a list: event start, then publication date, then id; with `include`, by date (CONTRACT 6.4). */
export function orderEventList<Q extends SelectQueryBuilder<any, any, any>>(qb: Q, f: EventListFilters): Q {
  if (f.include !== undefined) return qb.orderBy('e.date_utc').orderBy('e.id') as Q
  const start = f.frame === 'utc' ? 'e.start_utc' : 'e.start_local'
  return qb.orderBy(start).orderBy('e.date_utc').orderBy('e.id') as Q
}

/**
 * One statement for a list page: the page's events with their relations (`eventRelations`), each
 * row also carrying the filtered `total` and the point (`snapshot`) it holds at, by the known-total
 * protocol (`known-total.ts`): the known point and total are the statement's first two parameters,
 * and the total is counted only when the calendar changed since that point. At least one row
 * comes back: a page without events is a single row with a null `id` that still carries the total.
 * Pure: builds, never runs.
 */
export function eventListPageQuery(db: Kysely<DB>, f: EventListFilters, page: { limit: number; offset: number }, known?: KnownCount) {
  const base = eventListQuery(db, f)
  const count = base.select(sql<number>`count(*)::int`.as('n'))
  const paged = <Q extends Parameters<typeof orderEventList>[0]>(q: Q) => orderEventList(q, f).limit(pageBound(page.limit)).offset(pageBound(page.offset)) as Q
  // Past the first page, or through a term or organizer filter, the page's ids come first, then its
  // rows: the list index covers the ordering and the date bounds, so the rows skipped are read from
  // the index alone, and only the page's own rows from the table (page 100 of a category: 67 ms →
  // 34). A first page reads few rows anyway, and the join cost PGlite's unprepared list 12 %.
  const skipsRows = page.offset > 0 || linkFilters(f).some((ids) => ids !== undefined)
  // `c` comes first so that the known snapshot and total stay the first two parameters
  // (`knownTotalStatement` swaps them in); `page` is a CTE so that its ids reach the relation function
  // in one call.
  const statement = orderEventList(
    db
      .with('c', () => db.selectNoFrom(knownTotalColumns(known, count, countDependsOn(f))))
      .with('page', (w) =>
        skipsRows ? w.selectFrom(paged(base.select('e.id')).as('ids')).innerJoin('events as e', 'e.id', 'ids.id').selectAll('e') : paged(base.selectAll('e')),
      )
      .selectFrom('c')
      .leftJoin('page as e', (join) => join.onTrue())
      .leftJoin(eventRelations(sql<number[]>`array(select id from page)`), 'r.event_id', 'e.id')
      .selectAll('e')
      .select(['c.total', 'c.snapshot', ...RELATION_COLUMNS]),
    f,
  )
  return searchWithinRelation(f) ? statement.modifyEnd(sql.raw(PLAN_EACH_TIME)) : statement
}

/**
 * A search within a term, organizer or venue. Its best plan depends on how the text's matches fall
 * in the date window, which a generic plan never sees: with some ANALYZE samples PostgreSQL kept a
 * generic plan that sorted every match of the search (145 ms at 1M events instead of 10), so such
 * a list is planned for its own values every time (0.75 ms more of PostgreSQL's time).
 */
function searchWithinRelation(f: EventListFilters): boolean {
  const related = [...linkFilters(f), f.venueIds].some((ids) => ids !== undefined)
  return f.search !== undefined && f.search.length > 0 && related
}

/**
 * The kinds of change (`change-log.ts`) that can change how many events match `f`. Only the total
 * is reused, the page is always read, so an edit of other columns or tables (a venue's name, an
 * event's cost) shows in the next page without a recount.
 */
export function countDependsOn(f: EventListFilters): ChangeKind[] {
  const kinds: ChangeKind[] = ['events']
  if (f.search !== undefined && f.search.length > 0) kinds.push('events.search')
  if (f.categoryIds !== undefined || f.tagIds !== undefined) kinds.push('event_terms')
  if (f.organizerIds !== undefined) kinds.push('event_organizers')
  if (f.geoloc !== undefined) kinds.push('venues')
  return kinds
}

/** The filters that go through a link table (terms, organizers). */
function linkFilters(f: EventListFilters) {
  return [f.categoryIds, f.tagIds, f.organizerIds]
}
