import type { ExpressionBuilder, Kysely, Transaction } from 'kysely'
import { jsonObjectFrom } from 'kysely/helpers/postgres'
import type { DB } from '../db/generated.js'
import type { LinkedKind } from './kinds.js'
import type { LinkedRow } from './linked.serializer.js'

type Db = Kysely<DB> | Transaction<DB>

/** The image of a post row, as a JSON object (one subquery, not a query per row). */
export function imageJson(eb: ExpressionBuilder<any, any>, imageIdRef: string) {
  return jsonObjectFrom(
    eb.selectFrom('images as i').select(['i.id', 'i.url', 'i.extension', 'i.width', 'i.height']).whereRef('i.id', '=', imageIdRef as any),
  )
}

/** Venue/organizer rows (with image) by id, in the order asked. */
export async function findLinkedRows(db: Db, kind: LinkedKind, ids: readonly number[]): Promise<LinkedRow[]> {
  if (ids.length === 0) return []
  const rows = await (db as Kysely<any>)
    .selectFrom(`${kind.table} as p`)
    .selectAll('p')
    .select((eb) => imageJson(eb, 'p.image_id').as('image'))
    .where('p.id', 'in', ids)
    .execute()
  const byId = new Map((rows as LinkedRow[]).map((r) => [r.id, r]))
  return ids.map((id) => byId.get(id)).filter((r): r is LinkedRow => r !== undefined)
}

/** One venue/organizer row by id, any status. */
export async function findLinkedRow(db: Db, kind: LinkedKind, id: number): Promise<LinkedRow | undefined> {
  const [row] = await findLinkedRows(db, kind, [id])
  return row
}

/** Ids among `ids` that are venues/organizers of this kind, any status but trash. */
export async function existingLinkedIds(db: Db, kind: LinkedKind, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set()
  const rows = await (db as Kysely<any>)
    .selectFrom(kind.table)
    .select('id')
    .where('id', 'in', ids)
    .where('status', '<>', 'trash')
    .execute()
  return new Set(rows.map((r: { id: number }) => r.id))
}
