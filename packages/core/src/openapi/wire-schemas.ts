import { z } from 'zod'
import { CATEGORY, TAG } from '../terms/taxonomies.js'

// The response shapes of CONTRACT 4-5 as zod schemas: the OpenAPI document is generated from
// them and tests validate real responses against that document, so neither can drift.
// Strict objects, so a field the contract does not name is caught.

const dt = z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/).meta({ description: 'YYYY-MM-DD HH:MM:SS' })
const twoDigits = z.string().regex(/^\d{2}$/)

/** Parts of a datetime, all zero-padded strings (O-15). */
export const DateDetailsSchema = z
  .strictObject({ year: z.string().regex(/^\d{4}$/), month: twoDigits, day: twoDigits, hour: twoDigits, minutes: twoDigits, seconds: twoDigits })
  .meta({ id: 'DateDetails' })

/** Cost breakdown (CONTRACT 4.2). */
export const CostDetailsSchema = z
  .strictObject({
    currency_symbol: z.string(),
    currency_code: z.string(),
    currency_position: z.enum(['prefix', 'postfix', '']),
    values: z.array(z.string()),
  })
  .meta({ id: 'CostDetails' })

/** One rendered size of an image. */
export const ImageSizeSchema = z
  .strictObject({ width: z.int(), height: z.int(), 'mime-type': z.string(), url: z.string() })
  .meta({ id: 'ImageSize' })

/** Image (CONTRACT 4.3); keys with empty values are omitted. */
export const ImageSchema = z
  .strictObject({
    url: z.string(),
    id: z.int(),
    extension: z.string().optional(),
    width: z.int().optional(),
    height: z.int().optional(),
    sizes: z.record(z.string(), ImageSizeSchema).optional(),
  })
  .meta({ id: 'Image' })

const jsonLd = z.record(z.string(), z.unknown()).meta({ description: 'schema.org object; single reads only.' })
const emptyArray = z.array(z.never()).max(0).meta({ description: 'Always an empty array.' })
const taxonomyWire = z.enum([CATEGORY.wire, TAG.wire])
const termUrls = z.strictObject({ self: z.string(), collection: z.string(), up: z.string().optional() })

/** Term inside an event's categories/tags (CONTRACT 4.6). */
export const EmbeddedTermSchema = z
  .strictObject({
    name: z.string(),
    slug: z.string(),
    term_group: z.int(),
    term_taxonomy_id: z.int(),
    taxonomy: taxonomyWire,
    description: z.string(),
    parent: z.int(),
    count: z.int(),
    filter: z.literal('raw'),
    id: z.int(),
    urls: termUrls,
  })
  .meta({ id: 'EmbeddedTerm' })

/** Category or tag as its own routes return it (CONTRACT 4.6). */
export const TermSchema = z
  .strictObject({
    id: z.int(),
    count: z.int(),
    description: z.string(),
    name: z.string(),
    slug: z.string(),
    taxonomy: taxonomyWire,
    parent: z.int().optional().meta({ description: 'Categories only; 0 = top level.' }),
    meta: emptyArray,
    url: z.string(),
    urls: termUrls,
  })
  .meta({ id: 'Term' })

// Venue and organizer objects omit every empty field (CONTRACT 4.4), hence the optionals.
const linkedBase = {
  id: z.int(),
  author: z.string().optional().meta({ description: 'User id as a decimal string.' }),
  status: z.string(),
  // Never empty, so never omitted.
  date: dt,
  date_utc: z.string(),
  modified: dt,
  modified_utc: dt,
  url: z.string(),
  description: z.string().optional(),
  excerpt: z.string().optional(),
  slug: z.string().optional(),
  image: ImageSchema.optional(),
  json_ld: jsonLd.optional(),
  global_id: z.string(),
  global_id_lineage: z.array(z.string()),
}

/** Venue (CONTRACT 4.4). */
export const VenueSchema = z
  .strictObject({
    ...linkedBase,
    venue: z.string().optional(),
    address: z.string().optional(),
    city: z.string().optional(),
    country: z.string().optional(),
    province: z.string().optional(),
    state: z.string().optional(),
    zip: z.string().optional(),
    phone: z.string().optional(),
    website: z.string().optional(),
    stateprovince: z.string().optional(),
    geo_lat: z.number().optional(),
    geo_lng: z.number().optional(),
    show_map: z.boolean(),
    show_map_link: z.boolean(),
  })
  .meta({ id: 'Venue' })

