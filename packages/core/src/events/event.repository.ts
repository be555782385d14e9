import type { ExpressionBuilder, Kysely, SelectQueryBuilder, Transaction } from 'kysely'
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres'
import type { DB } from '../db/generated.js'
import { imageJson } from '../linked/linked.repository.js'
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

/** The relations of the event row `e` as JSON columns: `image`, `venue`, `organizers`, `terms`. */
export function eventRelations(eb: ExpressionBuilder<DB & { e: DB['events'] }, 'e'>) {
  return [
    imageJson(eb, 'e.image_id').as('image'),
    jsonObjectFrom(
      eb
        .selectFrom('venues as v')
        .selectAll('v')
        .select((vb) => imageJson(vb, 'v.image_id').as('image'))
        .whereRef('v.id', '=', 'e.venue_id')
        .where('v.status', '<>', 'trash'),
    ).as('venue'),
    jsonArrayFrom(
      eb
        .selectFrom('event_organizers as eo')
        .innerJoin('organizers as o', 'o.id', 'eo.organizer_id')
        .selectAll('o')
        .select((ob) => imageJson(ob, 'o.image_id').as('image'))
        .whereRef('eo.event_id', '=', 'e.id')
        .where('o.status', '<>', 'trash')
        .orderBy('eo.position')
        .orderBy('o.id'),
    ).as('organizers'),
    jsonArrayFrom(
      eb
        .selectFrom('event_terms as et')
        .innerJoin('terms as t', 't.id', 'et.term_id')
        .select(['t.id', 't.taxonomy', 't.name', 't.slug', 't.description', 't.parent_id', 't.count'])
        .whereRef('et.event_id', '=', 'e.id')
        .orderBy('t.name')
        .orderBy('t.id'),
    ).as('terms'),
  ]
}

/** One event with relations, any status; `undefined` when the id is not an event. */
export async function findEventRow(db: Db, id: number): Promise<EventRow | undefined> {
  return (await selectEvents(db).where('e.id', '=', id).executeTakeFirst()) as EventRow | undefined
}

/** Events with relations for a page of ids, in the order of `ids`. */
export async function findEventRows(db: Db, ids: readonly number[]): Promise<EventRow[]> {
  if (ids.length === 0) return []
  const rows = (await selectEvents(db).where('e.id', 'in', ids).execute()) as EventRow[]
  const byId = new Map(rows.map((r) => [r.id, r]))
  return ids.map((id) => byId.get(id)).filter((r): r is EventRow => r !== undefined)
}

/** Events by slug of the given language first, then any (CONTRACT 9.2, 15.4); oldest first. */
export async function findEventIdBySlug(db: Db, slug: string, language: string, fallbackLanguage: string): Promise<number | undefined> {
  const rows = await db
    .selectFrom('events')
    .select(['id', 'language'])
    .where('slug', '=', slug.toLowerCase())
    .orderBy('id')
    .execute()
  const pick = rows.find((r) => r.language === language) ?? rows.find((r) => r.language === fallbackLanguage) ?? rows[0]
  return pick?.id
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
