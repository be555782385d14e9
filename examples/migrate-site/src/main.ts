/**
 * Copies a live calendar site into this calendar, with a progress bar and a summary:
 * `cal-events migrate-site` of @cal-events/cli (packages/cli/src/migrate-site.ts and
 * migrate-site-command.ts), copying into an in-memory calendar unless a database is configured.
 *
 *   pnpm --filter @cal-events/example-migrate-site migrate-site https://old.example.org --user admin --password "abcd efgh ijkl mnop"
 *   DATABASE_URL=postgres://… pnpm --filter @cal-events/example-migrate-site migrate-site https://old.example.org/wp-json/tribe/events/v1
 *   … migrate-site http://127.0.0.1:3000/cal/events/v1 --token cal_…  --concurrency 8
 *
 * Environment: DATABASE_URL (PostgreSQL), CAL_DATA_DIR (PGlite directory), CAL_TIMEZONE (site
 * time zone, default UTC). Exit code 0 when everything was copied, 1 on a source error or when
 * some items were refused, 2 on a mistake in the command line, 130 when interrupted.
 */
import { runCalEvents } from '@cal-events/cli'

const configured = process.env.DATABASE_URL?.trim() || process.env.CAL_DATA_DIR?.trim()
process.exitCode = await runCalEvents(['migrate-site', ...process.argv.slice(2)], process.env, undefined, configured ? {} : { database: { memory: true } })
