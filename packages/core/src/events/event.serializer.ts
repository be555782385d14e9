import type { CallContext } from '../api/context.js'
import { canEditItem, canReadItem } from '../auth/permissions.js'
import { ORGANIZER, VENUE } from '../linked/kinds.js'
import { linkedJsonLd, serializeLinked, type LinkedRow } from '../linked/linked.serializer.js'
import { formatCost } from '../shared/cost.js'
import { LIMITS } from '../shared/limits.js'
import { authorString, globalId, postDates, postUrl, serializeImage, type ImageRow, type PostRow } from '../posts/post-fields.js'
import { renderHtml, stripTags } from '../shared/text.js'
import { dateDetails, timezoneAbbr, toIsoWithOffset, utcToWall, wallToUtc, wallFromDb } from '../time/wall-time.js'
import { serializeEmbeddedTerm, type TermRow } from '../terms/term.serializer.js'
import { CATEGORY, TAG, TAXONOMIES, type Taxonomy } from '../terms/taxonomies.js'

/** An event row with its relations, as `selectEvents` returns it. */
export interface EventRow extends PostRow {
  password: string | null
  post_parent: number | null
  timezone: string
  all_day: boolean
  start_local: string
  end_local: string
  start_utc: string
  end_utc: string
  cost_values: string[]
  cost_symbol: string
  cost_position: string
  website: string | null
  show_map: boolean
  show_map_link: boolean
  hide_from_listings: boolean
  sticky: boolean
  featured: boolean
  venue_id: number | null
  language: string
  /** External id the event was imported from (extension); `null` for native events. */
  origin_uid: string | null
  /** Writes since creation, counted by a trigger (the iCalendar SEQUENCE). */
  revision: number
  /** RFC 5545 recurrence lines of a series (extension); `null` for a single event. */
  recurrence: string[] | null
  /** The series a changed occurrence belongs to (migration 0015); `null` otherwise. */
  exception_of: number | null
  /** The key (RECURRENCE-ID) of the occurrence an exception changes; `null` otherwise. */
  exception_key: string | null
  /** The series this series was split from ("this and following", migration 0017); `null` otherwise. */
  split_from: number | null
  image: ImageRow | null
  venue: LinkedRow | null
  organizers: LinkedRow[] | null
  terms: TermRow[] | null
}

/** How an event is being shown. */
export interface EventView {
  /** Single read: adds `json_ld` (and to the embedded venue/organizers). */
  single?: boolean
  /** The request unlocked the event's password (or the caller may edit it). */
  unlocked?: boolean
  /** A list row: password-protected events are blanked unless unlocked (CONTRACT 9.3). */
  list?: boolean
}

function costParts(row: EventRow) {
  return {
    values: row.cost_values ?? [],
    symbol: row.cost_symbol,
    position: row.cost_position as 'prefix' | 'postfix' | '',
  }
}

