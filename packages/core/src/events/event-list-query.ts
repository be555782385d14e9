import { expressionBuilder, sql, type AliasedSelectQueryBuilder, type Expression, type Kysely, type QueryCreator, type SelectQueryBuilder, type SqlBool } from 'kysely'
import type { ListScope } from '../auth/permissions.js'
import { postVisibility } from '../posts/visibility.js'
import { unlockedSql, type EditScope } from '../auth/visibility.js'
import type { DB, EventOccurrences, Events } from '../db/generated.js'
import { SERIES_COLUMNS } from '../recurrence/index.js'
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
 * Where a list's filters read a column: `events` rows (`e`), or stored occurrences (`o`, migration
 * 0012) with their series as `e`, or occurrences computed for the request past the stored horizon
 * (`o` too: the `far` CTE, recurrence/far-occurrences.ts). Occurrences carry their own times and copies of
 * the series' list columns (so the occurrence list index serves them); everything else is the series'.
 */
export type ListSource = 'events' | 'occurrences' | 'computed'

/** An occurrence as a list reads it: stored (`event_occurrences`) or computed (`farRows`, which has no `overridden`). */
type OccurrenceRow = Omit<EventOccurrences, 'overridden'>

/** The database with the computed occurrences' CTE (`far`), which a list with computed rows starts with. */
type ListDB = DB & { far: OccurrenceRow }

/** What a list's filters read: the listed item's columns (`e`, or `o` with its series as `e`) and the other tables. */
type FilterDB = ListDB & { e: Events; o: OccurrenceRow }

/** One condition of a list's `where`; each filter adds its own, in a fixed order (the SQL text is pinned by a test). */
type Condition = Expression<SqlBool>

/** Builds the conditions, for a query over any of the three sources (`column` picks the alias). */
const eb = expressionBuilder<FilterDB, 'e' | 'o'>()

/** The columns occurrences copy from their series (migration 0012; `farRows` copies the same). */
const OCCURRENCE_COLUMNS = [
  'start_local', 'end_local', 'start_utc', 'end_utc', 'status', 'language', 'featured', 'hide_from_listings', 'venue_id', 'date_utc', 'author_id',
] as const satisfies readonly (keyof OccurrenceRow & keyof Events)[]
const COPIED = new Set<string>(OCCURRENCE_COLUMNS)
const copied = (name: string): name is (typeof OCCURRENCE_COLUMNS)[number] => COPIED.has(name)

/** A column a list filter reads: the series' (or single event's) or the occurrence's own. */
type ListColumn = `e.${keyof Events}` | `o.${keyof OccurrenceRow}`

/** The column `name` of the listed item in `source`. */
function column(source: ListSource, name: keyof Events): ListColumn {
  if (source === 'events') return `e.${name}`
  if (name === 'id') return 'o.series_id'
  return copied(name) ? `o.${name}` : `e.${name}`
}

type Columns = (name: keyof Events) => ListColumn

/**
 * The partial list indexes hold `status = 'publish' and not hide_from_listings`; with literals in
 * the text, a prepared statement's generic plan can still prove that and use them.
 */
const PUBLISHED = sql<string>`'publish'`

function visible(f: EventListFilters, c: Columns): Condition[] {
  // The shared rule, kept in this list's own SQL text (parameters but for PUBLISHED): its plan
  // tests and prepared statements were measured against it.
  const rule = postVisibility(f.statuses, f.scope)
  const s = rule.status
  const conditions = [
    // SPEC/O-34: hidden events never appear in this list, not even with `include`.
    eb(c('hide_from_listings'), '=', sql.lit(false)),
    s.op === 'in' ? eb(c('status'), 'in', [...s.statuses]) : s.op === '=' ? eb(c('status'), '=', PUBLISHED) : eb(c('status'), '<>', s.status),
  ]
  const authorId = rule.publishedOrOwnBy
  if (authorId !== undefined) conditions.push(eb.or([eb(c('status'), '=', 'publish'), eb(c('author_id'), '=', authorId)]))
  return conditions
}

