import { z } from 'zod'
import { arg, args, MAX_TEXT, toList, type ArgPolicy } from '../api/arg-kinds.js'
import { LIMITS } from '../shared/limits.js'
import { WRITABLE_STATUSES } from '../auth/permissions.js'
import type { VariantConfig } from '../config/variants.js'
import { imageArg, statusListArg } from '../posts/post-args.js'
import { syncListArgs } from '../sync/sync.args.js'

/**
 * A date bound of the list: relative to now or exact to the second (the hot-read cache keeps an
 * answer that read the clock within its second), and refused by sync walks, which cover every date.
 */
const WINDOW: ArgPolicy = { cache: 'second', sync: 'refused' }

/** The list's paging, which a sync walk replaces with its cursor. */
const PAGING: ArgPolicy = { sync: 'paging' }

/** Query parameters of `GET /events` in both variants (SPEC, CONTRACT 6.1). */
function commonListArgs(variant: VariantConfig) {
  return {
    page: args.posint({ default: 1, description: 'Page of the archive to return.', policy: PAGING }),
    per_page: args.posint({ default: variant.perPageDefault, description: 'Events per page (at most 50).', policy: PAGING }),
    start_date: args.time({ description: 'Events starting on or after this date.', policy: WINDOW }),
    end_date: args.time({
      policy: WINDOW,
      description:
        'Events ending on or before this date. In the event list, occurrences of open-ended series past the stored span (36 months ahead) ' +
        'are computed for the request: a window holding more than 5,000 of them is a 400 naming the date parameters.',
    }),
    search: args.shortText(500, { description: 'Events whose title, excerpt or description contain every word.' }),
    categories: args.idOrSlugList({ description: 'Category IDs or slugs.' }),
    tags: args.idOrSlugList({ description: 'Tag IDs or slugs.' }),
    venue: args.posintList({ description: 'Venue IDs.' }),
    organizer: args.posintList({ description: 'Organizer IDs.' }),
    featured: args.bool({ description: 'Only featured (true) or non-featured (false) events.' }),
    status: { ...statusListArg, description: 'Event post statuses.' },
    geoloc: args.bool({ description: 'Only events whose venue has (true) or lacks (false) coordinates.' }),
    geoloc_lat: args.coordinate(90, { description: 'Latitude; needs geoloc_lng.', with: 'geoloc_lng' }),
    geoloc_lng: args.coordinate(180, { description: 'Longitude; needs geoloc_lat.', with: 'geoloc_lat' }),
    include: args.posintList({ description: 'Only these event IDs; date filters are not applied.' }),
    post_parent: args.int({ description: 'Events whose parent is this event.' }),
    ...syncListArgs('events'),
  }
}

/** Query parameters of `GET /events` in variant B only. */
function boundsListArgs() {
  return {
    starts_before: args.time({ description: 'Events starting before the date.', policy: WINDOW }),
    starts_after: args.time({ description: 'Events starting after the date.', policy: WINDOW }),
    ends_before: args.time({ description: 'Events ending before the date.', policy: WINDOW }),
    ends_after: args.time({ description: 'Events ending after the date.', policy: WINDOW }),
    strict_dates: args.nestr({
      policy: WINDOW,
      default: 'false',
      description: 'Apply dates at the exact times given: 1, true, yes or on (any case); any other value is false.',
      openapi: { type: 'boolean', default: false },
    }),
    ticketed: args.bool({ description: 'Events with or without tickets.' }),
  }
}

/** Every query parameter `GET /events` may declare; variant A leaves out the bounds filters. */
export type EventListArgs = ReturnType<typeof commonListArgs> & Partial<ReturnType<typeof boundsListArgs>>

/** Query parameters of `GET /events` (SPEC, CONTRACT 6.1). */
export function eventListArgs(variant: VariantConfig): EventListArgs {
  const declared = commonListArgs(variant)
  return variant.boundsFilters ? { ...declared, ...boundsListArgs() } : declared
}

/** `venue` on an event write: id, `{id}`, inline object, or a clearing value (O-6). */
const venueValue = arg(z.union([z.number(), z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]), {
  type: ['integer', 'object', 'array'],
}, { nullable: true })

/** A CSV string holding at most `max` items (the array form is capped by `.max`). */
const csvOfAtMost = (max: number) =>
  z
    .string()
    .max(MAX_TEXT)
    .refine((v) => {
      const items = toList(v)
      return items.length <= max && items.every((i) => String(i).length <= LIMITS.termItemLength)
    })

