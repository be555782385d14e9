import { CompiledQuery, sql, type Kysely } from 'kysely'
import type { CallContext } from '../api/context.js'
import { defineOperation, type ParsedArgs } from '../api/operation.js'
import { canEditType, listScope } from '../auth/permissions.js'
import { editScope, readableSql } from '../auth/visibility.js'
import { ORIGIN_POINT } from '../changes/change-log.js'
import type { VariantConfig } from '../config/variants.js'
import type { DB } from '../db/generated.js'
import { CalendarError, invalidParam, invalidParams } from '../errors.js'
import { listHeaders, listUrls, paging, postListBody, totalPages } from '../shared/pagination.js'
import { parseTimeInput } from '../shared/time-input.js'
import { addDaysToDate, addMonthsToWall, nowUtcWall, utcToWall, wallToUtc } from '../shared/wall-time.js'
import { resolveTermFilter } from '../terms/term-links.js'
import { eventListArgs } from './event.args.js'
import { eventListPageQuery, type DateBounds, type EventListFilters, type KnownCount } from './event-list-query.js'
import { serializeEvent, type EventRow } from './event.serializer.js'

type ListArgs = ParsedArgs<ReturnType<typeof eventListArgs>>

/** A row of the list statement: an event (or, on an empty page, only nulls) plus the total. */
type PageRow = EventRow & KnownCount

/**
 * Per calendar database: list totals keyed by the filters (which alone determine the count), each
 * with the point it holds at, and the compiled list statement per filters and page. The list
 * statement reuses a total only while the calendar's change log shows no write since that point, so
 * writes to the calendar from anywhere (this process, another one, raw SQL) always show in the next
 * total, and writes to other tables or databases cost nothing.
 */
interface ListCache {
  counts: Map<string, KnownCount>
  statements: Map<string, CompiledQuery>
}
const listCaches = new WeakMap<Kysely<DB>, ListCache>()
const MAX_COUNTS = 1000
const MAX_STATEMENTS = 200

function listCacheOf(db: Kysely<DB>): ListCache {
  let cache = listCaches.get(db)
  if (!cache) listCaches.set(db, (cache = { counts: new Map(), statements: new Map() }))
  return cache
}

/** Sets `key`, dropping the least recently set key beyond `max` (Map order is insertion order). */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key)
  map.set(key, value)
  if (map.size > max) map.delete(map.keys().next().value!)
}

const PROBE: KnownCount = { snapshot: '\u0000probe', total: -1 }

/**
 * The list statement for `filters` and `page` with `known` bound in. Built and compiled once per
 * filters and page: the known snapshot and total are its first two parameters (checked once with a
 * probe, never assumed), so a repeat only swaps those in.
 */
function listStatement(
  cache: ListCache,
  db: Kysely<DB>,
  filters: EventListFilters,
  filtersKey: string,
  page: { limit: number; offset: number },
  known: KnownCount | undefined,
): CompiledQuery {
  const key = `${page.limit}/${page.offset}/${filtersKey}`
  let compiled = cache.statements.get(key)
  if (!compiled) {
    compiled = eventListPageQuery(db, filters, page, PROBE).compile()
    // The statement's shape puts them first whatever the filters; a change that breaks this
    // must fail every list test, not quietly compile each request again.
    if (compiled.parameters[0] !== PROBE.snapshot || compiled.parameters[1] !== PROBE.total) {
      throw new Error('event list statement: the known snapshot and total are not its first two parameters')
    }
    remember(cache.statements, key, compiled, MAX_STATEMENTS)
  }
  return CompiledQuery.raw(compiled.sql, [known?.snapshot ?? ORIGIN_POINT, known?.total ?? 0, ...compiled.parameters.slice(2)])
}

const STRICT_WORDS = new Set(['1', 'true', 'yes', 'on'])

/** The calendar date a bound value names: its written date, or its UTC date for instants. */
function dayOf(raw: unknown, ctx: CallContext): string {
  const t = parseTimeInput(raw, { now: ctx.now, zone: ctx.options.siteTimezone })!
  return (t.kind === 'instant' ? t.utc : t.wall).slice(0, 10)
}

/** A strict bound: read as UTC unless it carries an offset, then seen in the site zone. */
function exactly(raw: unknown, ctx: CallContext): string {
  const t = parseTimeInput(raw, { now: ctx.now, zone: 'UTC' })!
  return utcToWall(t.kind === 'instant' ? t.utc : t.wall, ctx.options.siteTimezone)
}

let lastWindow: { key: string; window: { from: string; to: string } } | undefined

