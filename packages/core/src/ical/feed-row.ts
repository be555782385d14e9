import type { IcalLinked, IcalRow, IcalTerm } from './ical-event.js'

// A feed row as it travels from PostgreSQL through the event loop to a worker (issue 28): a JSON
// array of the `IcalRow` fields in the order below, its venue, organizers and terms arrays of
// theirs. As JSON objects the names were 40 % of a row's 1,110 bytes (20,000 events: 22 MB a
// feed), bytes the event loop decoded, copied to the worker and collected, and the worker parsed.
// The statement is built from these lists (`ical-feed.ts`), the worker names the fields again here.

/** The event's own fields of a feed row, in order (`events` columns). */
export const EVENT_FIELDS = [
  'id', 'title', 'slug', 'status', 'author_id', 'password', 'description', 'timezone', 'all_day',
  'start_local', 'end_local', 'start_utc', 'end_utc', 'modified_utc', 'revision', 'recurrence',
  'exception_of', 'exception_key',
] as const satisfies readonly (keyof IcalRow)[]

/** A venue's fields a VEVENT reads (LOCATION, GEO) and who may read it (`venues` columns). */
export const VENUE_FIELDS = [
  'title', 'address', 'city', 'stateprovince', 'state', 'province', 'zip', 'country', 'geo_lat', 'geo_lng', 'status', 'author_id',
] as const

/** An organizer's fields a VEVENT reads (ORGANIZER) and who may read it (`organizers` columns). */
export const ORGANIZER_FIELDS = ['title', 'email', 'status', 'author_id'] as const

/** A term's fields a VEVENT reads (CATEGORIES). */
export const TERM_FIELDS = ['taxonomy', 'name'] as const satisfies readonly (keyof IcalTerm)[]

/** An object of `fields` from the values of `tuple` in that order. */
function named<T>(fields: readonly string[], tuple: readonly unknown[]): T {
  const object: Record<string, unknown> = {}
  for (let i = 0; i < fields.length; i++) object[fields[i]!] = tuple[i]
  return object as T
}

/** The `IcalRow` of a feed row's JSON text. */
export function feedRow(json: string): IcalRow {
  const tuple = JSON.parse(json) as unknown[]
  const own = EVENT_FIELDS.length
  const venue = tuple[own] as unknown[] | null
  const organizers = tuple[own + 1] as unknown[][]
  const terms = tuple[own + 2] as unknown[][]
  // Added to the one object, not spread into another: a spread took 10-15 µs a row, 3x the parse.
  const row = named<IcalRow>(EVENT_FIELDS, tuple)
  row.venue = venue && named<IcalLinked>(VENUE_FIELDS, venue)
  row.organizers = organizers.map((o) => named<IcalLinked>(ORGANIZER_FIELDS, o))
  row.terms = terms.map((t) => named<IcalTerm>(TERM_FIELDS, t))
  return row
}
