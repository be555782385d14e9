/**
 * Copies a live calendar site into this calendar, with a progress bar and a summary.
 *
 *   pnpm --filter @cal-events/example-migrate-site migrate-site https://old.example.org --user admin --password "abcd efgh ijkl mnop"
 *   DATABASE_URL=postgres://… pnpm --filter @cal-events/example-migrate-site migrate-site https://old.example.org/wp-json/tribe/events/v1
 *   … migrate-site http://127.0.0.1:3000/cal/events/v1 --token cal_…  --concurrency 8
 *
 * The source is a site URL or its REST root (the reference plugin's `/wp-json/tribe/events/v1` or
 * ours, `/cal/events/v1`). Credentials are optional: without them only published items are copied.
 * Ctrl-C stops after the items in flight; run the same command again to resume (nothing is
 * created twice). Environment: DATABASE_URL (PostgreSQL), CAL_DATA_DIR (PGlite directory),
 * CAL_TIMEZONE (site time zone, default UTC). Exit code 0 when everything was copied, 1 on a
 * source error or when some items were refused, 130 when interrupted.
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import cliProgress from 'cli-progress'
import { createCalendar, type DatabaseOptions } from '@cal-events/core'
import { basicAuth, migrateSite, PHASES, SourceError } from './migrate-site.js'

const USAGE = 'usage: migrate-site <source-url> [--token TOKEN | --user LOGIN --password PASSWORD] [--concurrency N]'

let parsed
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: { token: { type: 'string' }, user: { type: 'string' }, password: { type: 'string' }, concurrency: { type: 'string' } },
  })
} catch (err) {
  console.error(`${(err as Error).message}\n${USAGE}`)
  process.exit(2)
}
const { values, positionals } = parsed
const concurrency = values.concurrency === undefined ? 4 : Number(values.concurrency)
if (positionals.length !== 1 || !Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32 || (values.user === undefined) !== (values.password === undefined)) {
  console.error(USAGE)
  process.exit(2)
}
// WordPress shows application passwords in groups of four; the spaces are not part of them.
const authorization = values.token
  ? `Bearer ${values.token}`
  : values.user !== undefined
    ? basicAuth(values.user, values.password!.replace(/\s+/g, ''))
    : undefined

const env = (name: string) => process.env[name]?.trim() || undefined
const cwd = env('INIT_CWD') ?? process.cwd()
const databaseUrl = env('DATABASE_URL')
const dataDir = env('CAL_DATA_DIR')
const database: DatabaseOptions = databaseUrl ? { url: databaseUrl } : dataDir ? { dataDir: resolve(cwd, dataDir) } : { memory: true }
if ('memory' in database) console.warn('warning: neither DATABASE_URL nor CAL_DATA_DIR is set; copying into an in-memory calendar that is lost on exit.')
const calendar = await createCalendar({ database, siteTimezone: env('CAL_TIMEZONE') ?? 'UTC' })

const controller = new AbortController()
process.once('SIGINT', () => {
  console.error('\nInterrupted: finishing the items in flight…')
  controller.abort()
})

const bar = new cliProgress.SingleBar(
  { format: '{phase} {bar} {value}/{total}', hideCursor: true, clearOnComplete: false },
  cliProgress.Presets.shades_classic,
)
let phase = ''
try {
  const summary = await migrateSite(calendar, positionals[0]!, {
    authorization,
    concurrency,
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
  console.log(`Source: ${summary.source}`)
  for (const p of PHASES) {
    const c = summary.counts[p]
    console.log(`${p.padEnd(11)} seen ${c.seen}, created ${c.created}, updated ${c.updated}, unchanged ${c.unchanged}, skipped ${c.skipped}`)
  }
  for (const failure of summary.failures) console.warn(`refused: ${failure}`)
  if (summary.interrupted) {
    console.log('Interrupted before the end: run the same command again to resume (nothing is created twice).')
    process.exitCode = 130
  } else if (summary.failures.length > 0) process.exitCode = 1
} catch (err) {
  if (phase) bar.stop()
  console.error(err instanceof SourceError ? `Source error: ${err.message}` : err)
  console.error('Nothing of the item being read was written; fix the source or the URL and run again to resume.')
  process.exitCode = 1
} finally {
  await calendar.close()
}
