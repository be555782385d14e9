import type { CallContext } from '../api/context.js'
import { findIdBySlug } from './slug-store.js'

/**
 * The post a by-id or by-slug request names, any status: its id (0 for an unknown slug) and its
 * row, undefined when there is none. What "not found" answers differs per kind (events: by-id
 * 404 codes; venues, organizers: a 400 parameter rule), so it stays with the caller.
 */
export async function locatePost<R>(
  ctx: CallContext,
  table: 'events' | 'venues' | 'organizers',
  input: { id?: number; slug?: string },
  find: (db: CallContext['db'], id: number) => Promise<R | undefined>,
): Promise<{ id: number; row: R | undefined }> {
  if (input.id !== undefined) return { id: input.id, row: await find(ctx.db, input.id) }
  const id = await findIdBySlug(ctx.db, table, input.slug!, ctx.language, ctx.options.languages[0] ?? '')
  return { id: id ?? 0, row: id === undefined ? undefined : await find(ctx.db, id) }
}
