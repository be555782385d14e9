import { TZDate } from '@date-fns/tz'
import { compile } from 'html-to-text'
import { ICalEventStatus, type ICalCalendar, type ICalEventData, ICalEvent, ICalEventClass } from 'ical-generator'
import type { CallContext } from '../api/context.js'
import { canEditItem, canReadItem } from '../auth/permissions.js'
import type { EventRow } from '../events/event.serializer.js'
import type { LinkedRow } from '../linked/linked.serializer.js'
import type { TermRow } from '../terms/term.serializer.js'
import { taxonomyNamed } from '../terms/taxonomies.js'
import { postUrl } from '../posts/post-fields.js'
import { renderHtml } from '../shared/text.js'
import { addDaysToDate, utcWallToEpochMs, wallFromDb, intlZone } from '../time/wall-time.js'
import { feedRecurrence } from './dst-gaps.js'
import { foldLines } from '../time/fold-lines.js'

const toText = compile({
  wordwrap: false,
  selectors: [
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    { selector: 'img', format: 'skip' },
  ],
})

/** An event description as plain text: HTML converted, plain text kept as written. */
export function plainText(stored: string): string {
  // Most descriptions are plain text; the converter is the slow part of a large feed.
  if (!/[<&]/.test(stored)) return stored.replace(/\r\n?/g, '\n').trim()
  return toText(renderHtml(stored)).trim()
}

/**
 * What a VEVENT needs of the call: who reads (permissions), the URLs and the time. Plain data, so
 * that a feed's text can be built in a worker thread (`feed-workers.ts`).
 */
export interface IcalContext extends Pick<CallContext, 'principal' | 'urls'> {
  /** The call's moment (`ctx.clock.now()`): which DST-gap instances a series' lines name. */
  readonly now: Date
}

/** The `IcalContext` of a call; its clock is read only when a series needs it (or the context is copied to a worker). */
export function icalContext(ctx: CallContext): IcalContext {
  return {
    principal: ctx.principal,
    urls: ctx.urls,
    get now() {
      return ctx.clock.now()
    },
  }
}

/** The fields of a venue or organizer a VEVENT reads (LOCATION, GEO, ORGANIZER) and who may read it. */
export type IcalLinked = Pick<LinkedRow, 'title' | 'status' | 'author_id'> & { readonly [field: string]: unknown }

/**
 * What a VEVENT reads of an event row: a feed's statement selects only these (`ical-feed.ts`),
 * any event row has them.
 */
export interface IcalRow
  extends Pick<
    EventRow,
    | 'id' | 'title' | 'slug' | 'status' | 'author_id' | 'password' | 'description' | 'timezone' | 'all_day'
    | 'start_local' | 'end_local' | 'start_utc' | 'end_utc' | 'modified_utc' | 'revision' | 'recurrence'
    | 'exception_of' | 'exception_key'
  > {
  venue: IcalLinked | null
  organizers: readonly IcalLinked[] | null
  terms: readonly IcalTerm[] | null
}

/** The fields of a term a VEVENT reads (CATEGORIES). */
export type IcalTerm = Pick<TermRow, 'taxonomy' | 'name'>

/** `UID` of an event: the same in every feed and over time, unique to this site (its `global_id` host and path). */
export function eventUid(ctx: Pick<CallContext, 'urls'>, id: number): string {
  return `event-${id}@${ctx.urls.globalIdBase}`
}

/** `LOCATION`: the venue's name and address on one line, as the ICS importer reads it back ("name, street, city"). */
function location(venue: IcalLinked): string {
  const parts = [venue.title, venue.address, venue.city, venue.stateprovince || venue.state || venue.province, venue.zip, venue.country]
  return parts.map((p) => (typeof p === 'string' ? p.trim() : '')).filter(Boolean).join(', ')
}

function geo(venue: IcalLinked): { lat: number; lon: number } | undefined {
  const lat = Number(venue.geo_lat)
  const lon = Number(venue.geo_lng)
  return venue.geo_lat !== null && venue.geo_lat !== undefined && Number.isFinite(lat) && Number.isFinite(lon) ? { lat, lon } : undefined
}

// Trashed events appear only to editors who ask for them; drafts and the like are not final.
const STATUS: Record<string, ICalEventStatus> = {
  publish: ICalEventStatus.CONFIRMED,
  private: ICalEventStatus.CONFIRMED,
  future: ICalEventStatus.TENTATIVE,
  draft: ICalEventStatus.TENTATIVE,
  pending: ICalEventStatus.TENTATIVE,
  trash: ICalEventStatus.CANCELLED,
}

/** Midday UTC of a calendar date: a DATE value only reads its date, whatever the zone. */
function dateValue(date: string): Date {
  return new Date(utcWallToEpochMs(`${date} 12:00:00`))
}

