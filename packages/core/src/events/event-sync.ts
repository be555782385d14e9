import type { CallContext } from '../api/context.js'
import { eventListPageQuery, eventListQuery, type EventListFilters } from './event-list-query.js'
import { serializeEvent, serializeException, type EventRow } from './event.serializer.js'
import type { SyncSource } from '../sync/sync-walk.js'

/**
 * The filters of an event sync walk: the request's, over every date. An event's representation
 * embeds its venue, organizers, terms and image, so a change to one of those reports the events
 * that embed it now (an event that stopped embedding one was itself changed).
 */
export function eventSyncFilters(filters: EventListFilters): EventListFilters {
  return { ...filters, bounds: {} }
}

/**
 * One event row as a sync item. A changed occurrence (an exception row) keeps its own row id, the
 * key its changes and tombstones are recorded under, and says which occurrence of which series it
 * replaces (`series_id`, `occurrence`, `original_start_date`), so a mirror that expands the series
 * applies it as an override instead of showing that occurrence twice.
 */
function syncItem(row: EventRow & { id: number | null }, ctx: CallContext): Record<string, unknown> {
  if (row.exception_of === null) return serializeEvent(row, ctx, { list: true })
  return { ...serializeException(row, ctx, { list: true }), id: row.id }
}

/** How the event list takes part in a sync walk (`sync-walk.ts`). */
export function eventSyncSource(ctx: CallContext, filters: EventListFilters): SyncSource {
  const f = eventSyncFilters(filters)
  return {
    ids: eventListQuery(ctx.db, f).select('e.id'),
    changed: `select id from ch where kind = 'event'
      union all select e.id from events e join ch on ch.kind = 'venue' and e.venue_id = ch.id
      union all select eo.event_id from event_organizers eo join ch on ch.kind = 'organizer' and eo.organizer_id = ch.id
      union all select et.event_id from event_terms et join ch on ch.kind = 'term' and et.term_id = ch.id
      union all select e.id from events e join ch on ch.kind = 'image' and e.image_id = ch.id`,
    async items(ids) {
      if (ids.length === 0) return new Map()
      // The list's own statement and serialiser, narrowed to the page's ids: the same visibility,
      // blanking and embedded records as a list page. Series come as series (with `recurrence`):
      // changes are recorded per event row, and occurrences have none (docs/recurrence.md).
      const rows = (await eventListPageQuery(ctx.db, { ...f, include: ids }, { limit: ids.length, offset: 0 }, undefined, true).execute()) as unknown as (EventRow & { id: number | null })[]
      return new Map(rows.filter((r) => r.id !== null).map((row) => [row.id, syncItem(row, ctx)]))
    },
  }
}
