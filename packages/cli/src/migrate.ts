import { migrateCalendar } from '@cal-events/core'
import { ConfigError, loadConfig } from './config.js'

/**
 * `migrate`: applies pending migrations with the server's database settings and exits, for
 * deployments that migrate once before starting instances with CAL_MIGRATE_ON_START=0.
 * Returns the exit code; prints what it did.
 */
export async function runMigrate(env: Record<string, string | undefined> = process.env, log = console.log, error = console.error): Promise<number> {
  try {
    const config = loadConfig(env)
    const report = await migrateCalendar({ database: config.database, ...(config.schema ? { schema: config.schema } : {}) })
    const schema = config.schema ?? 'cal_events'
    if (report.adopted) log(`Moved the calendar's tables from public into the schema ${schema}.`)
    log(report.applied.length === 0 ? `Schema ${schema} is up to date.` : `Applied ${report.applied.length} migration(s) to ${schema}: ${report.applied.join(', ')}.`)
    return 0
  } catch (err) {
    error(err instanceof ConfigError || err instanceof Error ? err.message : String(err))
    return 1
  }
}
