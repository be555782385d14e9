import type { z } from 'zod'
import type {
  CategoryListSchema,
  EventListSchema,
  EventSchema,
  OrganizerListSchema,
  OrganizerSchema,
  TagListSchema,
  TermSchema,
  VenueListSchema,
  VenueSchema,
} from './wire-schemas.js'

/** An event as the API returns it. */
export type EventResource = z.output<typeof EventSchema>
/** A venue as the API returns it (empty fields omitted). */
export type VenueResource = z.output<typeof VenueSchema>
/** An organizer as the API returns it (empty fields omitted). */
export type OrganizerResource = z.output<typeof OrganizerSchema>
/** A category or tag as its own routes return it. */
export type TermResource = z.output<typeof TermSchema>
/** `GET /events` body. */
export type EventList = z.output<typeof EventListSchema>
/** `GET /venues` body. */
export type VenueList = z.output<typeof VenueListSchema>
/** `GET /organizers` body. */
export type OrganizerList = z.output<typeof OrganizerListSchema>
/** `GET /categories` body. */
export type CategoryList = z.output<typeof CategoryListSchema>
/** `GET /tags` body. */
export type TagList = z.output<typeof TagListSchema>
