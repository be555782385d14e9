// The operations of a calendar and its route table: which operation answers which path. Every
// adapter, the root descriptor and the script API use what this builds.
import { NAMESPACE } from '../api/context.js'
import { languageArgs } from '../api/language-arg.js'
import type { AnyOperation } from '../api/operation.js'
import type { ResolvedOptions } from '../config/options.js'
import { eventOperations, eventRoutes, occurrenceRoutes } from '../events/event.routes.js'
import type { ChangeValidator } from '../http/response-cache.js'
import { syncRoutes, type RouteDef } from '../http/routes.js'
import { createFeedBuilds } from '../ical/feed-builds.js'
import { icalOperations, icalRoutes } from '../ical/ical.routes.js'
import { ORGANIZER, VENUE } from '../linked/kinds.js'
import { linkedOperations, linkedRoutes } from '../linked/linked.routes.js'
import { discoveryOperations, discoveryRoutes } from '../openapi/routes.js'
import { termOperations, termRoutes } from '../terms/term.routes.js'
import { CATEGORY, TAG } from '../terms/taxonomies.js'

/** The calendar's operations by resource, each with the calendar's language parameters (variant B). */
export type CalendarOperations = ReturnType<typeof wireCalendar>['operations']

/** Builds the operations for `options` and the route table in registration order. */
export function wireCalendar(options: ResolvedOptions, validator: ChangeValidator) {
  const lang = languageArgs(options)
  const withLanguage = <O extends AnyOperation>(op: O): O => ({ ...op, args: { ...op.args, ...lang } })
  const wrap = <T extends Record<string, AnyOperation>>(ops: T): T =>
    Object.fromEntries(Object.entries(ops).map(([k, op]) => [k, withLanguage(op)])) as T

  const ns = `/${NAMESPACE}`
  const events = wrap(eventOperations(options.variant))
  const venues = wrap(linkedOperations(VENUE, options.variant))
  const organizers = wrap(linkedOperations(ORGANIZER, options.variant))
  const categories = wrap(termOperations(CATEGORY, options.variant))
  const tags = wrap(termOperations(TAG, options.variant))
  // The feeds share the hot-read cache's chain of change checks.
  const feedBuilds = createFeedBuilds(options.feeds, validator)
  const ical = wrap(icalOperations(options.variant, feedBuilds))
  const discovery = wrap(discoveryOperations(() => routes))
  const routes: RouteDef[] = [
    ...discoveryRoutes(discovery, ns),
    ...eventRoutes(events, ns),
    ...linkedRoutes(VENUE, venues, ns),
    ...linkedRoutes(ORGANIZER, organizers, ns),
    ...termRoutes(CATEGORY, categories, ns),
    ...termRoutes(TAG, tags, ns),
    ...icalRoutes(ical, ns),
    ...occurrenceRoutes(events, ns),
    ...syncRoutes([
      { path: `${ns}/events`, sync: events.sync },
      { path: `${ns}/venues`, sync: venues.sync },
      { path: `${ns}/organizers`, sync: organizers.sync },
    ]),
  ]
  return { operations: { events, venues, organizers, categories, tags, ical, discovery }, routes, feedBuilds }
}
