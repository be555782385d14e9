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

/** Each operation with the calendar's language parameters. */
function languageWrapper(options: ResolvedOptions) {
  const lang = languageArgs(options)
  const withLanguage = <O extends AnyOperation>(op: O): O => ({ ...op, args: { ...op.args, ...lang } })
  return <T extends Record<string, AnyOperation>>(ops: T): T =>
    Object.fromEntries(Object.entries(ops).map(([k, op]) => [k, withLanguage(op)])) as T
}

/** The operations that depend on the variant and languages alone (no calendar's state: that comes with each call's context). */
function variantOperations(options: ResolvedOptions) {
  const wrap = languageWrapper(options)
  return {
    events: wrap(eventOperations(options.variant)),
    venues: wrap(linkedOperations(VENUE, options.variant)),
    organizers: wrap(linkedOperations(ORGANIZER, options.variant)),
    categories: wrap(termOperations(CATEGORY, options.variant)),
    tags: wrap(termOperations(TAG, options.variant)),
  }
}

// Built once per variant and language list, shared by every calendar of that shape (issue 31):
// their argument schemas were most of the ~450 kB an open calendar of a set kept.
const byVariant = new WeakMap<ResolvedOptions['variant'], Map<string, ReturnType<typeof variantOperations>>>()

function sharedOperations(options: ResolvedOptions): ReturnType<typeof variantOperations> {
  let byLanguages = byVariant.get(options.variant)
  if (!byLanguages) byVariant.set(options.variant, (byLanguages = new Map<string, ReturnType<typeof variantOperations>>()))
  const key = options.languages.join(',')
  let ops = byLanguages.get(key)
  if (!ops) byLanguages.set(key, (ops = variantOperations(options)))
  return ops
}

/** The routes of the shared operations, before and after the calendar's own (iCalendar) ones. */
function variantRoutes(ops: ReturnType<typeof variantOperations>) {
  const ns = `/${NAMESPACE}`
  const { events, venues, organizers, categories, tags } = ops
  return {
    before: [
      ...eventRoutes(events, ns),
      ...linkedRoutes(VENUE, venues, ns),
      ...linkedRoutes(ORGANIZER, organizers, ns),
      ...termRoutes(CATEGORY, categories, ns),
      ...termRoutes(TAG, tags, ns),
    ],
    after: [
      ...occurrenceRoutes(events, ns),
      ...syncRoutes([
        { path: `${ns}/events`, sync: events.sync },
        { path: `${ns}/venues`, sync: venues.sync },
        { path: `${ns}/organizers`, sync: organizers.sync },
      ]),
    ],
  }
}

// Shared like the operations they route to (and so compiled once, `compileRoute`).
const routesOf = new WeakMap<ReturnType<typeof variantOperations>, ReturnType<typeof variantRoutes>>()

/** Builds the operations for `options` and the route table in registration order. */
export function wireCalendar(options: ResolvedOptions, validator: ChangeValidator) {
  const wrap = languageWrapper(options)
  const ns = `/${NAMESPACE}`
  const shared = sharedOperations(options)
  const { events, venues, organizers, categories, tags } = shared
  let sharedRoutes = routesOf.get(shared)
  if (!sharedRoutes) routesOf.set(shared, (sharedRoutes = variantRoutes(shared)))
  // The feeds share the hot-read cache's chain of change checks.
  const feedBuilds = createFeedBuilds(options.feeds, validator)
  const ical = wrap(icalOperations(options.variant, feedBuilds))
  const discovery = wrap(discoveryOperations(() => routes))
  const routes: RouteDef[] = [
    ...discoveryRoutes(discovery, ns),
    ...sharedRoutes.before,
    ...icalRoutes(ical, ns),
    ...sharedRoutes.after,
  ]
  return { operations: { events, venues, organizers, categories, tags, ical, discovery }, routes, feedBuilds }
}
