import type { CliOutput } from './cli.js'
import type { CommandDatabaseOptions } from './import-ics-command.js'
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, IMPORT_ICS_USAGE, MIGRATE_SITE_USAGE, MIGRATE_USAGE, SERVE_USAGE, USAGE, UsageError } from './usage.js'



// Each command's module is loaded when it runs: `--help` or `tokens` never load the server's.
const COMMAND_USAGE: Record<string, () => Promise<string>> = {
  serve: async () => SERVE_USAGE,
  migrate: async () => MIGRATE_USAGE,
  tokens: async () => (await import('./tokens-cli.js')).TOKENS_CLI.usage,
  'feed-keys': async () => (await import('./feed-keys-cli.js')).FEED_KEYS_CLI.usage,
  calendars: async () => (await import('./calendars-cli.js')).CALENDARS_USAGE,
  'import-ics': async () => IMPORT_ICS_USAGE,
  'migrate-site': async () => MIGRATE_SITE_USAGE,
}

/** Runs `cal-events <argv>`; resolves with the exit code. */
export async function runCalEvents(
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
  print: CliOutput = { out: console.log, err: console.error },
  /** For `import-ics` and `migrate-site`: a database instead of the one the environment names (the examples' in-memory one). */
  options: CommandDatabaseOptions = {},
): Promise<number> {
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    if (command === undefined) {
      print.err(USAGE)
      return EXIT_USAGE
    }
    print.out(USAGE)
    return EXIT_OK
  }
  if (!Object.hasOwn(COMMAND_USAGE, command)) {
    print.err(`Unknown command ${JSON.stringify(command)}.\n\n${USAGE}`)
    return EXIT_USAGE
  }
  try {
    switch (command) {
      case 'serve':
        return await (await import('./serve.js')).runServe(rest, env, print)
      case 'migrate':
        if (rest.includes('--help') || rest.includes('-h')) {
          print.out(MIGRATE_USAGE)
          return EXIT_OK
        }
        if (rest.length > 0) throw new UsageError(`Unexpected argument ${JSON.stringify(rest[0])}.`)
        return await (await import('./migrate.js')).runMigrate(env, print.out, print.err)
      case 'tokens':
        return await (await import('./cli.js')).runCliMain((await import('./tokens-cli.js')).TOKENS_CLI, rest, env, print)
      case 'feed-keys':
        return await (await import('./cli.js')).runCliMain((await import('./feed-keys-cli.js')).FEED_KEYS_CLI, rest, env, print)
      case 'calendars':
        return await (await import('./calendars-cli.js')).runCalendarsCli(rest, env, print)
      case 'import-ics':
        return await (await import('./import-ics-command.js')).runImportIcs(rest, env, print, options)
      default:
        return await (await import('./migrate-site-command.js')).runMigrateSite(rest, env, print, options)
    }
  } catch (err) {
    if (err instanceof UsageError) {
      print.err(`${err.message}\n\n${await COMMAND_USAGE[command]!()}`)
      return EXIT_USAGE
    }
    print.err(err instanceof Error ? err.message : String(err))
    return EXIT_FAILED
  }
}
