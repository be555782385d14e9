import { sql } from 'kysely'
import type { CallContext } from '../api/context.js'
import { defineOperation, type ParsedArgs } from '../api/operation.js'
import { listScope } from '../auth/permissions.js'
import { editScope, readableSql } from '../auth/visibility.js'
import type { VariantConfig } from '../config/variants.js'
import { CalendarError, invalidParam, invalidParams } from '../errors.js'
import { listHeaders, listUrls, paging, postListBody, totalPages } from '../shared/pagination.js'
import { resolveTermFilter } from '../terms/term-links.js'
import { CATEGORY, TAG } from '../terms/taxonomies.js'
import { eventListArgs } from './event.args.js'
import { EVENT_READS } from './event-resources.js'
import { listBounds } from './event-list-bounds.js'
import { eventListPageQuery, openEndedSeriesQuery, type EventListFilters } from './event-list-query.js'
import { knownTotalsOf, knownTotalStatement, rememberTotal, sendCounted, type KnownCount } from './known-total.js'
import { serializeEvent, serializeException, serializeOccurrence, type EventRow, type OccurrenceColumns } from './event.serializer.js'
import { earliestUtcOf, latestUtcOf, shiftWall } from '../time/wall-time.js'
import { farOccurrences, type SeriesRow } from '../recurrence/index.js'
import type { DateBounds } from './event-list-bounds.js'
import { checkStatusFilter } from '../posts/visibility.js'
import { eventSyncFilters, eventSyncSource } from './event-sync.js'
import { syncPage, syncRequest, type SyncRequest, syncRefusedParams } from '../sync/sync-walk.js'

type ListArgs = ParsedArgs<ReturnType<typeof eventListArgs>>

/** A row of the list statement: an event (or, on an empty page, only nulls) plus the total. */
type PageRow = EventRow & KnownCount & OccurrenceColumns

/**
 * Ids among `ids` that exist in `table`; throws 400 on `param` when one does not, or when the
 * caller may not read it: a hidden id answers as a missing one (no existence oracle).
 */
async function requireIds(
  ctx: CallContext,
  table: 'venues' | 'organizers' | 'events',
  ids: readonly number[],
  param: string,
  expandTranslations: boolean,
) {
  const db = ctx.db
  const found = await db
    .selectFrom(table)
    .select(['id', 'translation_group'])
    .where('id', 'in', [...ids])
    .where(readableSql(ctx.principal, table, { trashHidden: table === 'events' }))
    .execute()
  if (found.length !== new Set(ids).size) throw invalidParam(param)
  if (!expandTranslations) return [...ids]
  // Variant B: an id also matches items linked to any translation of it (CONTRACT 15.2).
  const groups = found.map((r) => r.translation_group ?? r.id)
  const siblings = await db
    .selectFrom(table)
    .select('id')
    .where(sql<number>`coalesce(translation_group, id)`, 'in', groups)
    .execute()
  return siblings.map((r) => r.id)
}

