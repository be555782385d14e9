import { unlockedSql, type EditScope } from '../auth/visibility.js'
import { expressionBuilder, sql, type Expression, type ExpressionBuilder, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely'
import type { ListScope } from '../auth/permissions.js'
import type { DB } from '../db/generated.js'
import { containsPattern } from '../db/sql-literals.js'
import type { LinkedKind } from './kinds.js'
import type { LinkedDB } from './linked.repository.js'
import { visiblePosts } from '../posts/visibility.js'

/** Everything a venue/organizer list filters on, already validated (CONTRACT 7). */
export interface LinkedListFilters {
  /** Words that must each occur (case-insensitive substring, any order) in some searched field. */
  search?: readonly string[]
  /** Only the records linked to this (existing) event. */
  eventId?: number
  /** The request can match nothing (e.g. the relations of an event the caller cannot unlock). */
  nothing?: boolean
  /** true: linked to a non-draft, non-pending event; false: linked to none. */
  hasEvents?: boolean
  /** UTC wall clock: only records linked to an event starting at or after it that the caller could see in the event list. */
  upcomingFrom?: string
  /** Explicit `status` filter; otherwise the scope decides. */
  statuses?: readonly string[]
  scope: ListScope
  /** Whose protected events count for `upcomingFrom` (a protected event's venue and organizers are blanked). */
  editScope: EditScope
}

type LinkedTable = LinkedDB['venues']
type LinkedQuery = SelectQueryBuilder<LinkedDB & { p: LinkedTable }, 'p', object>
type LinkedEb = ExpressionBuilder<LinkedDB & { p: LinkedTable }, 'p'>

/** The columns `search` looks in, concatenated exactly as the `*_search` trigram index is. */
export function searchExpression(kind: LinkedKind): Expression<string> {
  const columns = ['title', 'description', 'excerpt', ...kind.searchFields]
  // Separators must stay SQL literals (not parameters) for the planner to match the index expression.
  return sql<string>`(${sql.join(columns.map((c) => sql.ref(`p.${c}`)), sql` || ' ' || `)})`
}

/** Conditions on a linked event, built apart so the venue and organizer sub-selects share them. */
const ev = expressionBuilder<{ ev: DB['events']; event_occurrences: DB['event_occurrences'] }, 'ev'>()

/**
 * "There is an event linked to this record that satisfies `condition`": venues through
 * `events.venue_id`, organizers through `event_organizers`. Each is one correlated sub-select
 * over a join, which the planner turns into a semi-join (a nested EXISTS would not be).
 */
function linkedToEvent(kind: LinkedKind, eb: LinkedEb, condition: Expression<SqlBool>): Expression<SqlBool> {
  const link = kind.eventLink
  if (link.via === 'column') {
    return eb.exists(eb.selectFrom('events as ev').select('ev.id').whereRef(`ev.${link.column}`, '=', 'p.id').where(condition))
  }
  return eb.exists(
    eb
      .selectFrom(`${link.table} as eo`)
      .innerJoin('events as ev', 'ev.id', 'eo.event_id')
      .select('eo.event_id')
      .whereRef(`eo.${link.column}`, '=', 'p.id')
      .where(condition),
  )
}

/**
 * The linked event is upcoming from `from` (UTC): a single event (changed occurrences included)
 * by its start; a series by its stored occurrences (docs/recurrence.md), since its own start is
 * only its first one: one still to come that is neither deleted nor changed (a changed one is an
 * event of its own, with its own venue and organizers). Open-ended series are stored 36 months
 * ahead, so one that goes on always has one; one that starts past that stored horizon has none
 * stored (they are computed when listed) and counts by its start.
 */
function upcomingEvent(from: string): Expression<SqlBool> {
  return ev.or([
    ev.and([ev('ev.recurrence', 'is', null), ev('ev.start_utc', '>=', from)]),
    ev.and([
      ev('ev.recurrence', 'is not', null),
      ev.exists(
        ev
          .selectFrom('event_occurrences as o')
          .select('o.series_id')
          .whereRef('o.series_id', '=', 'ev.id')
          .where('o.start_utc', '>=', from)
          .where('o.overridden', '=', false),
      ),
    ]),
    ev.and([ev('ev.recurrence', 'is not', null), sql<boolean>`ev.start_utc > (select h.until from event_occurrence_horizon h)`]),
  ])
}

/** The filtered venues/organizers of a list request, before ordering and paging. Pure: builds, never runs. */
export function linkedListQuery(db: Kysely<LinkedDB>, kind: LinkedKind, f: LinkedListFilters): LinkedQuery {
  return (db.selectFrom(`${kind.table} as p`) as unknown as LinkedQuery)
    .where((eb) => visiblePosts(eb, 'p', f.statuses, f.scope))
    .$if(f.nothing === true, (q) => q.where(sql.lit(false)))
    // Like the event search: every word on its own, each matched against all searched fields at once.
    .$call((q) => (f.search ?? []).reduce((acc, word) => acc.where(searchExpression(kind), 'ilike', containsPattern(word)), q))
    .$if(f.eventId !== undefined, (q) => q.where((eb) => linkedToEvent(kind, eb, ev('ev.id', '=', f.eventId!))))
    .$if(f.hasEvents !== undefined, (q) =>
      q.where((eb) => {
        // SPEC/CONTRACT 7: trashed and private events count as "having events"; drafts do not.
        const linked = linkedToEvent(kind, eb, ev('ev.status', 'not in', ['draft', 'pending']))
        return f.hasEvents ? linked : eb.not(linked)
      }),
    )
    .$if(f.upcomingFrom !== undefined, (q) =>
      q.where((eb) =>
        linkedToEvent(
          kind,
          eb,
          // The events the caller could see in the event list (CONTRACT 7, 6.5): its visibility, no hidden
          // ones, and a password-protected one only for callers who may edit it.
          ev.and([
            visiblePosts(ev, 'ev', undefined, f.scope),
            ev('ev.hide_from_listings', '=', false),
            upcomingEvent(f.upcomingFrom!),
            unlockedSql(f.editScope, 'ev'),
          ]),
        ),
      ),
    )
}

/** Orders a list newest first, ties by id (CONTRACT 7, Ours); matches the `*_list` index. */
export function orderLinkedList<O>(
  qb: SelectQueryBuilder<LinkedDB & { p: LinkedTable }, 'p', O>,
): SelectQueryBuilder<LinkedDB & { p: LinkedTable }, 'p', O> {
  return qb.orderBy('p.date_utc', 'desc').orderBy('p.id', 'desc')
}
