import { NAMESPACE, WP_NAMESPACE } from '@cal-events/core'
import { EXIT_FAILED, EXIT_OK, parseCommandLine, type CliOutput } from './cli.js'
import { ConfigError, loadConfig, type LoadConfigOptions, type ServerConfig } from './config.js'
import { SERVE_USAGE } from './usage.js'
import { applyGcTuning } from './gc-tuning.js'
import { startServer } from './server.js'
import { startCalendarsServer } from './multi-server.js'


/** The database as a log line names it; the password stays out. */
export function describeDatabase(config: ServerConfig): string {
  const db = config.database
  if ('url' in db) return `PostgreSQL ${db.url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')}`
  if ('dataDir' in db) return `embedded PGlite in ${db.dataDir}`
  return 'embedded PGlite in memory'
}

/**
 * `cal-events serve` (and the example server's main): reads the environment, starts the server,
 * prints where it listens and any generated administrator token, and stops on SIGTERM/SIGINT.
 * Resolves with the exit code once stopped (or at once when it cannot start).
 */
export async function runServe(
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
  print: CliOutput = { out: console.log, err: console.error },
  options: LoadConfigOptions = {},
): Promise<number> {
  const parsed: { command: 'help' } | { command: 'serve'; port?: string; host?: string } = parseCommandLine(['serve', ...argv], { port: { type: 'string' }, host: { type: 'string' } }, {
    serve: ({ values, noMore }) => {
      noMore()
      return { command: 'serve' as const, port: values.port, host: values.host }
    },
  })
  if (parsed.command === 'help') {
    print.out(SERVE_USAGE)
    return EXIT_OK
  }
  applyGcTuning(env)
  let config: ServerConfig
  try {
    config = loadConfig({ ...env, ...(parsed.port !== undefined ? { PORT: parsed.port } : {}), ...(parsed.host !== undefined ? { HOST: parsed.host } : {}) }, options)
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    print.err(err.message)
    return EXIT_FAILED
  }

  print.out(`Opening ${describeDatabase(config)} (variant ${config.variant}, site time zone ${config.siteTimezone})…`)
  if (config.multiCalendar) return serveMany(config, print)
  let server
  try {
    server = await startServer(config)
  } catch (err) {
    print.err(`Could not start the server: ${err instanceof Error ? err.message : String(err)}`)
    return EXIT_FAILED
  }
  if (server.demo) {
    const d = server.demo
    print.out(`Seeded demo data: ${d.events} events, ${d.venues} venues, ${d.organizers} organizers, ${d.categories} categories, ${d.tags} tags.`)
  }
  if (server.generatedAdminToken) {
    print.out('')
    print.out('Administrator token (shown only once; keep it, or set CAL_ADMIN_TOKEN):')
    print.out(`  ${server.generatedAdminToken}`)
    print.out('')
  }
  print.out(`Calendar API listening at ${server.url}`)
  if (config.wpCompat) print.out(`  and, for clients of the WordPress plugin, at ${server.url.replace(NAMESPACE, WP_NAMESPACE)}`)

  return untilStopped(server, print)
}

/** `CAL_MULTI_CALENDAR=1`: every calendar of the registry under `/calendars/{key}`. */
async function serveMany(config: ServerConfig, print: CliOutput): Promise<number> {
  let server
  try {
    server = await startCalendarsServer(config)
  } catch (err) {
    print.err(`Could not start the server: ${err instanceof Error ? err.message : String(err)}`)
    return EXIT_FAILED
  }
  if (server.demo) {
    const d = server.demo
    print.out(`Seeded demo calendar ${d.key}: ${d.events} events, ${d.venues} venues, ${d.organizers} organizers, ${d.categories} categories, ${d.tags} tags.`)
  }
  const keys = (await server.calendars.list()).map((c) => c.key)
  print.out(`${keys.length} calendar(s)${keys.length > 0 ? `: ${keys.slice(0, 10).join(', ')}${keys.length > 10 ? ', …' : ''}` : ''}. Create one with: cal-events calendars create KEY`)
  print.out(`Calendars API listening at ${server.url}`)
  if (config.wpCompat) print.out(`  and, for clients of the WordPress plugin, at ${server.url.replace(NAMESPACE, WP_NAMESPACE)}`)
  return untilStopped(server, print)
}

/** Waits for SIGTERM or SIGINT, then closes the server; resolves with the exit code. */
function untilStopped(running: { close(): Promise<void> }, print: CliOutput): Promise<number> {
  return new Promise<number>((resolve) => {
    let stoppingSince = 0
    const stop = (signal: NodeJS.Signals) => {
      if (stoppingSince) {
        // A signal sent to the whole process group can arrive twice (once relayed by tsx); only a
        // later, deliberate second Ctrl-C forces the exit.
        if (Date.now() - stoppingSince < 1000) return
        print.err(`${signal} again: exiting immediately.`)
        process.exit(EXIT_FAILED)
      }
      stoppingSince = Date.now()
      print.out(`${signal} received: finishing in-flight requests and closing the database…`)
      running.close().then(
        () => {
          print.out('Stopped.')
          resolve(EXIT_OK)
        },
        (err: unknown) => {
          print.err(`Shutdown failed: ${err instanceof Error ? err.message : String(err)}`)
          resolve(EXIT_FAILED)
        },
      )
    }
    process.on('SIGTERM', stop)
    process.on('SIGINT', stop)
  })
}