/** `organizer` on an event write: one or a list of ids, `{id}` objects or inline objects. */
const organizerValue = arg(
  z.union([
    z.number(),
    csvOfAtMost(LIMITS.organizersPerEvent),
    z.record(z.string(), z.unknown()),
    z.array(z.unknown()).max(LIMITS.organizersPerEvent),
  ]),
  { type: ['array', 'integer', 'object'], items: { type: ['integer', 'object'] } },
  { nullable: true, reason: `At most ${LIMITS.organizersPerEvent} organizers (ids, {"id"} objects or inline objects).` },
)

/** `categories`/`tags` on an event write: ids, slugs or names; `""`/`[]` clears. */
const termValue = arg(
  z.union([
    z.array(z.union([z.string().max(LIMITS.termItemLength), z.number()])).max(LIMITS.termsPerEvent),
    csvOfAtMost(LIMITS.termsPerEvent),
    z.number(),
  ]),
  { type: 'array', items: { type: ['integer', 'string'] } },
  { nullable: true, reason: `A list of at most ${LIMITS.termsPerEvent} term ids, slugs or names (each at most ${LIMITS.termItemLength} characters).` },
)

/** Cost: a string or a list of strings (CONTRACT 4.2). */
const costValue = arg(
  z.union([z.string().max(500), z.number(), z.array(z.union([z.string().max(100), z.number()])).max(LIMITS.costValues)]),
  { type: ['string', 'array'] },
  { nullable: true, reason: `A cost string, or a list of at most ${LIMITS.costValues} of them.` },
)

/**
 * `origin_uid` (extension): the external id the event was imported from, e.g. an iCalendar UID.
 * Unique per language; `""` or `null` clears it. Shown in `global_id_lineage` after the global id.
 */
const originUidArg = arg(z.string().max(1000), { type: 'string' }, {
  nullable: true,
  description: 'Extension: external id the event was imported from (e.g. an iCalendar UID); unique per language, "" or null clears it.',
})

/**
 * `recurrence` (extension, issue 19): the event as a series, as RFC 5545 lines (`RRULE:…`,
 * `RDATE…`, `EXDATE…`); `null` or `[]` makes it a single event again. Checked against the start
 * and time zone by `recurrence/recurrence.ts`.
 */
const recurrenceArg = arg(z.array(z.string().max(2000)).max(50), { type: 'array', items: { type: 'string' } }, {
  nullable: true,
  description:
    'Extension: RFC 5545 recurrence lines (RRULE, RDATE, EXDATE), e.g. ["RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=10"]; null or [] for a single event. ' +
    'Occurrences are not listed separately yet.',
  reason: 'An array of at most 50 RFC 5545 lines (RRULE, RDATE, EXDATE), or null.',
})

const timezoneArg = arg(z.string().max(64), { type: 'string' }, { description: 'Event time zone (IANA name or UTC±h).' })

/** Body fields of an event create or update (SPEC, CONTRACT 10.1). */
export function eventWriteArgs(forCreate: boolean) {
  return {
    title: args.shortText(1000, { required: forCreate, description: 'Event title.' }),
    start_date: args.time({ required: forCreate, description: 'Start date and time.' }),
    end_date: args.time({ required: forCreate, description: 'End date and time.' }),
    author: args.int({ description: 'Author ID.' }),
    date: args.time({ description: 'Publication date.' }),
    date_utc: args.time({ description: 'Publication date in UTC.' }),
    description: args.nestr(),
    slug: args.shortText(200),
    excerpt: args.nestr(),
    status: args.enumOf(WRITABLE_STATUSES, { description: 'Post status.' }),
    timezone: timezoneArg,
    all_day: args.bool({ description: 'All-day event.' }),
    image: imageArg,
    cost: costValue,
    website: { ...args.url0({ description: 'Event website URL.' }), nullable: true },
    show_map: args.bool(),
    show_map_link: args.bool(),
    hide_from_listings: args.bool(),
    sticky: args.bool(),
    featured: args.bool(),
    categories: termValue,
    tags: termValue,
    venue: venueValue,
    organizer: organizerValue,
    origin_uid: originUidArg,
    recurrence: recurrenceArg,
  }
}
