import { sql, type Expression, type Kysely, type SelectQueryBuilder, type Transaction } from 'kysely'
import type { DB } from '../db/generated.js'
import type { LinkedRow } from '../linked/linked.serializer.js'
import type { ImageRow } from '../posts/post-fields.js'
import type { TermRow } from '../terms/term.serializer.js'
import type { EventRow } from './event.serializer.js'

type Db = Kysely<DB> | Transaction<DB>

/** A row of `cal_event_relations`: one event's relations as JSON. */
export interface RelationsRow {
  event_id: number
  image: ImageRow | null
  venue: LinkedRow | null
  organizers: LinkedRow[]
  terms: TermRow[]
}

/**
 * The relations of the events `ids` (an `integer[]` expression) as a table `r` keyed by
 * `event_id`: `image`, `venue` (not trashed, with its image), `organizers` (not trashed, in
 * position order, with images) and `terms` (by name). One call of the PL/pgSQL function of
 * migration 0004, whose plan is cached per connection; test/db/event-relations.test.ts holds it to
 * the shapes of `imageJson` and plain correlated subqueries.
 */
export function eventRelations(ids: Expression<number[]>) {
  return sql<RelationsRow>`cal_event_relations(${ids})`.as('r')
}

/** The columns of `eventRelations` an event row carries. */
export const RELATION_COLUMNS = ['r.image', 'r.venue', 'r.organizers', 'r.terms'] as const

/**
 * Events with everything the serializer needs, in one statement: the venue, organizers, terms
 * and images come back as JSON columns, so a page costs the same number of statements
 * whatever its size.
 */
export function selectEvents(db: Db) {
  return db
    .selectFrom('events as e')
    .leftJoinLateral(eventRelations(sql<number[]>`array[e.id]`), (join) => join.onTrue())
    .selectAll('e')
    .select(RELATION_COLUMNS)
}

/** One event with relations, any status; `undefined` when the id is not an event. */
export async function findEventRow(db: Db, id: number): Promise<EventRow | undefined> {
  return await selectEvents(db).where('e.id', '=', id).executeTakeFirst()
}

/** What kind of record an id names, for "id of another type" answers. */
export async function postTypeOf(db: Db, id: number): Promise<'event' | 'venue' | 'organizer' | 'image' | undefined> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.val('event').as('type'))
    .where('id', '=', id)
    .unionAll(db.selectFrom('venues').select((eb) => eb.val('venue').as('type')).where('id', '=', id))
    .unionAll(db.selectFrom('organizers').select((eb) => eb.val('organizer').as('type')).where('id', '=', id))
    .unionAll(db.selectFrom('images').select((eb) => eb.val('image').as('type')).where('id', '=', id))
    .executeTakeFirst()
  return row?.type as 'event' | 'venue' | 'organizer' | 'image' | undefined
}

/** A query builder over events, for the list. */
export type EventQuery = SelectQueryBuilder<DB & { e: DB['events'] }, 'e', object>

/**
 * The event imported from an external origin id (`origin_uid`) in a language, any status, trash
 * included; `undefined` when none. The unique index `events_origin_uid` makes it at most one.
 */
export async function findEventIdByOrigin(db: Db, originUid: string, language: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('events')
    .select('id')
    .where('language', '=', language)
    .where('origin_uid', '=', originUid)
    .executeTakeFirst()
  return row?.id
}
