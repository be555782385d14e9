import { createCalendars, type Calendars } from '@cal-events/core'
import { formatTable, parseCommandLine, UsageError, type CliOutput } from './cli.js'
import { loadConfig } from './config.js'
import { calendarsOptions } from './calendars-options.js'
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from './usage.js'

/** `cal-events calendars --help`. */
export const CALENDARS_USAGE = `Usage:
  cal-events calendars create <key> [<key>…]
  cal-events calendars list
  cal-events calendars delete <key> [<key>…]

The calendars of a server started with CAL_MULTI_CALENDAR=1, each served at
/calendars/<key>/cal/events/v1 (docs/multi-calendar.md). A key has lower-case letters, digits and
inner hyphens, 1 to 50 characters. delete drops the calendar and all its data. Tokens of one
calendar: cal-events tokens create --calendar <key> --role … Uses the server's database settings
(DATABASE_URL, or PGlite in CAL_DATA_DIR; with the embedded database, stop the server first).`

/** One parsed command line. */
export type CalendarsCommand = { command: 'help' } | { command: 'create' | 'delete'; keys: string[] } | { command: 'list' }

/** Parses and checks the arguments (no database needed); throws `UsageError`. */
export function parseCalendarsArgs(argv: readonly string[]): CalendarsCommand {
  const keys = (verb: string, rest: string[]) => {
    if (rest.length === 0) throw new UsageError(`calendars ${verb} needs at least one key.`)
    return rest
  }
  return parseCommandLine(argv, {}, {
    create: ({ rest }) => ({ command: 'create', keys: keys('create', rest) }),
    delete: ({ rest }) => ({ command: 'delete', keys: keys('delete', rest) }),
    list: ({ noMore }) => {
      noMore()
      return { command: 'list' }
    },
  })
}

/** Runs a parsed command on an open calendar set; returns the exit code. */
export async function executeCalendarsCommand(cmd: CalendarsCommand, calendars: Calendars, print: CliOutput): Promise<number> {
  switch (cmd.command) {
    case 'help':
      print.out(CALENDARS_USAGE)
      return EXIT_OK
    case 'create':
      for (const key of cmd.keys) {
        await calendars.create(key)
        const info = (await calendars.list()).find((c) => c.key === key)!
        print.out(`Created calendar ${key} (schema ${info.schema}).`)
      }
      return EXIT_OK
    case 'list':
      print.out(formatTable(['KEY', 'SCHEMA', 'CREATED (UTC)'], (await calendars.list()).map((c) => [c.key, c.schema, c.createdAt.slice(0, 19).replace('T', ' ')]), 'No calendars.'))
      return EXIT_OK
    case 'delete': {
      let missing = 0
      for (const key of cmd.keys) {
        if (await calendars.delete(key)) print.out(`Deleted calendar ${key} and all its data.`)
        else {
          print.err(`No calendar has the key ${JSON.stringify(key)}.`)
          missing++
        }
      }
      return missing > 0 ? EXIT_FAILED : EXIT_OK
    }
  }
}

/** `cal-events calendars …`: opens the database the environment names, runs, closes; returns the exit code. */
export async function runCalendarsCli(argv: readonly string[], env: Record<string, string | undefined>, print: CliOutput): Promise<number> {
  let calendars: Calendars | undefined
  try {
    const cmd = parseCalendarsArgs(argv)
    if (cmd.command === 'help') return await executeCalendarsCommand(cmd, undefined as never, print)
    calendars = await createCalendars(calendarsOptions(loadConfig(env)))
    return await executeCalendarsCommand(cmd, calendars, print)
  } catch (err) {
    if (err instanceof UsageError) {
      print.err(`${err.message}\n\n${CALENDARS_USAGE}`)
      return EXIT_USAGE
    }
    // A malformed key is the caller's mistake too.
    if ((err as { code?: string }).code === 'INVALID_CALENDAR_KEY') {
      print.err(`${(err as Error).message}\n\n${CALENDARS_USAGE}`)
      return EXIT_USAGE
    }
    print.err(err instanceof Error ? err.message : String(err))
    return EXIT_FAILED
  } finally {
    await calendars?.close()
  }
}
