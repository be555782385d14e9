import { parseArgs, type ParseArgsConfig } from 'node:util'
import { createCalendar, createCalendars, type Calendar, type Calendars } from '@cal-events/core'
import { calendarsOptions } from './calendars-options.js'
import { loadConfig } from './config.js'
import { EXIT_FAILED, EXIT_USAGE, UsageError } from './usage.js'

export { EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, UsageError } from './usage.js'

type Options = NonNullable<ParseArgsConfig['options']>
type Values<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: O & { help: { type: 'boolean'; short: 'h' } } }>>['values']

/** What a command's parser gets: the option values, the words after the command, and a check that there are none. */
export interface CommandLine<O extends Options> {
  values: Values<O>
  rest: string[]
  /** Throws `UsageError` when words follow the command. */
  noMore(): void
}

/**
 * Parses `<command> [words] [--options]` (plus `--help`/`-h`) and hands it to that command's
 * parser; throws `UsageError` for a bad option, no command or an unknown one.
 */
export function parseCommandLine<O extends Options, C>(
  argv: readonly string[],
  options: O,
  // NoInfer: the command type comes from the caller's declared result, not from the first parser.
  commands: Record<string, (line: CommandLine<O>) => NoInfer<C>>,
): C | { command: 'help' } {
  let parsed
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options: { ...options, help: { type: 'boolean', short: 'h' } } })
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
  const values = parsed.values as Values<O> & { help?: boolean }
  if (values.help) return { command: 'help' }
  const [command, ...rest] = parsed.positionals
  const names = Object.keys(commands)
  if (command === undefined) throw new UsageError(`Name a command: ${names.slice(0, -1).join(', ')} or ${names.at(-1)}.`)
  // Own properties only: `toString` is no command.
  if (!Object.hasOwn(commands, command)) throw new UsageError(`Unknown command ${JSON.stringify(command)}.`)
  const noMore = () => {
    if (rest.length > 0) throw new UsageError(`Unexpected argument ${JSON.stringify(rest[0])}.`)
  }
  return commands[command]!({ values, rest, noMore })
}

/** Rows under a header as an aligned text table; `empty` when there are no rows. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[], empty: string): string {
  if (rows.length === 0) return empty
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  return [header, ...rows].map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n')
}

/** One command-line tool: its usage text, its parser and what runs a parsed command. */
export interface CliTool<C extends { command: string }> {
  usage: string
  parse(argv: readonly string[]): C
  execute(cmd: C, calendar: Calendar, out: (line: string) => void): Promise<number>
}

/** Where a tool prints: its results, and its mistakes and failures. */
export interface CliOutput {
  out(line: string): void
  err(line: string): void
}

/**
 * Entry point of a tool: checks the arguments, opens the database `env` configures (running
 * migrations), runs, closes. Usage errors are printed with the usage text (exit 2); returns the exit code.
 */
export async function runCliMain<C extends { command: string }>(
  tool: CliTool<C>,
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
  print: CliOutput = { out: console.log, err: console.error },
): Promise<number> {
  let calendar: Calendar | undefined
  let calendars: Calendars | undefined
  try {
    // `--calendar KEY`: one calendar of a calendar set (CAL_MULTI_CALENDAR=1), for every tool.
    const { key, rest } = calendarOption(argv)
    const cmd = tool.parse(rest)
    if (cmd.command === 'help') {
      print.out(`${tool.usage}\n\nWith --calendar <key>: the calendar of that key (CAL_MULTI_CALENDAR=1, cal-events calendars).`)
      return 0
    }
    const config = loadConfig(env)
    if (key !== undefined) {
      calendars = await createCalendars(calendarsOptions(config))
      calendar = await calendars.get(key)
      if (!calendar) throw new Error(`No calendar has the key ${JSON.stringify(key)}; create it with: cal-events calendars create ${key}`)
    } else {
      calendar = await createCalendar({
        variant: config.variant,
        siteTimezone: config.siteTimezone,
        database: config.database,
        ...(config.schema ? { schema: config.schema } : {}),
        ...(config.publicBaseUrl ? { publicBaseUrl: config.publicBaseUrl } : {}),
      })
    }
    return await tool.execute(cmd, calendar, print.out)
  } catch (err) {
    if (err instanceof UsageError) {
      print.err(`${err.message}\n\n${tool.usage}`)
      return EXIT_USAGE
    }
    print.err(err instanceof Error ? err.message : String(err))
    return EXIT_FAILED
  } finally {
    if (calendars) await calendars.close()
    else await calendar?.close()
  }
}

/** Takes `--calendar KEY` (or `--calendar=KEY`) out of a tool's arguments. */
function calendarOption(argv: readonly string[]): { key: string | undefined; rest: string[] } {
  const rest: string[] = []
  let key: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--calendar') {
      key = argv[++i]
      if (key === undefined || key.startsWith('-')) throw new UsageError('--calendar needs a calendar key.')
    } else if (arg.startsWith('--calendar=')) key = arg.slice('--calendar='.length)
    else rest.push(arg)
  }
  return { key, rest }
}