/**
 * How far an event's start may lie after its end in wall-clock terms: writes refuse an end before
 * the start in UTC, so only a backward jump of the zone's offset between the two instants can
 * make the local end earlier, and no zone has ever jumped back by more than a day.
 */
const START_AFTER_END_AT_MOST = `interval '2 days'`

function inBounds(b: DateBounds, frame: EventListFilters['frame'], c: Columns): Condition[] {
  const start = c(frame === 'utc' ? 'start_utc' : 'start_local')
  const end = c(frame === 'utc' ? 'end_utc' : 'end_local')
  // An upper bound on the end also bounds the start (redundant, so the result is the same): the
  // start-ordered index scan then stops at the window's end instead of running to the last event.
  // Written as a row comparison, which selects the same rows (`date_utc` is not null, and every
  // date is <= infinity), so that a generic plan does not read it and the lower start bound as one
  // narrow range: it would guess 0.5 % of the events for any window, well below the default
  // window's 18 %, and then sort the whole window for a deep page or a two-word search (210 ms
  // instead of 3 at 1M events, `pnpm bench` sweep).
  const endBound = b.endLte ?? b.endLt
  const conditions: Condition[] = []
  if (endBound !== undefined) {
    conditions.push(sql<boolean>`(${sql.ref(start)}, ${sql.ref(c('date_utc'))}) <= (${endBound}::timestamp + ${sql.raw(START_AFTER_END_AT_MOST)}, 'infinity'::timestamp)`)
  }
  if (b.startGte !== undefined) conditions.push(eb(start, '>=', b.startGte))
  if (b.endLte !== undefined) conditions.push(eb(end, '<=', b.endLte))
  if (b.startLt !== undefined) conditions.push(eb(start, '<', b.startLt))
  if (b.startGt !== undefined) conditions.push(eb(start, '>', b.startGt))
  if (b.endLt !== undefined) conditions.push(eb(end, '<', b.endLt))
  if (b.endGt !== undefined) conditions.push(eb(end, '>', b.endGt))
  return conditions
}

function matchesText(words: readonly string[], editScope: EditScope): Condition[] {
  // One concatenated expression, the same as the trigram index's, so the index serves it. A
  // protected event the caller may not unlock matches on its title only: its excerpt and
  // description are blanked in the list, so matching them would let a search recover them.
  // Occurrences match on their series' text (`e` is the series there).
  const unlocked = unlockedSql(editScope, 'e')
  return words.flatMap((word) => {
    const pattern = containsPattern(word)
    const matched = eb(sql<string>`(e.title || ' ' || e.excerpt || ' ' || e.description)`, 'ilike', pattern)
    return editScope.kind === 'all' ? [matched] : [matched, sql<boolean>`(${unlocked} or e.title ilike ${pattern})`]
  })
}

/**
 * Filters on what a list blanks for protected events (terms, venue, organizers, `featured`, the
 * venue's coordinates) must not find an event the caller cannot unlock, or the filter would reveal
 * the blanked value.
 */
function filtersBlankedFields(f: EventListFilters): boolean {
  return [f.categoryIds, f.tagIds, f.venueIds, f.organizerIds, f.featured, f.geoloc].some((v) => v !== undefined)
}

function withTerms(ids: readonly number[], id: ListColumn): Condition {
  return eb.exists(eb.selectFrom('event_terms as et').select('et.event_id').whereRef('et.event_id', '=', id).where('et.term_id', 'in', ids.map(idLiteral)))
}

function withOrganizers(ids: readonly number[], id: ListColumn): Condition {
  return eb.exists(
    eb.selectFrom('event_organizers as eo').select('eo.event_id').whereRef('eo.event_id', '=', id).where('eo.organizer_id', 'in', ids.map(idLiteral)),
  )
}

function withGeoloc(hasCoordinates: boolean, venueId: ListColumn): Condition {
  const located = eb.exists(eb.selectFrom('venues as gv').select('gv.id').whereRef('gv.id', '=', venueId).where('gv.geo_lat', 'is not', null))
  return hasCoordinates ? located : eb.not(located)
}

