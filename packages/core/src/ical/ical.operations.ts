import type { CallContext } from '../api/context.js'
import { defineOperation, type ArgsRecord, type OperationResult, type ParsedArgs } from '../api/operation.js'
import type { VariantConfig } from '../config/variants.js'
import { eventListOperation } from '../events/event-list.js'
import { eventListArgs } from '../events/event.args.js'
import { eventReadOperation } from '../events/event.operations.js'
import { EVENT_READS } from '../events/event-resources.js'
import type { EventRow } from '../events/event.serializer.js'
import { args } from '../api/arg-kinds.js'
import { utcWallToEpochMs, wallFromDb } from '../time/wall-time.js'
import type { FeedAnswer, FeedBuilds } from './feed-builds.js'
import { FEED_CACHE_PRIVATE, FEED_CACHE_PUBLIC, feedDataState, feedInputs, feedState, feedTag, holdsTag, httpDate, notModifiedSince, textTag, windowMovedMs } from './feed-cache.js'
import { buildFeed, calendarText, icalCalendar, ICAL_TYPE } from './ical-feed.js'

/** How often a subscribed calendar app should poll the feed (REFRESH-INTERVAL, X-PUBLISHED-TTL). */
const FEED_REFRESH_SECONDS = 3600

/**
 * Caching headers of a feed or file. Anonymous answers are the same for everyone and may be kept
 * briefly by shared caches; anything seen through credentials or a feed key is the caller's own,
 * revalidated with its validators on every poll.
 */
function cacheHeaders(ctx: CallContext): Record<string, string> {
  return ctx.principal === null ? { 'Cache-Control': FEED_CACHE_PUBLIC } : { 'Cache-Control': FEED_CACHE_PRIVATE, Vary: 'Authorization' }
}

/** The answer that the client's copy is current: the validators and caching headers only. */
function notModified(ctx: CallContext, etag: string, lastModified?: string): OperationResult<undefined> {
  return { status: 304, headers: { ETag: etag, ...(lastModified ? { 'Last-Modified': lastModified } : {}), ...cacheHeaders(ctx) }, body: undefined }
}

/** A download name of ASCII letters, digits, `.`, `_` and `-` only (no quoting or encoding questions). */
function fileName(stem: string): string {
  const safe = stem.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '').slice(0, 100)
  return `${safe || 'calendar'}.ics`
}

function icalHeaders(ctx: CallContext, stem: string, etag: string, lastModified: string): Record<string, string> {
  return {
    'Content-Type': ICAL_TYPE,
    'Content-Disposition': `attachment; filename="${fileName(stem)}"`,
    ETag: etag,
    'Last-Modified': lastModified,
    ...cacheHeaders(ctx),
  }
}

/** A feed key is a credential in the URL: declared so that the documents show it, consumed by the dispatcher. */
const keyArg = args.nestr({
  description: 'A private feed key (`calfeed_…`): the feed shows what its user may see. Feed routes only; unknown or revoked keys are 401.',
})

/** Whether the window moves with the date: no explicit start and end, and no `include`. */
function rollingWindow(raw: Readonly<Record<string, unknown>>): boolean {
  const given = (name: string) => raw[name] !== undefined
  if (given('include')) return false
  return !(given('start_date') || given('starts_after') || given('ends_after')) || !(given('end_date') || given('starts_before') || given('ends_before'))
}

/**
 * The feed's parameters: the event list's filters, without paging (a feed is one document) and
 * without the list's sync walk (a calendar app polls with `If-None-Match` instead).
 */
export function feedArgs(variant: VariantConfig) {
  let known = feedArgsOf.get(variant)
  if (!known) feedArgsOf.set(variant, (known = buildFeedArgs(variant)))
  return known
}

// Built once per variant (issue 31: each calendar of a set building its own kept ~100 kB).
const feedArgsOf = new WeakMap<VariantConfig, ReturnType<typeof buildFeedArgs>>()
const listOf = new WeakMap<VariantConfig, ReturnType<typeof eventListOperation>>()

function buildFeedArgs(variant: VariantConfig) {
  const { page: _page, per_page: _perPage, sync: _sync, sync_token: _syncToken, sync_page: _syncPage, ...filters } = eventListArgs(variant)
  return { ...filters, key: keyArg }
}

/** A built or kept feed as the answer to this request: a 304 when the client's copy is current. */
function feedAnswer(answer: FeedAnswer, ctx: CallContext): OperationResult<undefined> {
  const { ETag: etag, 'Last-Modified': lastModified } = answer.headers
  if (holdsTag(ctx, etag!) || notModifiedSince(ctx, Date.parse(lastModified!))) return notModified(ctx, etag!, lastModified)
  return { headers: { ...answer.headers }, body: undefined, stream: answer.chunks }
}

