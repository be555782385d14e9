/**
 * Imports an iCalendar file into the calendar, with a progress bar.
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
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import cliProgress from 'cli-progress'
import { createCalendar, type DatabaseOptions } from '@cal-events/core'
import { importIcs } from './import-ics.js'

const env = (name: string) => process.env[name]?.trim() || undefined
// Relative paths are read from where you ran the command (pnpm runs scripts in the package directory).
const cwd = env('INIT_CWD') ?? process.cwd()
const file = process.argv[2] ? resolve(cwd, process.argv[2]) : fileURLToPath(new URL('../data/sample.ics', import.meta.url))
let icsText: string
try {
  icsText = readFileSync(file, 'utf8')
} catch (err) {
  console.error(`Cannot read ${file}: ${(err as Error).message}`)
  process.exit(1)
}

const databaseUrl = env('DATABASE_URL')
const dataDir = env('CAL_DATA_DIR')
const database: DatabaseOptions = databaseUrl ? { url: databaseUrl } : dataDir ? { dataDir: resolve(cwd, dataDir) } : { memory: true }
const calendar = await createCalendar({ database, siteTimezone: env('CAL_TIMEZONE') ?? 'UTC' })

const bar = new cliProgress.SingleBar(
  { format: 'Importing {bar} {value}/{total} events  {origin}', hideCursor: true, clearOnComplete: false },
  cliProgress.Presets.shades_classic,
)
let started = false
try {
  const summary = await importIcs(calendar, icsText, {
    onProgress(done, total, event) {
      if (!started) {
        bar.start(total, 0, { origin: '' })
        started = true
      }
      bar.update(done, { origin: event.origin.length > 40 ? `${event.origin.slice(0, 39)}…` : event.origin })
    },
  })
  if (started) bar.stop()
  for (const warning of summary.warnings) console.warn(`warning: ${warning}`)
  const { vevents, planned, created, updated, skipped, removed } = summary
  console.log(`${file}: ${vevents} VEVENTs, ${planned} events (a recurring series counts once).`)
  console.log(`created ${created}, updated ${updated}, skipped ${skipped}, removed ${removed}`)
  // Up to the stored horizon (36 months ahead): a window beyond it computes open-ended series'
  // occurrences per request, which lists bound (a 400 for a file with a weekly series without end).
  const until = new Date()
  until.setUTCMonth(until.getUTCMonth() + 35)
  const [events, venues, organizers] = await Promise.all([
    calendar.events.list({ start_date: '1900-01-01', end_date: until.toISOString().slice(0, 10), status: 'publish,private', per_page: 1 }),
    calendar.venues.list({ per_page: 1 }),
    calendar.organizers.list({ per_page: 1 }),
  ])
  // The event list shows each occurrence of a series as an item (docs/recurrence.md).
  console.log(`calendar now lists ${events.total} events (a series once per occurrence), ${venues.total} venues, ${organizers.total} organizers`)
} catch (err) {
  if (started) bar.stop()
  console.error(err instanceof Error ? err.message : err)
  process.exitCode = 1
} finally {
  await calendar.close()
}
