import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import cliProgress from 'cli-progress'
import { createCalendar, type DatabaseOptions } from '@cal-events/core'
import { EXIT_FAILED, EXIT_OK, parseCommandLine, UsageError, type CliOutput } from './cli.js'
import { IMPORT_ICS_USAGE } from './usage.js'
import { loadConfig } from './config.js'
import { importIcs } from './import-ics.js'


/** What a caller (the import-ics example) may set beside the environment. */
export interface CommandDatabaseOptions {
  /** The database to use instead of the one the environment names. */
  database?: DatabaseOptions
}

/** The working directory relative paths are read from: where `pnpm …` was typed, else the process's. */
function workingDirectory(env: Record<string, string | undefined>): string {
  return env.INIT_CWD?.trim() || process.cwd()
}

/** `cal-events import-ics <file>`: imports, prints the summary; returns the exit code. */
export async function runImportIcs(
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
  print: CliOutput = { out: console.log, err: console.error },
  options: CommandDatabaseOptions = {},
): Promise<number> {
  const parsed: { command: 'help' } | { command: 'import-ics'; file: string } = parseCommandLine(['import-ics', ...argv], {}, {
    'import-ics': ({ rest }) => {
      if (rest.length !== 1) throw new UsageError('import-ics takes exactly one file.')
      return { command: 'import-ics' as const, file: rest[0]! }
    },
  })
  if (parsed.command === 'help') {
    print.out(IMPORT_ICS_USAGE)
    return EXIT_OK
  }
  const file = resolve(workingDirectory(env), parsed.file)
  let icsText: string
  try {
    icsText = readFileSync(file, 'utf8')
  } catch (err) {
    print.err(`Cannot read ${file}: ${(err as Error).message}`)
    return EXIT_FAILED
  }
  const config = loadConfig(env)
  const calendar = await createCalendar({
    database: options.database ?? config.database,
    siteTimezone: config.siteTimezone,
    variant: config.variant,
    ...(config.schema ? { schema: config.schema } : {}),
  })
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
    for (const warning of summary.warnings) print.err(`warning: ${warning}`)
    const { vevents, planned, created, updated, skipped, removed } = summary
    print.out(`${file}: ${vevents} VEVENTs, ${planned} events (a recurring series counts once).`)
    print.out(`created ${created}, updated ${updated}, skipped ${skipped}, removed ${removed}`)
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
    print.out(`calendar now lists ${events.total} events (a series once per occurrence), ${venues.total} venues, ${organizers.total} organizers`)
    return EXIT_OK
  } catch (err) {
    if (started) bar.stop()
    print.err(err instanceof Error ? err.message : String(err))
    return EXIT_FAILED
  } finally {
    await calendar.close()
  }
}
