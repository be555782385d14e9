import { type ExpressionBuilder, type Kysely, type Transaction } from 'kysely'
import { jsonObjectFrom } from 'kysely/helpers/postgres'
import type { DB } from '../db/generated.js'
import { trashPost } from '../posts/lifecycle.js'
import type { LinkedKind } from './kinds.js'
import type { LinkedRow } from './linked.serializer.js'

type Db = Kysely<DB> | Transaction<DB>

type SharedColumn =
  | 'id'
  | 'author_id'
  | 'status'
  | 'title'
  | 'description'
  | 'excerpt'
  | 'slug'
  | 'language'
  | 'translation_group'
  | 'date_utc'
  | 'date_floating'
  | 'modified_utc'
  | 'image_id'

/**
 * The schema as queries serving either linked table see it: both tables typed with the post
 * columns they share, so one query text serves venues and organizers and those columns stay
 * type-checked. Kind-specific columns are only ever read through `selectAll`.
 */
export type LinkedDB = Omit<DB, 'venues' | 'organizers'> & Record<'venues' | 'organizers', Pick<DB['venues'], SharedColumn>>

/** The database typed for queries over either linked table. */
export function linkedDb(db: Db): Kysely<LinkedDB> {
  return db as unknown as Kysely<LinkedDB>
}

/** What `imageJson` reads: the images, and the post row (aliased `p`) that names one. */
type ImageDB = Pick<DB, 'images'> & { p: Pick<DB['venues'], 'image_id'> }

/** The image of a post row, as a JSON object (one subquery, not a query per row). */
export function imageJson(eb: ExpressionBuilder<ImageDB, 'p'>, imageIdRef: 'p.image_id') {
  return jsonObjectFrom(eb.selectFrom('images as i').select(['i.id', 'i.url', 'i.extension', 'i.width', 'i.height']).whereRef('i.id', '=', imageIdRef))
}

/** Venue/organizer rows (with image) by id, in the order asked. */
export async function findLinkedRows(db: Db, kind: LinkedKind, ids: readonly number[]): Promise<LinkedRow[]> {
  if (ids.length === 0) return []
  const rows = await linkedDb(db)
    .selectFrom(`${kind.table} as p`)
    .selectAll('p')
    .select((eb) => imageJson(eb, 'p.image_id').as('image'))
    .where('p.id', 'in', [...ids])
    .execute()
  const byId = new Map((rows as unknown as LinkedRow[]).map((r) => [r.id, r]))
  return ids.map((id) => byId.get(id)).filter((r): r is LinkedRow => r !== undefined)
}

/** One venue/organizer row by id, any status. */
export async function findLinkedRow(db: Db, kind: LinkedKind, id: number): Promise<LinkedRow | undefined> {
  const [row] = await findLinkedRows(db, kind, [id])
  return row
}


/**
 * Moves a venue/organizer to the trash (slug + `__trashed`) and unlinks it from every event, in
 * the caller's transaction (CONTRACT 13). False when it was already trashed, e.g. by a concurrent delete.
 */
export async function trashLinked(trx: Transaction<DB>, kind: LinkedKind, id: number, nowWall: string): Promise<boolean> {
  const trashed = await trashPost(trx, kind.table, id, nowWall)
  if (!trashed) return false
  const link = kind.eventLink
  if (link.via === 'column') await trx.updateTable('events').set({ [link.column]: null }).where(link.column, '=', id).execute()
  else await trx.deleteFrom(link.table).where(link.column, '=', id).execute()
  return true
}
