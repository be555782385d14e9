import { args } from '../api/arg-kinds.js'
import type { ArgsRecord } from '../api/operation.js'
import type { CalendarErrorCode } from '../errors.js'

/**
 * Venues and organizers are the same kind of record ("linked posts") with different fields. The
 * descriptor carries everything that differs, so the code serving them never asks which it is.
 */
export interface LinkedKind<N extends string = 'venue' | 'organizer', D extends ArgsRecord = ArgsRecord> {
  readonly type: N
  readonly table: 'venues' | 'organizers'
  /** Name of the name field on the wire (`venue` / `organizer`). */
  readonly nameField: N
  /** Plural, as the list envelope and collection path name it. */
  readonly plural: 'venues' | 'organizers'
  /** Free-text detail fields, in wire order (str0 on input, `website` url0). */
  readonly textFields: readonly string[]
  /** The kind's own write fields (CONTRACT 11.1), besides the shared post fields. */
  readonly detailArgs: D
  /** Boolean flags, `true` when a create leaves them out (venue map flags). */
  readonly flags: readonly string[]
  /** Whether records carry a `geo_lat`/`geo_lng` pair (extension). */
  readonly coordinates: boolean
  /** Fields `search` looks in besides name, description and excerpt (CONTRACT 7). */
  readonly searchFields: readonly string[]
  /** How an event links records of the kind: a column of `events`, or a link table in order. */
  readonly eventLink:
    | { readonly via: 'column'; readonly column: 'venue_id' }
    | { readonly via: 'table'; readonly table: 'event_organizers'; readonly column: 'organizer_id' }
  /** Columns computed from others on every write that touches their sources (or creates). */
  derive?(input: Readonly<Record<string, unknown>>, merged: (field: string) => string, creating: boolean): Record<string, unknown>
  /** The schema.org type of `json_ld` (CONTRACT 4.7). */
  readonly jsonLdType: 'Place' | 'Person'
  readonly errors: {
    readonly notAccessible: CalendarErrorCode
    readonly inTrash: CalendarErrorCode
    readonly couldNotCreate: CalendarErrorCode
    readonly couldNotUpdate: CalendarErrorCode
    readonly pageNotFound: CalendarErrorCode
  }
}

/** CONTRACT 11.1: `state` for US-style addresses, else `province`. */
export function deriveStateProvince(state: string, province: string, country: string): string {
  if (state !== '' && ['', 'us', 'united states'].includes(country.trim().toLowerCase())) return state
  return province
}

const STATEPROVINCE_SOURCES = ['state', 'province', 'country', 'stateprovince'] as const

const venueDetailArgs = {
  address: args.str0(),
  city: args.str0(),
  country: args.str0(),
  province: args.str0(),
  state: args.str0(),
  zip: args.str0(),
  phone: args.str0(),
  website: args.url0(),
  stateprovince: args.str0(),
  show_map: args.truthy(),
  show_map_link: args.truthy(),
  // Documented extension: coordinates for the event list's geoloc filters.
  geo_lat: args.coordinate(90, { description: 'Latitude (-90 to 90); needs geo_lng.', with: 'geo_lng' }),
  geo_lng: args.coordinate(180, { description: 'Longitude (-180 to 180); needs geo_lat.', with: 'geo_lat' }),
}

const organizerDetailArgs = {
  phone: args.str0(),
  website: args.url0(),
  email: args.str0(),
}

/** The venue kind. */
/** A venue's own write fields (CONTRACT 11.1), named so the public input types can refer to them. */
export type VenueDetailArgs = typeof venueDetailArgs

export const VENUE: LinkedKind<'venue', VenueDetailArgs> = {
  type: 'venue',
  table: 'venues',
  nameField: 'venue',
  plural: 'venues',
  textFields: ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', 'stateprovince'],
  detailArgs: venueDetailArgs,
  flags: ['show_map', 'show_map_link'],
  coordinates: true,
  searchFields: ['address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  eventLink: { via: 'column', column: 'venue_id' },
  derive(input, merged, creating) {
    // An explicit non-empty `stateprovince` wins; otherwise it follows state, province and country.
    if (input.stateprovince) return {}
    if (!creating && !STATEPROVINCE_SOURCES.some((f) => input[f] !== undefined)) return {}
    return { stateprovince: deriveStateProvince(merged('state'), merged('province'), merged('country')) }
  },
  jsonLdType: 'Place',
  errors: {
    notAccessible: 'VENUE_NOT_ACCESSIBLE',
    inTrash: 'VENUE_IN_TRASH',
    couldNotCreate: 'COULD_NOT_CREATE_VENUE',
    couldNotUpdate: 'COULD_NOT_UPDATE_VENUE',
    pageNotFound: 'VENUE_ARCHIVE_PAGE_NOT_FOUND',
  },
}

/** The organizer kind. */
/** An organizer's own write fields (CONTRACT 11.1). */
export type OrganizerDetailArgs = typeof organizerDetailArgs

export const ORGANIZER: LinkedKind<'organizer', OrganizerDetailArgs> = {
  type: 'organizer',
  table: 'organizers',
  nameField: 'organizer',
  plural: 'organizers',
  textFields: ['phone', 'website', 'email'],
  detailArgs: organizerDetailArgs,
  flags: [],
  coordinates: false,
  searchFields: ['phone', 'email', 'website'],
  eventLink: { via: 'table', table: 'event_organizers', column: 'organizer_id' },
  jsonLdType: 'Person',
  errors: {
    notAccessible: 'ORGANIZER_NOT_ACCESSIBLE',
    inTrash: 'ORGANIZER_IN_TRASH',
    couldNotCreate: 'COULD_NOT_CREATE_ORGANIZER',
    couldNotUpdate: 'COULD_NOT_UPDATE_ORGANIZER',
    pageNotFound: 'ORGANIZER_ARCHIVE_PAGE_NOT_FOUND',
  },
}

/** Whether an event may link at most one record of the kind (CONTRACT 10.4: one venue). */
export function singlePerEvent(kind: LinkedKind): boolean {
  return kind.eventLink.via === 'column'
}