/** Every filter of `f` on items of `source`, in the order the list's SQL text has them. */
function conditions(f: EventListFilters, source: ListSource): Condition[] {
  const c: Columns = (name) => column(source, name)
  const all = visible(f, c)
  if (f.language !== undefined) all.push(eb(c('language'), '=', f.language))
  if (f.include !== undefined) all.push(eb(c('id'), 'in', [...f.include]))
  all.push(...inBounds(f.bounds, f.frame, c))
  if (f.search !== undefined && f.search.length > 0) all.push(...matchesText(f.search, f.editScope))
  if (f.editScope.kind !== 'all' && filtersBlankedFields(f)) all.push(unlockedSql(f.editScope, 'e'))
  if (f.categoryIds !== undefined) all.push(withTerms(f.categoryIds, c('id')))
  if (f.tagIds !== undefined) all.push(withTerms(f.tagIds, c('id')))
  if (f.venueIds !== undefined) all.push(eb(c('venue_id'), 'in', [...f.venueIds]))
  if (f.organizerIds !== undefined) all.push(withOrganizers(f.organizerIds, c('id')))
  if (f.featured !== undefined) all.push(eb(c('featured'), '=', sql.lit(f.featured)))
  if (f.geoloc !== undefined) all.push(withGeoloc(f.geoloc, c('venue_id')))
  if (f.postParent !== undefined) all.push(eb('e.post_parent', '=', f.postParent))
  return all
}

/** Applies every filter of `f` to a query over `source` (whichever tables it reads them from). */
function filtered<D, T extends keyof D, O>(qb: SelectQueryBuilder<D, T, O>, f: EventListFilters, source: ListSource): SelectQueryBuilder<D, T, O> {
  return conditions(f, source).reduce((q, condition) => q.where(condition), qb)
}

/**
 * The filtered events of a list request, before ordering and paging: event rows, series as
 * series (the iCalendar feeds). Pure: builds, never runs.
 */
export function eventListQuery(db: Kysely<DB>, f: EventListFilters): EventsQuery {
  return filtered(db.selectFrom('events as e'), f, 'events')
}

/**
 * The filtered single events of `GET /events` (series rows are not listed), or with
 * `seriesAsSeries` the series too. Pure: builds, never runs.
 */
function eventItems(db: Kysely<DB>, f: EventListFilters, seriesAsSeries: boolean): EventsQuery {
  return seriesAsSeries ? eventListQuery(db, f) : eventListQuery(db, f).where('e.recurrence', 'is', null)
}

/**
 * The filtered occurrences of series in `GET /events`: stored (`o`), or computed past the stored
 * horizon (the `far` CTE), each with its series as `e`. The series is joined only when a filter
 * reads it: with no column of `e` used, PostgreSQL removes the left join, so the occurrence list
 * index answers alone. Pure: builds, never runs.
 */
function occurrenceItems(db: Kysely<DB>, f: EventListFilters, source: Exclude<ListSource, 'events'>) {
  const listDb = db.withTables<{ far: OccurrenceRow }>()
  // Stored rows read as computed ones: their one column more (`overridden`) no list reads.
  const stored: SelectQueryBuilder<ListDB & { o: OccurrenceRow }, 'o', object> = listDb.selectFrom('event_occurrences as o')
  const occurrences = source === 'occurrences' ? stored : listDb.selectFrom('far as o')
  return filtered(occurrences.leftJoin('events as e', 'e.id', 'o.series_id'), f, source)
}

/**
 * The series that may have occurrences in a list window ending at `untilUtc` and would be listed
 * by `f` but for the dates: the list's own filters (visibility, language, terms, search…) on the
 * series row, whose list columns its occurrences copy. Pure: builds, never runs.
 */
export function openEndedSeriesQuery(db: Kysely<DB>, f: EventListFilters, untilUtc: string) {
  return eventListQuery(db, { ...f, bounds: {} })
    .where('e.recurrence', 'is not', null)
    .where('e.start_utc', '<=', untilUtc)
    .select(SERIES_COLUMNS.map((c) => `e.${c}` as const))
}

/**
 * The rows of the `far` CTE: occurrences computed for the request (recurrence/far-occurrences.ts, one jsonb
 * parameter) with their series' list columns, as `event_occurrences` has them, less any stored
 * under the same key (a changed occurrence's overridden row, or the horizon moved meanwhile).
 */
