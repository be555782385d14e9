import { createHash } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import type { CallContext } from '../api/context.js'
import { CHANGE_RETENTION_MS } from '../changes/change-log.js'
import type { DB } from '../db/generated.js'
import { eventListQuery, type EventListFilters } from '../events/event-list-query.js'
import { entityTag, noneMatchHits, visibilityKey } from '../http/conditional.js'
import { nowUtcWall, utcToWall, utcWallToEpochMs, wallToUtc, wallFromDb } from '../time/wall-time.js'

// Validators of the iCalendar answers (issue 20 item 4, docs/ical.md "Polling"). A feed's tag names
// what its bytes are a function of (the inputs below) and the state of the calendar's data it was
// read at (issue 28): the same inputs and data, the same bytes and the same tag, whenever and by
// whichever process it is built. The state is read from the change log (docs/change-tracking.md),
// never from a transaction id or the clock, and only its hash is shown.

/**
 * Raised whenever the feed's text changes for the same data (a new property, another format):
 * tags issued before then stop matching.
 */
const FEED_FORMAT = 'ical-feed-1'

/** `Cache-Control` of feeds: apps poll hourly; a shared cache may keep an anonymous feed 5 minutes. */
export const FEED_CACHE_PUBLIC = 'public, max-age=300'
/** `Cache-Control` of feeds seen through credentials or a feed key: the caller's own, revalidated. */
export const FEED_CACHE_PRIVATE = 'private, no-cache'

/**
 * What a feed's text depends on besides the data: the filters as resolved (the default window
 * included, so a new day is a new tag), who asks, the URLs its UIDs and links are built from, the
 * language, the platform's time zone rules (VTIMEZONEs come from them) and the format.
 */
export function feedInputs(f: EventListFilters, ctx: CallContext, extra: string): string {
  const hash = createHash('sha256')
  for (const part of [FEED_FORMAT, process.versions.tz ?? '', visibilityKey(ctx.principal), ctx.urls.rest, ctx.urls.site, ctx.urls.globalIdBase, ctx.language, extra, JSON.stringify(f)]) {
    hash.update(part).update('\0')
  }
  return hash.digest('base64url').slice(0, 32)
}

/** A feed's strong tag: a hash of its inputs and the state of the data (`FeedState.state`). */
export function feedTag(inputs: string, state: string): string {
  return `"${createHash('sha256').update(inputs).update('\0').update(state).digest('base64url').slice(0, 32)}"`
}

/** What one statement tells a feed before it is read: the state of the data and the makings of `Last-Modified`. */
export interface FeedState {
  /**
   * The calendar's data as the change log sees it: the log rows visible (count and newest) and the
   * pruning horizon. Rows are only ever added by writers and removed by a prune, which moves the
   * horizon, so two reads see the same data exactly when they see the same state.
   */
  state: string
  /** For `Last-Modified`: the newest change the log holds, or when it holds none the oldest it may have dropped. */
  lastChangeMs: number
  /** The newest modification time of the events the filters select (0: none). */
  newestEventMs: number
}

/** A column's time (a timestamp's text, or a Date where the driver makes one) in epoch ms; none is 0. */
const toMs = (value: string | Date | null | undefined): number => {
  if (value === null || value === undefined) return 0
  if (value instanceof Date) return value.getTime()
  const text = value
  // `timestamp` columns come back as UTC wall text; `timestamptz` as a Date or an offset text.
  return /[zZ]|[+-]\d\d(:?\d\d)?$/.test(text) ? Date.parse(text) : utcWallToEpochMs(wallFromDb(text))
}

/** The state of the data (`FeedState.state`) as an expression: count and newest of the log rows, then the horizon. */
const STATE = sql<string>`(select count(*) || ':' || coalesce(max(c.xid)::text, '') from cal_changes c)
  || '/' || coalesce((select h.xid::text || ':' || coalesce(h.snapshot::text, '') from cal_change_horizon h), '')`

/** The current state of the data, on its own (a poll whose inputs have no kept answer). */
export async function feedDataState(db: Kysely<DB>): Promise<string> {
  const { rows } = await sql<{ state: string }>`select ${STATE} as state`.execute(db)
  return rows[0]!.state
}

/**
 * The state of the data (taken before anything of the feed is read, so a write that lands while it
 * is read makes the next poll a full answer, never a stale 304) and the times `Last-Modified` is
 * made of (`f`: the feed's filters; none for a single event).
 */
export async function feedState(db: Kysely<DB>, f: EventListFilters | undefined, now: Date): Promise<FeedState> {
  const newest = f ? eventListQuery(db, f).select(sql<string>`max(e.modified_utc)`.as('m')) : undefined
  const { rows } = await sql<{ state: string; last_change: string | Date | null; newest: string | Date | null }>`
    select ${STATE} as state,
      (select c.at from cal_changes c order by c.xid desc limit 1) as last_change,
      ${newest ? sql`(${newest})` : sql`null`} as newest`.execute(db)
  const row = rows[0]!
  // An empty log dropped everything older than the retention: the last change is no later than that.
  const lastChangeMs = row.last_change === null ? now.getTime() - CHANGE_RETENTION_MS : toMs(row.last_change)
  return { state: row.state, lastChangeMs, newestEventMs: toMs(row.newest) }
}

/**
 * The last time the default window moved: its start follows the UTC date and its end the site's
 * date, so at the later of the two last midnights events may have left or entered it.
 */
export function windowMovedMs(now: Date, siteZone: string): number {
  const utcToday = `${nowUtcWall(now).slice(0, 10)} 00:00:00`
  const siteToday = `${utcToWall(nowUtcWall(now), siteZone).slice(0, 10)} 00:00:00`
  return Math.max(utcWallToEpochMs(utcToday), utcWallToEpochMs(wallToUtc(siteToday, siteZone)))
}

/** `Last-Modified` text of a time, to the second (HTTP dates have no finer unit). */
export function httpDate(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toUTCString()
}

/**
 * Whether `If-Modified-Since` says the client's copy is current: only without `If-None-Match`
 * (RFC 9110 13.1.3), and only for a well-formed date no earlier than `lastModifiedMs`.
 */
export function notModifiedSince(ctx: CallContext, lastModifiedMs: number): boolean {
  const since = ctx.conditional?.ifModifiedSince
  if (since === undefined || ctx.conditional?.ifNoneMatch !== undefined) return false
  const ms = Date.parse(since)
  return Number.isFinite(ms) && Math.floor(lastModifiedMs / 1000) * 1000 <= ms
}

/** The tag of a file whose whole text is known (a single event): its bytes and who they were made for. */
export function textTag(text: string, ctx: CallContext): string {
  return entityTag(text, {}, visibilityKey(ctx.principal), `${FEED_FORMAT} ${ctx.urls.rest}`)
}

/** Whether `If-None-Match` holds `tag`. */
export function holdsTag(ctx: CallContext, tag: string): boolean {
  return noneMatchHits(ctx.conditional?.ifNoneMatch, tag)
}
