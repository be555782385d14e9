import type { CalendarErrorCode } from '../errors.js'

/** Venues and organizers are the same kind of record ("linked posts") with different fields. */
export interface LinkedKind {
  readonly type: 'venue' | 'organizer'
  readonly table: 'venues' | 'organizers'
  /** Name of the name field on the wire (`venue` / `organizer`). */
  readonly nameField: 'venue' | 'organizer'
  /** Plural, as the list envelope and collection path name it. */
  readonly plural: 'venues' | 'organizers'
  /** Free-text detail fields, in wire order (str0 on input). */
  readonly textFields: readonly string[]
  /** Fields `search` looks in besides name, description and excerpt (CONTRACT 7). */
  readonly searchFields: readonly string[]
  readonly errors: {
    readonly notAccessible: CalendarErrorCode
    readonly inTrash: CalendarErrorCode
    readonly couldNotCreate: CalendarErrorCode
    readonly couldNotUpdate: CalendarErrorCode
    readonly pageNotFound: CalendarErrorCode
  }
}

/** The venue kind. */
export const VENUE: LinkedKind = {
  type: 'venue',
  table: 'venues',
  nameField: 'venue',
  plural: 'venues',
  textFields: ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website', 'stateprovince'],
  searchFields: ['address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
  errors: {
    notAccessible: 'VENUE_NOT_ACCESSIBLE',
    inTrash: 'VENUE_IN_TRASH',
    couldNotCreate: 'COULD_NOT_CREATE_VENUE',
    couldNotUpdate: 'COULD_NOT_UPDATE_VENUE',
    pageNotFound: 'VENUE_ARCHIVE_PAGE_NOT_FOUND',
  },
}

/** The organizer kind. */
export const ORGANIZER: LinkedKind = {
  type: 'organizer',
  table: 'organizers',
  nameField: 'organizer',
  plural: 'organizers',
  textFields: ['phone', 'website', 'email'],
  searchFields: ['phone', 'email', 'website'],
  errors: {
    notAccessible: 'ORGANIZER_NOT_ACCESSIBLE',
    inTrash: 'ORGANIZER_IN_TRASH',
    couldNotCreate: 'COULD_NOT_CREATE_ORGANIZER',
    couldNotUpdate: 'COULD_NOT_UPDATE_ORGANIZER',
    pageNotFound: 'ORGANIZER_ARCHIVE_PAGE_NOT_FOUND',
  },
}