function farRows(computed: readonly unknown[]) {
  return sql<OccurrenceRow>`(select x.i as series_id, x.k as occurrence_key, x.sl as start_local, x.el as end_local, x.su as start_utc, x.eu as end_utc,
      s.status, s.language, s.featured, s.hide_from_listings, s.venue_id, s.date_utc, s.author_id
    from jsonb_to_recordset(${JSON.stringify(computed)}::jsonb) as x(i int, k text, sl timestamp(0), el timestamp(0), su timestamp(0), eu timestamp(0))
    join events s on s.id = x.i
    where not exists (select from event_occurrences st where st.series_id = x.i and st.occurrence_key = x.k))`
}

/** Orders a list (of events as `e`): event start, then publication date, then id; with `include`, by date (CONTRACT 6.4). */
export function orderEventList<D, T extends keyof D, O>(qb: SelectQueryBuilder<D, T, O>, f: EventListFilters): SelectQueryBuilder<D, T, O> {
  const start = f.frame === 'utc' ? 'e.start_utc' : 'e.start_local'
  const order = f.include !== undefined ? ['e.date_utc', 'e.id'] : [start, 'e.date_utc', 'e.id']
  return order.reduce((q, col) => q.orderBy(sql.ref(col)), qb)
}

/** The order of `source`'s items in a list: start, publication date, id, occurrence key; with `include`, by date (CONTRACT 6.4). */
function itemOrder(f: EventListFilters, source: ListSource): string[] {
  const c: Columns = (name) => column(source, name)
  const key = source === 'events' ? [] : ['o.occurrence_key']
  if (f.include !== undefined) return [c('date_utc'), c('id'), ...key]
  return [c(f.frame === 'utc' ? 'start_utc' : 'start_local'), c('date_utc'), c('id'), ...key]
}

/** An item's place in a list page: `id` (the series' for an occurrence), `occurrence_key` (null for a single event) and the order columns. */
interface PageKey {
  id: number
  occurrence_key: string | null
  list_start: string
  list_date: string
}

/** The first `head` items of `source` in list order, as page keys, under `alias`. */
function headKeys<A extends string>(db: Kysely<DB>, f: EventListFilters, source: ListSource, head: number, seriesAsSeries: boolean, alias: A): AliasedSelectQueryBuilder<PageKey, A> {
  const start = column(source, f.frame === 'utc' ? 'start_utc' : 'start_local')
  const keys = [
    sql.ref<number>(column(source, 'id')).as('id'),
    (source === 'events' ? sql<string | null>`null::text` : sql<string | null>`o.occurrence_key`).as('occurrence_key'),
    sql.ref<string>(start).as('list_start'),
    sql.ref<string>(column(source, 'date_utc')).as('list_date'),
  ] as const
  const first = <D, T extends keyof D>(items: SelectQueryBuilder<D, T, PageKey>) =>
    itemOrder(f, source)
      .reduce((q, col) => q.orderBy(sql.ref(col)), items)
      .limit(pageBound(head))
      .as(alias)
  return source === 'events' ? first(eventItems(db, f, seriesAsSeries).select(keys)) : first(occurrenceItems(db, f, source).select(keys))
}

/** How many items of `source` the list has. */
function itemCount(db: Kysely<DB>, f: EventListFilters, source: ListSource, seriesAsSeries: boolean): Expression<{ n: number }> {
  const n = sql<number>`count(*)::int`.as('n')
  return source === 'events' ? eventItems(db, f, seriesAsSeries).select(n) : occurrenceItems(db, f, source).select(n)
}

/**
 * One statement for a list page: the page's items with their relations (`eventRelations`), each
 * row also carrying the filtered `total` and the point (`snapshot`) it holds at, by the known-total
 * protocol (`known-total.ts`): the known point and total are the statement's first two parameters,
 * and the total is counted only when the calendar changed since that point. At least one row
 * comes back: a page without events is a single row with a null `id` that still carries the total.
 * Items are single events and the stored occurrences of series (docs/recurrence.md): an
 * occurrence's row is its series' row plus `occurrence_key` and its own `occurrence_*` times.
 * With `seriesAsSeries` (sync walks: an occurrence has no row whose changes are recorded) series
 * are items themselves, with their own row, and no occurrence is. `computed`: occurrences past the
 * stored horizon computed for this request (recurrence/far-occurrences.ts), a third half of the list; the
 * statement then starts with their CTE, so it is not one for `knownTotalStatement`.
 * Pure: builds, never runs.
 */