/** Organizer (CONTRACT 4.5). */
export const OrganizerSchema = z
  .strictObject({
    ...linkedBase,
    organizer: z.string().optional(),
    phone: z.string().optional(),
    website: z.string().optional(),
    email: z.string().optional(),
  })
  .meta({ id: 'Organizer' })

// Password-protected events in lists blank these to null (CONTRACT 9.3).
const blankable = z.boolean().nullable()

/** Event (CONTRACT 4.1). */
export const EventSchema = z
  .strictObject({
    id: z.int(),
    global_id: z.string(),
    global_id_lineage: z.array(z.string()),
    author: z.string().meta({ description: 'User id as a decimal string; "0" when none.' }),
    status: z.enum(['publish', 'future', 'draft', 'pending', 'private', 'trash']),
    date: dt,
    date_utc: z.string(),
    modified: dt,
    modified_utc: dt,
    url: z.string(),
    rest_url: z.string(),
    title: z.string(),
    description: z.string(),
    excerpt: z.string(),
    slug: z.string(),
    image: z.union([ImageSchema, z.literal(false)]),
    all_day: blankable,
    start_date: dt,
    start_date_details: DateDetailsSchema,
    end_date: dt,
    end_date_details: DateDetailsSchema,
    utc_start_date: dt,
    utc_start_date_details: DateDetailsSchema,
    utc_end_date: dt,
    utc_end_date_details: DateDetailsSchema,
    timezone: z.string(),
    timezone_abbr: z.string(),
    cost: z.string(),
    cost_details: CostDetailsSchema,
    website: z.string(),
    show_map: blankable,
    show_map_link: blankable,
    hide_from_listings: blankable,
    sticky: blankable,
    featured: blankable,
    categories: z.array(EmbeddedTermSchema),
    tags: z.array(EmbeddedTermSchema),
    venue: z.union([VenueSchema, z.array(VenueSchema)]).meta({ description: 'The venue, or [] when none.' }),
    organizer: z.array(OrganizerSchema),
    custom_fields: emptyArray,
    recurrence: z
      .array(z.string())
      .optional()
      .meta({ description: 'Extension: the RFC 5545 recurrence lines of a series (RRULE, RDATE, EXDATE); absent for single events and occurrences.' }),
    occurrence: z
      .string()
      .optional()
      .meta({ description: 'Extension, occurrences of a series only: the occurrence key, its original start in UTC (20270105T090000Z) or its date (20270105) in an all-day series.' }),
    series_id: z.int().optional().meta({ description: 'Extension, occurrences only: the series (equal to `id`).' }),
    original_start_date: dt.optional().meta({ description: 'Extension, occurrences only: where the rule placed the occurrence, in the event\'s zone.' }),
    json_ld: jsonLd.optional(),
  })
  .meta({ id: 'Event' })

const pageLinks = {
  rest_url: z.string(),
  next_rest_url: z.string().optional(),
  previous_rest_url: z.string().optional(),
  total: z.int(),
  total_pages: z.int(),
}

/** List envelopes (CONTRACT 5.1). */
export const EventListSchema = z.strictObject({ events: z.array(EventSchema), ...pageLinks }).meta({ id: 'EventList' })
export const VenueListSchema = z.strictObject({ venues: z.array(VenueSchema), ...pageLinks }).meta({ id: 'VenueList' })
export const OrganizerListSchema = z.strictObject({ organizers: z.array(OrganizerSchema), ...pageLinks }).meta({ id: 'OrganizerList' })
export const CategoryListSchema = z.strictObject({ categories: z.array(TermSchema), ...pageLinks }).meta({ id: 'CategoryList' })
export const TagListSchema = z.strictObject({ tags: z.array(TermSchema), ...pageLinks }).meta({ id: 'TagList' })

