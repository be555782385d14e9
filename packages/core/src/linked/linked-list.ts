import { sql } from 'kysely'
import { defineOperation, type ParsedArgs } from '../api/operation.js'
import { listScope } from '../auth/permissions.js'
import { checkStatusFilter } from '../posts/visibility.js'
import type { VariantConfig } from '../config/variants.js'
import { pageBound } from '../db/sql-literals.js'
import { CalendarError, invalidParam } from '../errors.js'
import { listHeaders, listUrls, paging, postListBody, totalPages } from '../shared/pagination.js'
import { utcWall } from '../time/wall-time.js'
import { editScope, eventContentVisible, eventVisible } from '../auth/visibility.js'
import { findEventAccess } from '../posts/visibility.js'
import type { LinkedKind } from './kinds.js'
import { linkedListArgs } from './linked.args.js'
import { linkedListQuery, orderLinkedList, type LinkedListFilters } from './linked-list-query.js'
import { imageJson, linkedDb } from './linked.repository.js'
import { linkedReads } from './linked.operations.js'
import { serializeLinked, type LinkedRow } from './linked.serializer.js'
import { linkedSyncRefused, linkedSyncSource } from './linked-sync.js'
import { syncPage, syncRequest, type SyncRequest } from '../sync/sync-walk.js'

type ListArgs = ParsedArgs<ReturnType<typeof linkedListArgs>>

/**
 * `GET /venues` / `GET /organizers` (CONTRACT 7). Not language-filtered in variant B (O-33).
 * A page costs one count and one page query whatever its size; images come back as JSON columns.
 */
export function linkedListOperation(kind: LinkedKind, variant: VariantConfig) {
  const declared = linkedListArgs(kind, variant)
  return defineOperation({
    // Its filters by events (`event`, `has_events`, `only_with_upcoming`) read events, their
    // occurrences and the kind's link to them.
    policy: { reads: [...linkedReads(kind), 'events', 'event_occurrences', ...(kind.eventLink.via === 'table' ? [kind.eventLink.table] : [])], writes: [] },
    args: declared,
    async prepare(input, ctx): Promise<{ input: ListArgs; filters: LinkedListFilters; sync?: SyncRequest }> {
      if (input.search !== undefined && typeof input.search !== 'string') {
        throw new CalendarError('BAD_SEARCH_STRING', 'The search string must be a string.')
      }
      checkStatusFilter(ctx.principal, input.status)
      let eventHidesRelations = false
      if (input.event !== undefined) {
        const event = await findEventAccess(ctx.db, input.event)
        // A hidden event answers as a missing one; a protected one shows no relations (CONTRACT 9.3).
        if (!event || !eventVisible(ctx.principal, event)) throw invalidParam('event')
        eventHidesRelations = !eventContentVisible(ctx.principal, event)
      }
      const filters: LinkedListFilters = {
        search: input.search?.split(/\s+/).filter(Boolean),
        eventId: input.event,
        nothing: eventHidesRelations,
        hasEvents: input.has_events,
        // Ours: every upcoming event counts, not only the first page of them (CONTRACT 7).
        upcomingFrom: input.only_with_upcoming ? utcWall(ctx.clock.now()) : undefined,
        statuses: input.status,
        scope: listScope(ctx.principal),
        editScope: editScope(ctx.principal),
      }
      const sync = await syncRequest(ctx, kind.plural, input, linkedSyncRefused(input), filters, declared)
      return { input, filters, sync }
    },
    async run({ input, filters, sync }, ctx) {
      const p = paging(input.page, input.per_page, variant.perPageDefault)
      if (sync) return syncPage(ctx, sync, p.perPage, linkedSyncSource(ctx, kind, filters))
      const base = linkedListQuery(linkedDb(ctx.db), kind, filters)
      const { total } = await base.select(sql<number>`count(*)::int`.as('total')).executeTakeFirstOrThrow()
      const pages = totalPages(total, p.perPage)
      if (p.page > 1 && p.page > pages) {
        throw new CalendarError(kind.errors.pageNotFound, `The requested ${kind.type} archive page does not exist`)
      }
      let rows: LinkedRow[] = []
      if (total > 0) {
        const page = orderLinkedList(base.selectAll('p').select((eb) => imageJson(eb, 'p.image_id').as('image')))
        rows = await page.limit(pageBound(p.perPage)).offset(pageBound(p.offset)).execute()
      }
      const urls = listUrls(`${ctx.urls.rest}/${kind.plural}`, ctx.raw.query, p, pages)
      const body = postListBody(kind.plural, rows.map((row) => serializeLinked(kind, row, ctx, false)), urls, total, pages)
      return { body, headers: listHeaders(total, pages) }
    },
  })
}