export function eventListPageQuery(
  db: Kysely<DB>,
  f: EventListFilters,
  page: { limit: number; offset: number },
  known?: KnownCount,
  seriesAsSeries = false,
  computed?: readonly unknown[],
) {
  const far = computed !== undefined && computed.length > 0 && !seriesAsSeries
  const sources: ListSource[] = seriesAsSeries ? ['events'] : far ? ['events', 'occurrences', 'computed'] : ['events', 'occurrences']
  const count = db.selectNoFrom(sql.join(sources.map((source) => sql`(${itemCount(db, f, source, seriesAsSeries)})`), sql` + `).as('n'))
  // Each half's first offset + limit items, in list order, then merged: the page's keys come
  // first, read from the list indexes alone (the rows skipped are never read from the tables), and
  // only the page's own rows are joined. Both halves page together, so `total` is exact and paging
  // never skips or repeats an item.
  const head = page.offset + page.limit
  const merged = sources
    .map((source, i) => db.selectFrom(headKeys(db, f, source, head, seriesAsSeries, `h${i}`)).selectAll())
    .reduce((all, half) => all.unionAll(half))
  const pageOrder = f.include !== undefined ? (['list_date', 'id'] as const) : (['list_start', 'list_date', 'id'] as const)
  // `c` comes first so that the known snapshot and total stay the first two parameters
  // (`knownTotalStatement` swaps them in); `page` is a CTE so that its ids reach the relation function
  // in one call.
  const listDb = db.withTables<{ far: OccurrenceRow }>()
  const start: QueryCreator<ListDB> = far ? listDb.with('far', (w) => w.selectFrom(farRows(computed).as('fr')).selectAll()) : listDb
  // An occurrence's times: from its stored row, or from the computed one.
  const times = (['start_local', 'end_local', 'start_utc', 'end_utc'] as const).map((t) =>
    far ? sql<string>`coalesce(${sql.ref(`eo.${t}`)}, ${sql.ref(`fo.${t}`)})`.as(`occurrence_${t}`) : sql.ref<string>(`eo.${t}`).as(`occurrence_${t}`),
  )
  const statement = pageOrder
    .reduce(
      (q, col) => q.orderBy(sql.ref(`k.${col}`)),
      start
        .with('c', () => db.selectNoFrom(knownTotalColumns(known, count, countDependsOn(f))))
        .with('page', (w) =>
          pageOrder
            .reduce((q, col) => q.orderBy(col), w.selectFrom(merged.as('u')).selectAll())
            .orderBy(sql`occurrence_key nulls first`)
            .limit(pageBound(page.limit))
            .offset(pageBound(page.offset)),
        )
        .selectFrom('c')
        .leftJoin('page as k', (join) => join.onTrue())
        .leftJoin('events as e', 'e.id', 'k.id')
        .leftJoin('event_occurrences as eo', (join) => join.onRef('eo.series_id', '=', 'k.id').onRef('eo.occurrence_key', '=', 'k.occurrence_key'))
        .$if(far, (q) => q.leftJoin('far as fo', (join) => join.onRef('fo.series_id', '=', 'k.id').onRef('fo.occurrence_key', '=', 'k.occurrence_key')))
        .leftJoin(eventRelations(sql<number[]>`array(select id from page)`), 'r.event_id', 'e.id')
        .selectAll('e')
        .select(['c.total', 'c.snapshot', ...RELATION_COLUMNS, 'k.occurrence_key'])
        .select(times),
    )
    .orderBy(sql`k.occurrence_key nulls first`)
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
  // Occurrences count too: a series write, or the horizon moving, changes them.
  const kinds: ChangeKind[] = ['events', 'event_occurrences']
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
