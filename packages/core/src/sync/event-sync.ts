import type { CallContext } from '../api/context.js'
import { eventListPageQuery, eventListQuery, type EventListFilters } from '../events/event-list-query.js'
import { serializeEvent, type EventRow } from '../events/event.serializer.js'
import type { SyncSource } from './sync-walk.js'

/** Date parameters a sync walk refuses: the list's window moves with the clock, which no write records. */
export const EVENT_DATE_PARAMS = ['start_date', 'end_date', 'starts_before', 'starts_after', 'ends_before', 'ends_after', 'strict_dates']

/**
 * The filters of an event sync walk: the request's, over every date. An event's representation
 * embeds its venue, organizers, terms and image, so a change to one of those reports the events
 * that embed it now (an event that stopped embedding one was itself changed).
 */
export function eventSyncFilters(filters: EventListFilters): EventListFilters {
  return { ...filters, bounds: {} }
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
      return new Map(rows.filter((r) => r.id !== null).map((row) => [row.id!, serializeEvent(row, ctx, { list: true })]))
    },
  }
}
