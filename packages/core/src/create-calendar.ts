// The calendar factory: opens the database, starts the background jobs, wires operations and
// routes (calendar/wiring.ts) and assembles the HTTP handler and the script API
// (calendar/script-api.ts). The public types live in calendar/.
import { keepPruning } from './changes/change-log.js'
import { resolveOptions, type CalendarOptions, type ResolvedOptions } from './config/options.js'
import { waitForDatabase } from './db/connect.js'
import { openDatabase, type DatabaseHandle } from './db/create-db.js'
import { checkHealth } from './db/health.js'
import { assertMigrated, migrateToLatest, type MigrationReport } from './db/migrate.js'
import { openReplicas } from './db/open-replicas.js'
import type { ReadRouter } from './db/replicas.js'
import { createDispatcher } from './http/dispatch.js'
import { toErrorResponse } from './http/error-response.js'
import { createChangeValidator } from './http/response-cache.js'
import { compileRoute } from './http/routes.js'
import { keepExtending } from './recurrence/index.js'
import { startLoopMonitor } from './shared/loop-delay.js'
import type { Calendar } from './calendar/calendar.js'
import type { CalendarScripts } from './calendar/script-types.js'
import { scriptApi, withHostTransaction } from './calendar/script-api.js'
import { wireCalendar } from './calendar/wiring.js'

export type { Calendar } from './calendar/calendar.js'
export type {
  CallOptions,
  CreateOptions,
  EventFeedQuery,
  EventInput,
  EventListQuery,
  EventOrganizerInput,
  EventVenueInput,
  FollowingInput,
  LinkedListQuery,
  OccurrenceInput,
  OrganizerInput,
  TermInput,
  TermListQuery,
  VenueInput,
} from './calendar/script-inputs.js'
export type { CalendarScripts, EventResourceApi, ImportOptions, LinkedImportItemError, LinkedImportSummary, LinkedResourceApi, PostResourceApi, TermResourceApi } from './calendar/script-types.js'
export type { ExistingPolicy, ImportItemError, ImportProgress, ImportSummary } from './events/event-import.js'

/** Opens the database, checks that it answers (a clear error if not) and optionally migrates it. */
async function openReady(options: ResolvedOptions, migrate: boolean): Promise<DatabaseHandle & { report?: MigrationReport }> {
  const handle = await openDatabase(options.database, options.onQuery, options.schema)
  try {
    if ('url' in options.database) await waitForDatabase(handle.db, options.database.url, options.database.startupWaitMs ?? 0)
    const report = migrate ? await migrateToLatest(handle.db, options.schema) : undefined
    if (!migrate) await assertMigrated(handle.db, options.schema)
    return { ...handle, report }
  } catch (err) {
    await handle.close().catch(() => {})
    throw err
  }
}

/**
 * Applies pending migrations and closes the database again: for deployments that migrate once
 * before starting instances with `migrate: false`.
 *
 * @example
 * const { applied } = await migrateCalendar({ database: { url: process.env.DATABASE_URL! } })
 */
export async function migrateCalendar(input: CalendarOptions = {}): Promise<MigrationReport> {
  const handle = await openReady(resolveOptions(input), true)
  await handle.close()
  return handle.report!
}

/**
 * Opens the database (running migrations) and returns the calendar.
 *
 * @example
 * const calendar = await createCalendar({ database: { url: process.env.DATABASE_URL! } })
 * const event = await calendar.events.create({ title: 'Open day', start_date: '2027-06-01 10:00:00', end_date: '2027-06-01 16:00:00' })
 * await calendar.close()
 */
export async function createCalendar(input: CalendarOptions = {}): Promise<Calendar> {
  const options = resolveOptions(input)
  const handle = await openReady(options, options.migrate)
  let reads: ReadRouter | undefined
  try {
    reads = await openReplicas(options, handle.db)
  } catch (err) {
    await handle.close().catch(() => {})
    throw err
  }
  return startCalendar(options, handle, reads)
}

/**
 * The calendar on a database already open and migrated (its own, or one of a calendar set's);
 * `reads` routes its anonymous reads to read replicas (`db/replicas.ts`).
 */
export function startCalendar(options: ResolvedOptions, handle: DatabaseHandle, reads?: ReadRouter): Calendar {
  const db = handle.db
  const stopPruning = keepPruning(db)
  // Probes report the loop's delay since the calendar started, not since the first probe.
  startLoopMonitor()
  // Open-ended series' stored occurrences follow the clock (docs/recurrence.md).
  const extending = keepExtending(db, options.now)
  // One chain of change checks for the hot-read cache and the kept feeds; with the search path set
  // per transaction, each check is one schema-qualified statement outside a transaction.
  const validator = createChangeValidator(db, reads !== undefined, handle.qualifiedSchema, !handle.namesStatements)
  const { operations, routes, feedBuilds } = wireCalendar(options, validator)
  const dispatch = createDispatcher(routes.map(compileRoute), options, db, validator, reads)
  const scripts = scriptApi({ options, operations, ready: () => extending.ready() })

  // The script services are built on first use (issue 31: a calendar of a set that only serves
  // HTTP never builds them, ~60 closures); the getters are the prototype's, shared.
  const calendar: Omit<Calendar, keyof CalendarScripts> & { [OWN_SCRIPTS]: () => CalendarScripts } = {
    [OWN_SCRIPTS]: () => {
      const own = scripts((fn) => fn(db))
      calendar[OWN_SCRIPTS] = () => own
      return own
    },
    options,
    routes,
    warmUp: () => extending.ready(),
    handle: async (request) => {
      await extending.ready()
      return dispatch.handle(request)
    },
    // A failed check (database away) sends the request the full way, which answers it (503).
    cachedAnswer: (request) => dispatch.cachedAnswer(request)?.catch(() => undefined),
    toErrorResponse: (err, request) => {
      const response = toErrorResponse(err, options.onError)
      return request ? dispatch.finish(request, response) : response
    },
    withTransaction: (client, work) => withHostTransaction(options, scripts, client, work),
    health: (timeoutMs = 2000) => checkHealth(db, options.schema, timeoutMs, handle.poolStats, reads ? () => reads.stats() : undefined),
    poolStats: () => handle.poolStats?.(),
    close: async () => {
      stopPruning()
      await extending.stop()
      await feedBuilds.close()
      await reads?.close()
      return handle.close()
    },
  }
  return Object.setPrototypeOf(calendar, SCRIPT_GETTERS) as Calendar
}

const OWN_SCRIPTS = Symbol('own scripts')
// Every script service, checked by the compiler (`satisfies`: none missing, none extra).
const SCRIPT_NAMES = Object.keys({ events: 0, venues: 0, organizers: 0, categories: 0, tags: 0, discovery: 0, tokens: 0, feedKeys: 0 } satisfies Record<keyof CalendarScripts, 0>) as (keyof CalendarScripts)[]

/** The prototype of every calendar: a getter per script service, each building the calendar's services once. */
const SCRIPT_GETTERS: object = Object.defineProperties(
  {},
  Object.fromEntries(
    SCRIPT_NAMES.map((name) => [
      name,
      {
        enumerable: true,
        get(this: { [OWN_SCRIPTS]: () => CalendarScripts }) {
          return this[OWN_SCRIPTS]()[name]
        },
      },
    ]),
  ),
)