/** The instant of a UTC wall time, shown in `zone` when the platform knows it (DTSTART;TZID=…), else in UTC (…Z). */
function instant(utc: string, zone: string | null): Date {
  const ms = utcWallToEpochMs(wallFromDb(utc))
  return zone ? new TZDate(ms, zone) : new Date(ms)
}

/**
 * What a VEVENT says of an event row. A password-protected event says only when and what, as in
 * lists, unless `unlocked` (the request gave its password) or the caller may edit it.
 */
export function icalEventData(row: IcalRow, ctx: IcalContext, unlocked = false): ICalEventData {
  const zone = intlZone(row.timezone) ? row.timezone : null
  const locked = row.password !== null && row.password !== '' && !unlocked && !canEditItem(ctx.principal, row)
  // All-day events are DATE values with an exclusive end (the day after the last day); timed ones
  // carry their zone (TZID) when the platform knows it, else UTC.
  const when: Pick<ICalEventData, 'allDay' | 'start' | 'end' | 'timezone'> = row.all_day
    ? {
        allDay: true,
        start: dateValue(wallFromDb(row.start_local).slice(0, 10)),
        end: dateValue(addDaysToDate(wallFromDb(row.end_local).slice(0, 10), 1)),
      }
    : { timezone: zone, start: instant(row.start_utc, zone), end: instant(row.end_utc, zone) }
  const data: ICalEventData = {
    // A changed occurrence is its series' VEVENT for one RECURRENCE-ID (RFC 5545 3.8.4.4): same UID.
    id: eventUid(ctx, row.exception_of ?? row.id),
    sequence: row.revision,
    // The last change rather than the time of the request: the same event is the same bytes (strong ETags).
    stamp: new Date(utcWallToEpochMs(wallFromDb(row.modified_utc))),
    ...when,
    summary: row.title.trim(),
    // A URI value: a slug in another script is percent-encoded.
    url: new URL(postUrl(ctx.urls, 'event', row)).href,
    lastModified: new Date(utcWallToEpochMs(wallFromDb(row.modified_utc))),
    status: STATUS[row.status] ?? null,
    class: row.status === 'private' ? ICalEventClass.PRIVATE : null,
  }
  if (locked) return data
  const description = plainText(row.description)
  if (description) data.description = description
  // A linked venue or organizer the caller may not read stays out, as in the JSON (issue 15 item 4).
  const venue = row.venue && canReadItem(ctx.principal, row.venue) ? row.venue : null
  if (venue) {
    const title = location(venue)
    const point = geo(venue)
    if (title || point) data.location = title ? { title, ...(point ? { geo: point } : {}) } : { geo: point! }
  }
  const organizer = (row.organizers ?? []).find((o) => canReadItem(ctx.principal, o) && typeof o.email === 'string' && o.email.includes('@'))
  if (organizer) data.organizer = { name: organizer.title.trim() || String(organizer.email), email: String(organizer.email).trim() }
  const categories = (row.terms ?? []).filter((t) => taxonomyNamed(t.taxonomy).categorizes).map((t) => ({ name: t.name }))
  if (categories.length > 0) data.categories = categories
  return data
}

/** One VEVENT, folded at 75 octets (never inside a UTF-8 character), CRLF-terminated. */
export function veventText(calendar: ICalCalendar, row: IcalRow, ctx: IcalContext, unlocked = false): string {
  const text = new ICalEvent(icalEventData(row, ctx, unlocked), calendar).toString()
  // A series' RRULE/RDATE/EXDATE lines go in as stored: they were validated and normalised as RFC
  // 5545 text on write, and ical-generator's own `repeating` cannot hold RDATEs or TZID values.
  const series = row.recurrence && row.recurrence.length > 0 ? seriesLines(row, ctx.now).map((line) => `${line}\r\n`).join('') : recurrenceId(row)
  return foldLines(series ? text.replace(/END:VEVENT\r\n$/, `${series}END:VEVENT\r\n`) : text)
}

/** A series' lines for the feed: as stored, with the instances lists skip in a DST gap excluded. */
function seriesLines(row: IcalRow, now: Date): string[] {
  const start = { wall: wallFromDb(row.start_local), zone: row.timezone, allDay: row.all_day }
  return feedRecurrence(row.recurrence!, start, now)
}

/** The RECURRENCE-ID line of a changed occurrence: its key, a UTC date-time or (all-day series) a date. */
function recurrenceId(row: IcalRow): string {
  if (!row.exception_key) return ''
  return row.exception_key.length === 8 ? `RECURRENCE-ID;VALUE=DATE:${row.exception_key}\r\n` : `RECURRENCE-ID:${row.exception_key}\r\n`
}
