import type { CallContext } from '../api/context.js'
import { defineOperation, type OperationResult, type ParsedArgs } from '../api/operation.js'
import type { VariantConfig } from '../config/variants.js'
import { eventListOperation } from '../events/event-list.js'
import { eventListArgs } from '../events/event.args.js'
import { eventReadOperation } from '../events/event.operations.js'
import type { EventRow } from '../events/event.serializer.js'
import { calendarText, feedStream, icalCalendar, ICAL_TYPE } from './ical-feed.js'

/** How often a subscribed calendar app should poll the feed (REFRESH-INTERVAL, X-PUBLISHED-TTL). */
const FEED_REFRESH_SECONDS = 3600

/**
 * Caching headers of a feed or file. Anonymous answers are the same for everyone and may be kept
 * briefly by shared caches; anything seen through credentials is the caller's own. Conditional
 * requests (ETag, If-None-Match, Last-Modified: issue 18) attach here once the change record
 * offers validators.
 */
function cacheHeaders(ctx: CallContext): Record<string, string> {
  return ctx.principal === null
    ? { 'Cache-Control': 'public, max-age=300' }
    : { 'Cache-Control': 'private, no-cache', Vary: 'Authorization' }
}

/** A download name of ASCII letters, digits, `.`, `_` and `-` only (no quoting or encoding questions). */
function fileName(stem: string): string {
  const safe = stem.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '').slice(0, 100)
  return `${safe || 'calendar'}.ics`
}

function icalHeaders(ctx: CallContext, stem: string): Record<string, string> {
  return { 'Content-Type': ICAL_TYPE, 'Content-Disposition': `attachment; filename="${fileName(stem)}"`, ...cacheHeaders(ctx) }
}

/** The feed's parameters: the event list's filters, without paging (a feed is one document). */
export function feedArgs(variant: VariantConfig) {
  const { page: _page, per_page: _perPage, ...filters } = eventListArgs(variant)
  return filters
}

/** `GET /events/ical`: the events `GET /events` would list for the same filters and caller, as one iCalendar feed. */
export function eventFeedOperation(variant: VariantConfig) {
  const list = eventListOperation(variant)
  return defineOperation({
    args: feedArgs(variant),
    async prepare(input, ctx) {
      // The list's own rules: same 400s, same visibility, same default window.
      return list.prepare!(input as ParsedArgs<ReturnType<typeof eventListArgs>>, ctx)
    },
    async run({ filters }, ctx): Promise<OperationResult<undefined>> {
      const calendar = icalCalendar(`Events · ${ctx.urls.globalIdBase}`, FEED_REFRESH_SECONDS)
      return { headers: icalHeaders(ctx, 'events'), body: undefined, stream: await feedStream(calendar, filters, ctx) }
    },
  })
}

/** `GET /events/{id}/ical` and `/events/by-slug/{slug}/ical`: one event as a calendar file, readable exactly when the event is. */
export function eventIcalOperation(locator: 'id' | 'slug', variant: VariantConfig) {
  const read = eventReadOperation(locator, variant)
  return defineOperation({
    args: read.args,
    prepare: read.prepare!,
    async run(prepared, ctx): Promise<OperationResult<undefined>> {
      // The read's checks and errors (not found, trashed, not accessible, password) come first;
      // past them, a protected event's password was given or the caller may edit it.
      await read.run(prepared, ctx)
      const row = (prepared as { row: EventRow }).row
      const text = calendarText(icalCalendar(row.title.trim() || `Event ${row.id}`), [row], ctx, true)
      return { headers: icalHeaders(ctx, row.slug || `event-${row.id}`), body: undefined, stream: [text] }
    },
  })
}