/**
 * `GET /events/ical`: the events `GET /events` would list for the same filters and caller, as one
 * iCalendar feed. Bounded (docs/ical.md "Bounds and the shared answer"): an answer kept for the
 * same inputs serves every poll while nothing changed; otherwise the feed is built in one of few
 * build slots (`feeds` option), at most `maxEvents` events.
 */
export function eventFeedOperation(variant: VariantConfig, feeds: FeedBuilds) {
  let list = listOf.get(variant)
  if (!list) listOf.set(variant, (list = eventListOperation(variant)))
  const { maxEvents } = feeds.options
  return defineOperation({
    // Streamed text with validators of its own (the kept feeds of feed-builds.ts), never in the hot-read cache.
    policy: { cache: 'never', reads: EVENT_READS, writes: [] },
    args: feedArgs(variant),
    async prepare(input, ctx) {
      // The list's own rules: same 400s, same visibility, same default window.
      return list.prepare!(input as unknown as ParsedArgs<ReturnType<typeof eventListArgs>>, ctx)
    },
    async run({ filters }, ctx): Promise<OperationResult<undefined>> {
      const inputs = feedInputs(filters, ctx, `${FEED_REFRESH_SECONDS} ${maxEvents}`)
      // In a transaction (a script call in the host's, `withTransaction`) the feed is what that
      // transaction sees, which may never commit: it takes no kept answer and keeps none.
      const shared = !ctx.db.isTransaction
      const kept = shared ? await feeds.kept(inputs) : undefined
      if (kept) return feedAnswer(kept, ctx)
      // A poll whose copy may be current costs one small statement and no slot: the data's state
      // gives the tag without reading any event (so that 304 leaves out Last-Modified).
      if (ctx.conditional?.ifNoneMatch !== undefined) {
        const etag = feedTag(inputs, await feedDataState(ctx.db))
        if (holdsTag(ctx, etag)) return notModified(ctx, etag)
      }
      return feeds.build(shared ? inputs : `transaction ${inputs}`, async (keep) => {
        const state = await feedState(ctx.db, filters, ctx.clock.now())
        const moved = rollingWindow(ctx.raw.query) ? windowMovedMs(ctx.clock.now(), ctx.options.siteTimezone) : 0
        const lastModified = httpDate(Math.max(state.newestEventMs, state.lastChangeMs, moved))
        const etag = feedTag(inputs, state.state)
        if (notModifiedSince(ctx, Date.parse(lastModified))) return notModified(ctx, etag, lastModified)
        const calendar = { name: `Events · ${ctx.urls.globalIdBase}`, refreshSeconds: FEED_REFRESH_SECONDS }
        const chunks = await buildFeed(calendar, filters, ctx, maxEvents, feeds.workers)
        const answer: FeedAnswer = { headers: icalHeaders(ctx, 'events', etag, lastModified), chunks }
        if (shared) keep(answer)
        return feedAnswer(answer, ctx)
      }, ctx.readPosition)
    },
  })
}

/** `GET /events/{id}/ical` and `/events/by-slug/{slug}/ical`: one event as a calendar file, readable exactly when the event is. */
export function eventIcalOperation(locator: 'id' | 'slug', variant: VariantConfig) {
  const read = eventReadOperation(locator, variant)
  // The read's parameters and a feed key; typed as any declarations, so the read's `prepare` fits.
  const args: ArgsRecord = { ...read.args, key: keyArg }
  return defineOperation({
    // The read's policy (what it reads, the password guesses it counts), never in the hot-read cache.
    policy: { ...read.policy, cache: 'never' },
    args,
    prepare: read.prepare,
    async run(prepared, ctx): Promise<OperationResult<undefined>> {
      // The read's checks and errors (not found, trashed, not accessible, password) come first;
      // past them, a protected event's password was given or the caller may edit it.
      await read.run(prepared, ctx)
      const row = (prepared as { row: EventRow }).row
      const text = calendarText(icalCalendar(row.title.trim() || `Event ${row.id}`), [row], ctx, true)
      // The whole text is at hand: its tag hashes the bytes. Linked venues, organizers and terms
      // have no modification time of their own here, so the log's newest change stands in.
      const etag = textTag(text, ctx)
      const state = await feedState(ctx.db, undefined, ctx.clock.now())
      const lastModified = httpDate(Math.max(utcWallToEpochMs(wallFromDb(row.modified_utc)), state.lastChangeMs))
      if (holdsTag(ctx, etag) || notModifiedSince(ctx, Date.parse(lastModified))) return notModified(ctx, etag, lastModified)
      return { headers: icalHeaders(ctx, row.slug || `event-${row.id}`, etag, lastModified), body: undefined, stream: [text] }
    },
  })
}