/** Row → Event shape, fields in the reference's order (CONTRACT 4.1). */
export function serializeEvent(row: EventRow, ctx: CallContext, view: EventView = {}): Record<string, unknown> {
  const url = postUrl(ctx.urls, 'event', row)
  const gid = globalId(ctx.urls, row.id)
  const startLocal = wallFromDb(row.start_local)
  const endLocal = wallFromDb(row.end_local)
  const startUtc = wallFromDb(row.start_utc)
  const endUtc = wallFromDb(row.end_utc)
  const terms = row.terms ?? []
  // A list embeds no more than a write may attach (events stored before the caps keep a page small).
  const cap = <T>(items: T[], max: number): T[] => (view.list ? items.slice(0, max) : items)
  const embedded = (taxonomy: Taxonomy) =>
    cap(terms.filter((t) => t.taxonomy === taxonomy.name), LIMITS.termsPerEvent).map((t) => serializeEmbeddedTerm(t, ctx.urls))
  // A linked venue/organizer the caller may not read stays out of the event, its JSON-LD included
  // (issue 15 item 4: an event linking a draft must not publish it).
  const venue = row.venue && canReadItem(ctx.principal, row.venue) ? row.venue : null
  const organizerRows = (row.organizers ?? []).filter((o) => canReadItem(ctx.principal, o))
  const organizers = cap(organizerRows, LIMITS.organizersPerEvent).map((o) => serializeLinked(ORGANIZER, o, ctx, Boolean(view.single)))
  const cost = costParts(row)
  const event: Record<string, unknown> = {
    id: row.id,
    global_id: gid,
    // The global id, then the origin the event was imported from (extension: `origin_uid`), then
    // the series a split-off series continues ("this and following").
    global_id_lineage: [gid, ...(row.origin_uid ? [row.origin_uid] : []), ...(row.split_from ? [globalId(ctx.urls, row.split_from)] : [])],
    author: authorString(row.author_id),
    status: row.status,
    ...postDates(row, ctx.options.siteTimezone),
    url,
    rest_url: `${ctx.urls.rest}/events/${row.id}`,
    title: row.title.trim(),
    description: renderHtml(row.description),
    excerpt: renderHtml(row.excerpt),
    slug: row.slug,
    image: serializeImage(row.image),
    all_day: row.all_day,
    start_date: startLocal,
    start_date_details: dateDetails(startLocal),
    end_date: endLocal,
    end_date_details: dateDetails(endLocal),
    utc_start_date: startUtc,
    utc_start_date_details: dateDetails(startUtc),
    utc_end_date: endUtc,
    utc_end_date_details: dateDetails(endUtc),
    timezone: row.timezone,
    timezone_abbr: row.timezone ? timezoneAbbr(startUtc, row.timezone) : '',
    cost: formatCost(cost),
    cost_details: {
      currency_symbol: cost.symbol,
      currency_code: '',
      currency_position: cost.position,
      values: cost.values,
    },
    // A website never set shows the event's own page (O-36).
    website: row.website ?? url,
    show_map: row.show_map,
    show_map_link: row.show_map_link,
    hide_from_listings: row.hide_from_listings,
    sticky: row.sticky,
    featured: row.featured,
    categories: embedded(CATEGORY),
    tags: embedded(TAG),
    venue: venue ? serializeLinked(VENUE, venue, ctx, Boolean(view.single)) : [],
    organizer: organizers,
    custom_fields: [],
    // Extension: only series carry it, so a client that never makes one sees the contract's shape.
    ...(row.recurrence && row.recurrence.length > 0 ? { recurrence: row.recurrence } : {}),
  }
  const locked = row.password !== null && row.password !== '' && !view.unlocked && !canEditItem(ctx.principal, row)
  if (view.list && locked) blankProtected(event)
  // A protected event never carries json_ld, even when unlocked (CONTRACT 4.7).
  if (view.single && !row.password) event.json_ld = eventJsonLd({ ...row, venue, organizers: organizerRows }, event, ctx)
  return event
}

/** The columns a list row of an occurrence adds to its series' row (all null for a single event). */
export interface OccurrenceColumns {
  occurrence_key: string | null
  occurrence_start_local: string | null
  occurrence_end_local: string | null
  occurrence_start_utc: string | null
  occurrence_end_utc: string | null
}

/** The original start of an occurrence, from its key, as a wall clock in the series' zone. */
function originalStart(key: string, row: EventRow): string {
  const date = `${key.slice(0, 4)}-${key.slice(4, 6)}-${key.slice(6, 8)}`
  if (key.length === 8) return `${date} 00:00:00`
  return utcToWall(`${date} ${key.slice(9, 11)}:${key.slice(11, 13)}:${key.slice(13, 15)}`, row.timezone)
}

/**
 * An occurrence of a series as an event item (docs/recurrence.md): the series' fields with the
 * occurrence's own start and end, `id` the series id, plus `occurrence` (its key), `series_id` and
 * `original_start_date`; `rest_url` reads this occurrence. The series' `recurrence` stays with the
 * series.
 */
