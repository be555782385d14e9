import type { CallContext } from '../api/context.js'
import type { LinkedKind } from './kinds.js'
import { linkedListQuery, type LinkedListFilters } from './linked-list-query.js'
import { imageJson, linkedDb } from './linked.repository.js'
import { serializeLinked, type LinkedRow } from './linked.serializer.js'
import type { SyncSource } from '../sync/sync-walk.js'

/**
 * Venue/organizer parameters a sync walk refuses: they select by events, whose writes are recorded
 * against the event, so a venue entering or leaving such a set would go unreported.
 */
export function linkedSyncRefused(input: { event?: number; has_events?: boolean; only_with_upcoming?: boolean }): string[] {
  return [input.event !== undefined && 'event', input.has_events !== undefined && 'has_events', input.only_with_upcoming === true && 'only_with_upcoming'].filter(
    (name): name is string => typeof name === 'string',
  )
}

/** How a venue or organizer list takes part in a sync walk (`sync-walk.ts`). */
export function linkedSyncSource(ctx: CallContext, kind: LinkedKind, filters: LinkedListFilters): SyncSource {
  const table = kind.table
  return {
    ids: linkedListQuery(linkedDb(ctx.db), kind, filters).select('p.id'),
    // The kind names are the table names without their plural `s` (migration 0011).
    changed: `select id from ch where kind = '${kind.type}'
      union all select p.id from ${table} p join ch on ch.kind = 'image' and p.image_id = ch.id`,
    async items(ids) {
      if (ids.length === 0) return new Map()
      const rows = (await linkedListQuery(linkedDb(ctx.db), kind, filters)
        .where('p.id', 'in', [...ids])
        .selectAll('p')
        .select((eb) => imageJson(eb, 'p.image_id').as('image'))
        .execute()) as unknown as LinkedRow[]
      return new Map(rows.map((row) => [row.id, serializeLinked(kind, row, ctx, false)]))
    },
  }
}