/** The default window of CONTRACT 6.3 (kept exactly, O-8); the same all through one second. */
function defaultWindow(ctx: CallContext): { from: string; to: string } {
  const zone = ctx.options.siteTimezone
  const key = `${zone} ${Math.floor(ctx.now.getTime() / 1000)}`
  if (lastWindow?.key === key) return lastWindow.window
  const yesterdayLate = `${addDaysToDate(nowUtcWall(ctx.now).slice(0, 10), -1)} 23:59:00`
  const from = `${utcToWall(yesterdayLate, zone).slice(0, 10)} 00:00:00`
  const to = `${addMonthsToWall(utcToWall(nowUtcWall(ctx.now), zone), 24).slice(0, 10)} 23:59:59`
  lastWindow = { key, window: { from, to } }
  return lastWindow.window
}

/** Date bounds of a list request (CONTRACT 6.2, 6.3, 6.6), as site-local wall clocks. */
export function listBounds(input: ListArgs, ctx: CallContext): DateBounds {
  const strict = typeof input.strict_dates === 'string' && STRICT_WORDS.has(input.strict_dates.trim().toLowerCase())
  const endOfDay = (raw: unknown) => (strict ? exactly(raw, ctx) : `${dayOf(raw, ctx)} 23:59:59`)
  const bounds: DateBounds = {}
  const rangeParams = ['starts_before', 'starts_after', 'ends_before', 'ends_after'] as const
  const anyRange = rangeParams.some((p) => input[p] !== undefined)
  if (input.include === undefined) {
    const defaults = anyRange ? undefined : defaultWindow(ctx)
    if (input.start_date !== undefined) bounds.startGte = strict ? exactly(input.start_date, ctx) : `${dayOf(input.start_date, ctx)} 00:00:00`
    else if (defaults) bounds.startGte = defaults.from
    if (input.end_date !== undefined) bounds.endLte = endOfDay(input.end_date)
    else if (defaults) bounds.endLte = defaults.to
  }
  if (input.starts_before !== undefined) bounds.startLt = endOfDay(input.starts_before)
  if (input.starts_after !== undefined) bounds.startGt = endOfDay(input.starts_after)
  if (input.ends_before !== undefined) bounds.endLt = endOfDay(input.ends_before)
  if (input.ends_after !== undefined) bounds.endGt = endOfDay(input.ends_after)
  if (ctx.options.dateFilterMode === 'utc') {
    for (const key of Object.keys(bounds) as (keyof DateBounds)[]) bounds[key] = wallToUtc(bounds[key]!, ctx.options.siteTimezone)
  }
  return bounds
}

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
  return defineOperation({
    args: eventListArgs(variant),
    async prepare(input, ctx): Promise<{ input: ListArgs; filters: EventListFilters }> {
      const db = ctx.db
      if (input.status !== undefined && !canEditType(ctx.principal)) {
        // Callers who cannot edit events may only ask for what they see anyway (CONTRACT 6.5).
        if (input.status.length !== 1 || input.status[0] !== 'publish') throw invalidParam('status')
      }
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
        bounds: listBounds(input, ctx),
        frame: ctx.options.dateFilterMode,
        search: input.search?.split(/\s+/).filter(Boolean),
        categoryIds: input.categories && (await resolveTermFilter(db, 'category', input.categories, ctx.language, 'categories')),
        tagIds: input.tags && (await resolveTermFilter(db, 'tag', input.tags, ctx.language, 'tags')),
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
      return { input, filters }
    },
    async run({ input, filters }, ctx) {
      const p = paging(input.page, input.per_page, variant.perPageDefault)
      // One statement: the page and its total; the total is recounted only when the data changed.
      const cache = listCacheOf(ctx.db)
      const key = JSON.stringify(filters)
      const statement = listStatement(cache, ctx.db, filters, key, { limit: p.perPage, offset: p.offset }, cache.counts.get(key))
      const found = (await ctx.db.executeQuery<PageRow>(statement)).rows
      const { total, snapshot } = found[0]!
      remember(cache.counts, key, { total, snapshot }, MAX_COUNTS)
      const pages = totalPages(total, p.perPage)
      if (p.page > 1 && p.page > pages) {
        throw new CalendarError('EVENT_ARCHIVE_PAGE_NOT_FOUND', 'The requested event archive page does not exist')
      }
      const rows = found[0]!.id === null ? [] : found
      const urls = listUrls(`${ctx.urls.rest}/events`, ctx.raw.query, p, pages)
      const body = postListBody('events', rows.map((row) => serializeEvent(row, ctx, { list: true })), urls, total, pages)
      return { body, headers: listHeaders(total, pages) }
    },
  })
}

