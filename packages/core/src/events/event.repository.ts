import { sql, type ExpressionBuilder, type Kysely, type SelectQueryBuilder, type Transaction } from 'kysely'
import type { DB } from '../db/generated.js'
import type { LinkedRow } from '../linked/linked.serializer.js'
import type { ImageRow } from '../shared/post-fields.js'
import type { TermRow } from '../terms/term.serializer.js'
import type { EventRow } from './event.serializer.js'

type Db = Kysely<DB> | Transaction<DB>

/**
 * Events with everything the serializer needs, in one statement: the venue, organizers, terms
 * and images come back as JSON columns, so a page costs the same number of statements
 * whatever its size.
 */
export function selectEvents(db: Db) {
  return db.selectFrom('events as e').selectAll('e').select(eventRelations)
}

/**
 * The relations of the event row `e` as JSON columns: `image`, `venue` (not trashed, with its
 * image), `organizers` (not trashed, in position order, with images) and `terms` (by name). Built
 * by the PL/pgSQL functions of migration 0003, whose queries are planned once per connection
 * instead of on every statement; test/db/event-relations.test.ts holds them to the shapes of
 * `imageJson` and plain correlated subqueries.
 */
export function eventRelations(eb: ExpressionBuilder<DB & { e: DB['events'] }, 'e'>) {
  return [
    sql<ImageRow | null>`cal_image_json(${eb.ref('e.image_id')})`.as('image'),
    sql<LinkedRow | null>`cal_venue_json(${eb.ref('e.venue_id')})`.as('venue'),
    sql<LinkedRow[]>`cal_event_organizers_json(${eb.ref('e.id')})`.as('organizers'),
    sql<TermRow[]>`cal_event_terms_json(${eb.ref('e.id')})`.as('terms'),
  ]
}

/** One event with relations, any status; `undefined` when the id is not an event. */
export async function findEventRow(db: Db, id: number): Promise<EventRow | undefined> {
  return (await selectEvents(db).where('e.id', '=', id).executeTakeFirst()) as EventRow | undefined
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
