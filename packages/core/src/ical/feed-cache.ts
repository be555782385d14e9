import { createHash } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import type { CallContext } from '../api/context.js'
import { CHANGE_RETENTION_MS, currentPoint, isChangePoint, type ChangePoint } from '../changes/change-log.js'
import type { DB } from '../db/generated.js'
import { eventListQuery, type EventListFilters } from '../events/event-list-query.js'
import { entityTag, noneMatchHits, parseTagList, visibilityKey } from '../http/conditional.js'
import { wallFromDb } from '../shared/post-fields.js'
import { nowUtcWall, utcToWall, utcWallToEpochMs, wallToUtc } from '../shared/wall-time.js'

// Validators of the iCalendar answers (issue 20 item 4, docs/ical.md "Polling"). A feed is
// streamed, so its bytes are not known when the headers go out: its tag names what the bytes are a
// function of instead (the inputs below) and the change-log point it was read at
// (docs/change-tracking.md). Unchanged inputs and no change since the point: the same bytes.

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

/** A feed's strong tag: its inputs and the point its data was read at. */
export function feedTag(inputs: string, point: ChangePoint): string {
  return `"${inputs}.${point}"`
}

/** The point of the first tag in `If-None-Match` issued for these inputs, or `'*'`, or undefined. */
export function heldPoint(ifNoneMatch: string | undefined, inputs: string): ChangePoint | '*' | undefined {
  if (ifNoneMatch === undefined) return undefined
  const tags = parseTagList(ifNoneMatch)
  if (tags === undefined) return undefined
  if (tags === '*') return '*'
  for (const tag of tags) {
    const point = tag.opaque.startsWith(`${inputs}.`) ? tag.opaque.slice(inputs.length + 1) : ''
    if (isChangePoint(point)) return point
  }
  return undefined
}

/** What one statement tells a feed before it is read: the current point and the makings of `Last-Modified`. */
export interface FeedState {
  point: ChangePoint
  /** For `Last-Modified`: the newest change the log holds, or when it holds none the oldest it may have dropped. */
  lastChangeMs: number
  /** The newest modification time of the events the filters select (0: none). */
  newestEventMs: number
}

const toMs = (value: unknown): number => {
  if (value === null || value === undefined) return 0
  if (value instanceof Date) return value.getTime()
  const text = String(value)
  // `timestamp` columns come back as UTC wall text; `timestamptz` as a Date or an offset text.
  return /[zZ]|[+-]\d\d(:?\d\d)?$/.test(text) ? Date.parse(text) : utcWallToEpochMs(wallFromDb(text))
}

/**
 * Whether the calendar changed since `held` (a point from a client's tag; one from the future,
 * xmax past the current one, counts as changed), in one small statement that reads no event.
 */
export async function changedSinceHeld(db: Kysely<DB>, held: ChangePoint): Promise<boolean> {
  const { rows } = await sql<{ changed: boolean }>`
    select (cal_changed_since(${held}::pg_snapshot)
      or pg_snapshot_xmax(${held}::pg_snapshot) > pg_snapshot_xmax(pg_current_snapshot())) as changed`.execute(db)
  return rows[0]!.changed
}

/**
 * The current point (taken before anything of the feed is read, so a write that lands while it
 * streams makes the next poll a full answer, never a stale 304) and the times `Last-Modified` is
 * made of (`f`: the feed's filters; none for a single event).
 */
export async function feedState(db: Kysely<DB>, f: EventListFilters | undefined, now: Date): Promise<FeedState> {
  const newest = f ? eventListQuery(db, f).select(sql<string>`max(e.modified_utc)`.as('m')) : undefined
  const { rows } = await sql<{ point: ChangePoint; last_change: unknown; newest: unknown }>`
    select ${currentPoint()} as point,
      (select c.at from cal_changes c order by c.xid desc limit 1) as last_change,
      ${newest ? sql`(${newest})` : sql`null`} as newest`.execute(db)
  const row = rows[0]!
  // An empty log dropped everything older than the retention: the last change is no later than that.
  const lastChangeMs = row.last_change === null ? now.getTime() - CHANGE_RETENTION_MS : toMs(row.last_change)
  return { point: row.point, lastChangeMs, newestEventMs: toMs(row.newest) }
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