export function serializeOccurrence(row: EventRow & OccurrenceColumns, ctx: CallContext, view: EventView = {}): Record<string, unknown> {
  const key = row.occurrence_key!
  const timed: EventRow = {
    ...row,
    start_local: row.occurrence_start_local!,
    end_local: row.occurrence_end_local!,
    start_utc: row.occurrence_start_utc!,
    end_utc: row.occurrence_end_utc!,
    recurrence: null,
  }
  const { id, ...rest } = serializeEvent(timed, ctx, view)
  rest.rest_url = `${ctx.urls.rest}/events/${row.id}/occurrences/${key}`
  return { id, occurrence: key, series_id: row.id, original_start_date: originalStart(key, row), ...rest }
}

/**
 * A changed occurrence (an exception row, migration 0015) as an occurrence item: its own fields
 * and times, but `id` and `series_id` its series', `occurrence` its key, `rest_url` the occurrence.
 */
export function serializeException(row: EventRow, ctx: CallContext, view: EventView = {}): Record<string, unknown> {
  const key = row.exception_key!
  const seriesId = row.exception_of!
  const { id: _own, ...rest } = serializeEvent(row, ctx, view)
  rest.rest_url = `${ctx.urls.rest}/events/${seriesId}/occurrences/${key}`
  return { id: seriesId, occurrence: key, series_id: seriesId, original_start_date: originalStart(key, row), ...rest }
}

/** Fields a list hides for password-protected events (CONTRACT 9.3). */
function blankProtected(event: Record<string, unknown>): void {
  Object.assign(event, {
    description: '',
    excerpt: '',
    image: false,
    all_day: null,
    cost: '',
    cost_details: { currency_symbol: '', currency_position: '', currency_code: '', values: [] },
    website: '',
    show_map: null,
    show_map_link: null,
    hide_from_listings: null,
    sticky: null,
    featured: null,
    ...Object.fromEntries(TAXONOMIES.map((t) => [t.plural, []])),
    venue: [],
    organizer: [],
    custom_fields: [],
  })
}

function eventJsonLd(row: EventRow, event: Record<string, unknown>, ctx: CallContext): Record<string, unknown> {
  const url = event.url as string
  const out: Record<string, unknown> = {
    '@context': 'http://schema.org',
    '@type': 'Event',
    name: row.title.trim(),
    description: stripTags(renderHtml(row.excerpt || row.description)),
  }
  if (row.image) out.image = row.image.url
  out.url = url
  out.eventAttendanceMode = 'https://schema.org/OfflineEventAttendanceMode'
  out.eventStatus = 'https://schema.org/EventScheduled'
  out.startDate = toIsoWithOffset(wallFromDb(row.start_utc), row.timezone || 'UTC')
  out.endDate = toIsoWithOffset(wallFromDb(row.end_utc), row.timezone || 'UTC')
  if (row.venue) out.location = linkedJsonLd(VENUE, row.venue, postUrl(ctx.urls, 'venue', row.venue))
  const firstOrganizer = row.organizers?.[0]
  if (firstOrganizer) out.organizer = linkedJsonLd(ORGANIZER, firstOrganizer, postUrl(ctx.urls, 'organizer', firstOrganizer))
  const values = row.cost_values ?? []
  if (values.length > 0) {
    const zone = ctx.options.siteTimezone
    const publishedOn = utcToWall(wallFromDb(row.date_utc), zone).slice(0, 10)
    out.offers = {
      '@type': 'Offer',
      price: values[0],
      priceCurrency: 'USD',
      url,
      category: 'primary',
      availability: 'inStock',
      validFrom: toIsoWithOffset(wallToUtc(`${publishedOn} 00:00:00`, zone), zone),
    }
  }
  out.performer = 'Organization'
  return out
}