/** An item gone from a sync answer: deleted, trashed, unpublished or no longer matching (docs/sync.md). */
export const TombstoneSchema = z
  .strictObject({ id: z.int(), deleted: z.literal(true) })
  .meta({ id: 'Tombstone', description: 'Extension: an item to drop from a mirror (sync answers only).' })
const syncPage = { ...pageLinks, next_sync_token: z.string().optional().meta({ description: 'Extension: on the last page of a sync walk, the token of the next sync (also in X-Cal-Next-Sync-Token).' }) }

/** Sync answers of the lists (`sync=1`, `sync_token`, `sync_page`): items and tombstones, the next token on the last page. */
export const EventSyncPageSchema = z.strictObject({ events: z.array(z.union([EventSchema, TombstoneSchema])), ...syncPage }).meta({ id: 'EventSyncPage' })
export const VenueSyncPageSchema = z.strictObject({ venues: z.array(z.union([VenueSchema, TombstoneSchema])), ...syncPage }).meta({ id: 'VenueSyncPage' })
export const OrganizerSyncPageSchema = z
  .strictObject({ organizers: z.array(z.union([OrganizerSchema, TombstoneSchema])), ...syncPage })
  .meta({ id: 'OrganizerSyncPage' })

/** `data` of an error body (CONTRACT 2.1): the status, and the members some codes add. */
export const ErrorDataSchema = z
  .object({
    status: z.int().min(400).max(599),
    params: z
      .union([z.record(z.string(), z.string()), z.array(z.string())])
      .optional()
      .meta({ description: 'rest_invalid_param: parameter name → reason; rest_missing_callback_param: the missing names.' }),
    details: z
      .union([z.record(z.string(), z.unknown()), emptyArray])
      .optional()
      .meta({ description: 'rest_invalid_param: parameter name → nested error body; [] when none.' }),
    term_id: z.int().optional().meta({ description: 'term_exists: the id of the clashing term.' }),
    retry_after: z.int().min(1).optional().meta({ description: 'rest_too_many_requests: seconds until the next try is counted; rest_feed_busy: seconds to wait before building the feed is tried again.' }),
  })
  .catchall(z.unknown())
  .meta({ id: 'ErrorData' })

/** The error body of every non-2xx response (CONTRACT 2.1). */
export const ErrorSchema = z
  .strictObject({
    code: z.string().meta({ description: 'Stable machine identifier; each response lists the codes it can carry.' }),
    message: z.string().meta({ description: 'Human-readable English sentence.' }),
    data: ErrorDataSchema,
  })
  .meta({ id: 'Error' })

const routeArg = z.record(z.string(), z.unknown())

/** The root descriptor (CONTRACT 14.1). */
export const RootDescriptorSchema = z
  .strictObject({
    namespace: z.string(),
    routes: z.record(
      z.string(),
      z.strictObject({
        namespace: z.string(),
        methods: z.array(z.string()),
        endpoints: z.array(
          z.strictObject({
            methods: z.array(z.string()),
            args: z.union([z.record(z.string(), routeArg), emptyArray]),
          }),
        ),
        _links: z.strictObject({ self: z.array(z.strictObject({ href: z.string() })) }).optional(),
      }),
    ),
    _links: z.strictObject({ up: z.array(z.strictObject({ href: z.string() })) }),
  })
  .meta({ id: 'RootDescriptor' })

/** This document, as `/doc` answers it. */
export const OpenApiDocumentSchema = z
  .object({ openapi: z.string(), info: z.record(z.string(), z.unknown()), paths: z.record(z.string(), z.unknown()) })
  .catchall(z.unknown())
  .meta({ id: 'OpenApiDocument', description: 'An OpenAPI 3.1 document.' })

/** Response schemas by collection segment: the list envelope, the single object and the sync answer. */
export const RESOURCE_SCHEMAS = {
  events: { list: EventListSchema, item: EventSchema, sync: EventSyncPageSchema },
  venues: { list: VenueListSchema, item: VenueSchema, sync: VenueSyncPageSchema },
  organizers: { list: OrganizerListSchema, item: OrganizerSchema, sync: OrganizerSyncPageSchema },
  categories: { list: CategoryListSchema, item: TermSchema, sync: undefined },
  tags: { list: TagListSchema, item: TermSchema, sync: undefined },
} as const
