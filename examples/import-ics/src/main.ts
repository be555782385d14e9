/**
 * Imports an iCalendar file into the calendar, with a progress bar: `cal-events import-ics` of
 * @cal-events/cli (packages/cli/src/import-ics.ts and import-ics-command.ts), with this example's
 * defaults: the sample file, and an in-memory calendar unless a database is configured.
 *
 *   pnpm --filter @cal-events/example-import-ics import-ics                  # the sample, in-memory PGlite
 *   pnpm --filter @cal-events/example-import-ics import-ics path/to/file.ics
 *   DATABASE_URL=postgres://… pnpm --filter @cal-events/example-import-ics import-ics file.ics
 *   CAL_DATA_DIR=.data/pglite pnpm --filter @cal-events/example-import-ics import-ics file.ics
 *
 * Run it twice against the same database: the second run updates and creates nothing.
 * Environment: DATABASE_URL (PostgreSQL), CAL_DATA_DIR (PGlite directory; neither: in memory),
 * CAL_TIMEZONE (site time zone for floating times and all-day events, default UTC).
 */
import { fileURLToPath } from 'node:url'
import { runCalEvents } from '@cal-events/cli'

const file = process.argv[2] ?? fileURLToPath(new URL('../data/sample.ics', import.meta.url))
const configured = process.env.DATABASE_URL?.trim() || process.env.CAL_DATA_DIR?.trim()
process.exitCode = await runCalEvents(['import-ics', file, ...process.argv.slice(3)], process.env, undefined, configured ? {} : { database: { memory: true } })