/** `GET /events`. */
export function eventListOperation(variant: VariantConfig) {
  const declared = eventListArgs(variant)
  // The date window's parameters, as declared (`ArgPolicy.sync`): a sync walk refuses them.
  const windowParams = syncRefusedParams(declared)
  return defineOperation({
    policy: { reads: EVENT_READS, writes: [] },
    args: declared,
    async prepare(input, ctx): Promise<{ input: ListArgs; filters: EventListFilters; sync?: SyncRequest }> {
      const db = ctx.db
      checkStatusFilter(ctx.principal, input.status)
      if (input.ticketed === true) {
        throw invalidParams(
          { ticketed: 'Ticketing is not active.' },
          { ticketed: { code: 'event-tickets-not-active', message: 'Ticketing is not active on this calendar.', data: { status: 400 } } },
        )
      }
      if ((input.geoloc_lat === undefined) !== (input.geoloc_lng === undefined)) {
        throw invalidParams({
          ...(input.geoloc_lat === undefined ? { geoloc_lat: 'geoloc_lat must come with geoloc_lng.' } : {}),
          ...(input.geoloc_lng === undefined ? { geoloc_lng: 'geoloc_lng must come with geoloc_lat.' } : {}),
        })
      }
      const language = variant.multilingual ? ctx.language : undefined
      const expand = variant.multilingual
      const filters: EventListFilters = {
        bounds: listBounds(input, { now: ctx.clock.now(), zone: ctx.options.siteTimezone, mode: ctx.options.dateFilterMode }),
        frame: ctx.options.dateFilterMode,
        search: input.search?.split(/\s+/).filter(Boolean),
        categoryIds: input.categories && (await resolveTermFilter(db, CATEGORY, input.categories, ctx.language)),
        tagIds: input.tags && (await resolveTermFilter(db, TAG, input.tags, ctx.language)),
        venueIds: input.venue && (await requireIds(ctx, 'venues', input.venue, 'venue', expand)),
        organizerIds: input.organizer && (await requireIds(ctx, 'organizers', input.organizer, 'organizer', expand)),
        featured: input.featured,
        statuses: input.status,
        scope: listScope(ctx.principal),
        editScope: editScope(ctx.principal),
        geoloc: input.geoloc,
        include: input.include,
        postParent: input.post_parent,
        language,
      }
      if (input.post_parent !== undefined) await requireIds(ctx, 'events', [input.post_parent], 'post_parent', false)
      const refused = windowParams.filter((name) => name in ctx.raw.query)
      const sync = await syncRequest(ctx, 'events', input, refused, eventSyncFilters(filters), declared)
      return { input, filters, sync }
    },
    async run({ input, filters, sync }, ctx) {
      const p = paging(input.page, input.per_page, variant.perPageDefault)
      if (sync) return syncPage(ctx, sync, p.perPage, eventSyncSource(ctx, filters))
      const window = utcWindow(filters.bounds, filters.frame)
      // Past the stored horizon, the open-ended series' occurrences are computed for this request.
      const dateParams = windowParams.filter((name) => name !== 'strict_dates' && name in ctx.raw.query)
      const seriesOf = async (untilUtc: string) => (await openEndedSeriesQuery(ctx.db, filters, untilUtc).execute()) as SeriesRow[]
      const computed = window && (await farOccurrences(ctx.db, seriesOf, window, dateParams, ctx.clock.now()))
      // One statement: the page and its total; the total is recounted only when the calendar
      // changed. It holds for a far window too: stored and computed occurrences together are the
      // rules' occurrences, wherever the horizon stands. A statement with computed rows is built
      // for the request (its rows are parameters), not kept.
      const totals = knownTotalsOf(ctx.db)
      const key = JSON.stringify(filters)
      const page = { limit: p.perPage, offset: p.offset }
      const statement = () =>
        computed && computed.length > 0
          ? eventListPageQuery(ctx.db, filters, page, totals.counts.get(key), false, computed).compile()
          : knownTotalStatement(totals, key, `${page.limit}/${page.offset}/${key}`, (known) => eventListPageQuery(ctx.db, filters, page, known))
      const found = await sendCounted(totals, key, async () => {
        const { rows } = await ctx.db.executeQuery<PageRow>(statement())
        rememberTotal(totals, key, rows[0]!)
        return rows
      })
      const { total } = found[0]!
      const pages = totalPages(total, p.perPage)
      if (p.page > 1 && p.page > pages) {
        throw new CalendarError('EVENT_ARCHIVE_PAGE_NOT_FOUND', 'The requested event archive page does not exist')
      }
      const rows = found[0]!.id === null ? [] : found
      const urls = listUrls(`${ctx.urls.rest}/events`, ctx.raw.query, p, pages)
      const body = postListBody('events', rows.map((row) => serializeListRow(row, ctx)), urls, total, pages)
      return { body, headers: listHeaders(total, pages) }
    },
  })
}


/**
 * The UTC instants a list window's starts can lie between, whatever the events' zones; `undefined`
 * when it has no upper bound (then open-ended series show up to the stored horizon only).
 */
function utcWindow(b: DateBounds, frame: EventListFilters['frame']): { from: string | undefined; to: string } | undefined {
  // An end bound also bounds the start, by at most two days (event-list-query.ts START_AFTER_END_AT_MOST).
  const uppers = [b.startLt, b.endLte && shiftWall(b.endLte, 2), b.endLt && shiftWall(b.endLt, 2)].filter((w): w is string => w !== undefined)
  if (uppers.length === 0) return undefined
  const upper = uppers.reduce((a, w) => (w < a ? w : a))
  const lower = b.startGte ?? b.startGt
  if (frame === 'utc') return { from: lower, to: upper }
  return { from: lower && earliestUtcOf(lower), to: latestUtcOf(upper) }
}

/** One list item: a single event, an occurrence of a series, or a changed occurrence (an exception). */
function serializeListRow(row: EventRow & OccurrenceColumns, ctx: Parameters<typeof serializeEvent>[1]): Record<string, unknown> {
  if (row.occurrence_key !== null) return serializeOccurrence(row, ctx, { list: true })
  if (row.exception_of !== null) return serializeException(row, ctx, { list: true })
  return serializeEvent(row, ctx, { list: true })
}
