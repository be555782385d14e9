import cliProgress from 'cli-progress'
import { createCalendar } from '@cal-events/core'
import { EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, parseCommandLine, UsageError, type CliOutput } from './cli.js'
import { MIGRATE_SITE_USAGE } from './usage.js'
import { loadConfig } from './config.js'
import type { CommandDatabaseOptions } from './import-ics-command.js'
import { basicAuth, migrateSite, PHASES, SourceError } from './migrate-site.js'


/** `cal-events migrate-site <url>`: copies, prints the summary; returns the exit code. */
export async function runMigrateSite(
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
  print: CliOutput = { out: console.log, err: console.error },
  options: CommandDatabaseOptions = {},
): Promise<number> {
  const parsed: { command: 'help' } | { command: 'migrate-site'; source: string; concurrency: number; authorization: string | undefined } = parseCommandLine(
    ['migrate-site', ...argv],
    { token: { type: 'string' }, user: { type: 'string' }, password: { type: 'string' }, concurrency: { type: 'string' } },
    {
      'migrate-site': ({ values, rest }) => {
        if (rest.length !== 1) throw new UsageError('migrate-site takes exactly one source URL.')
        const concurrency = values.concurrency === undefined ? 4 : Number(values.concurrency)
        if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32) throw new UsageError('--concurrency takes a whole number from 1 to 32.')
        if ((values.user === undefined) !== (values.password === undefined)) throw new UsageError('--user and --password go together.')
        // WordPress shows application passwords in groups of four; the spaces are not part of them.
        const authorization = values.token
          ? `Bearer ${values.token}`
          : values.user !== undefined
            ? basicAuth(values.user, values.password!.replace(/\s+/g, ''))
            : undefined
        return { command: 'migrate-site' as const, source: rest[0]!, concurrency, authorization }
      },
    },
  )
  if (parsed.command === 'help') {
    print.out(MIGRATE_SITE_USAGE)
    return EXIT_OK
  }
  const config = loadConfig(env)
  const database = options.database ?? config.database
  if ('memory' in database) print.err('warning: copying into an in-memory calendar that is lost on exit.')
  const calendar = await createCalendar({ database, siteTimezone: config.siteTimezone, variant: config.variant, ...(config.schema ? { schema: config.schema } : {}) })

  const controller = new AbortController()
  const interrupt = () => {
    print.err('\nInterrupted: finishing the items in flight…')
    controller.abort()
  }
  process.once('SIGINT', interrupt)
  const bar = new cliProgress.SingleBar({ format: '{phase} {bar} {value}/{total}', hideCursor: true, clearOnComplete: false }, cliProgress.Presets.shades_classic)
  let phase = ''
  try {
    const summary = await migrateSite(calendar, parsed.source, {
      authorization: parsed.authorization,
      concurrency: parsed.concurrency,
      signal: controller.signal,
      onProgress(current, done, total) {
        if (current !== phase) {
          if (phase) bar.stop()
          phase = current
          bar.start(total, 0, { phase: current.padEnd(10) })
        }
        bar.update(done)
      },
    })
    if (phase) bar.stop()
    print.out(`Source: ${summary.source}`)
    for (const p of PHASES) {
      const c = summary.counts[p]
      print.out(`${p.padEnd(11)} seen ${c.seen}, created ${c.created}, updated ${c.updated}, unchanged ${c.unchanged}, skipped ${c.skipped}`)
    }
    for (const failure of summary.failures) print.err(`refused: ${failure}`)
    if (summary.interrupted) {
      print.out('Interrupted before the end: run the same command again to resume (nothing is created twice).')
      return EXIT_INTERRUPTED
    }
    return summary.failures.length > 0 ? EXIT_FAILED : EXIT_OK
  } catch (err) {
    if (phase) bar.stop()
    print.err(err instanceof SourceError ? `Source error: ${err.message}` : err instanceof Error ? err.message : String(err))
    print.err('Nothing of the item being read was written; fix the source or the URL and run again to resume.')
    return EXIT_FAILED
  } finally {
    process.off('SIGINT', interrupt)
    await calendar.close()
  }
}
