import type { VariantConfig } from '../config/variants.js'
import { z } from 'zod'
import type { CalendarErrorCode } from '../errors.js'
import type { Endpoint, RouteDef } from '../http/routes.js'
import type { EndpointDoc } from '../http/routes.js'
import type { FeedBuilds } from './feed-builds.js'
import { ICAL_TYPE } from './ical-feed.js'
import { eventFeedOperation, eventIcalOperation } from './ical.operations.js'

/** The iCalendar operations, by name, for routes and the script API alike. */
export function icalOperations(variant: VariantConfig, feeds: FeedBuilds) {
  let files = filesOf.get(variant)
  if (!files) filesOf.set(variant, (files = { byId: eventIcalOperation('id', variant), bySlug: eventIcalOperation('slug', variant) }))
  // Only the feed holds a calendar's own state (its kept feeds); the files are the variant's, shared (issue 31).
  return { feed: eventFeedOperation(variant, feeds), ...files }
}

const filesOf = new WeakMap<VariantConfig, { byId: ReturnType<typeof eventIcalOperation>; bySlug: ReturnType<typeof eventIcalOperation> }>()

const ICAL_SUCCESS = (description: string) => ({
  status: 200,
  description,
  contentType: ICAL_TYPE,
  schema: z.string().meta({ description: 'RFC 5545 iCalendar text.' }),
  headers: ['validators'] as const,
})

const FEED_DOC: EndpointDoc = {
  operationId: 'getEventFeed',
  summary: 'iCalendar feed of events',
  description:
    'The events `GET /events` would list to the caller for the same filters (same 400s, same default window), ' +
    'as one iCalendar document to subscribe to: at most 25,000 events (the `feeds.maxEvents` option), the first in list order. ' +
    'No paging. One answer per query and caller is kept and served to every poll until something changes; only a few feeds ' +
    'are built at a time (`503 rest_feed_busy` with `Retry-After` when the builds and their queue are full). Calendar apps cannot ' +
    'send headers: a private feed key in `key` makes the feed show what its user may see (an unknown or revoked key is ' +
    'a 401 `rest_invalid_token`). Poll with `If-None-Match` (304 while nothing the feed shows changed).',
  tags: ['Events'],
  access: 'public',
  errors: ['INVALID_TOKEN', 'FEED_BUSY'],
  success: ICAL_SUCCESS('The feed.'),
}

// The read's (wrong password guesses are rate-limited there too).
const READ_ERRORS: CalendarErrorCode[] = ['EVENT_NOT_FOUND', 'INVALID_EVENT_ID', 'EVENT_NO_LONGER_AVAILABLE', 'EVENT_NOT_ACCESSIBLE', 'EVENT_PASSWORD_PROTECTED', 'TOO_MANY_REQUESTS']

function fileDoc(by: '' | 'BySlug'): EndpointDoc {
  return {
    operationId: `getEventIcal${by}`,
    summary: `One event as an iCalendar file${by ? ' (by slug)' : ''}`,
    description: 'The event as a calendar file for "add to calendar", readable exactly when the event is (same errors).',
    tags: ['Events'],
    access: 'public',
    errors: [...READ_ERRORS, 'INVALID_TOKEN'],
    success: ICAL_SUCCESS('The calendar file.'),
  }
}

/**
 * The iCalendar routes (issue 20), after the contract's routes so that its registration order
 * (CONTRACT 14.1) stays a prefix of the table. None of them is matched by an earlier pattern.
 */
export function icalRoutes(ops: ReturnType<typeof icalOperations>, ns: string): RouteDef[] {
  const events = `${ns}/events`
  const get = (operation: Endpoint['operation'], doc: EndpointDoc): Endpoint[] => [{ methods: ['GET'], operation, doc, feedKey: true }]
  return [
    { pattern: `${events}/ical`, path: `${events}/ical`, endpoints: get(ops.feed, FEED_DOC) },
    { pattern: `${events}/(?P<id>\\d+)/ical`, path: `${events}/:id/ical`, endpoints: get(ops.byId, fileDoc('')) },
    {
      pattern: `${events}/by-slug/(?P<slug>[^/]+)/ical`,
      path: `${events}/by-slug/:slug/ical`,
      endpoints: get(ops.bySlug, fileDoc('BySlug')),
    },
  ]
}
