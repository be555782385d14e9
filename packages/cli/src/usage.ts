// The usage texts and exit codes, apart from the commands: `--help` loads none of them (nor the database driver).

/** Exit codes of every command (README): done, failed, a mistake in the command line, interrupted (Ctrl-C). */
export const EXIT_OK = 0
export const EXIT_FAILED = 1
export const EXIT_USAGE = 2
export const EXIT_INTERRUPTED = 130

/** A command-line mistake; the CLI prints it with the usage text. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** `cal-events --help`. */
export const USAGE = `Usage: cal-events <command> [options]   (cal-events <command> --help for its own)

Commands:
  serve          serve the REST API (PostgreSQL via DATABASE_URL, else embedded PGlite)
  migrate        apply pending database migrations and exit
  tokens         create, list and revoke API tokens
  feed-keys      create, list and revoke feed keys (subscribe URLs for calendar apps)
  calendars      create, list and delete the calendars of CAL_MULTI_CALENDAR=1 (tokens: --calendar KEY)
  import-ics     import an iCalendar (.ics) file, idempotent by UID
  migrate-site   copy a whole calendar from a live site (this API or the WordPress plugin's)

Every command reads the same environment (DATABASE_URL, CAL_DATA_DIR, CAL_DB_SCHEMA,
CAL_TIMEZONE, CAL_VARIANT, …: see the README of @cal-events/cli).

Exit codes: 0 done, 1 failed (bad environment, database or source error, refused items),
2 a mistake in the command line, 130 interrupted (migrate-site).`

/** `cal-events migrate --help`. */
export const MIGRATE_USAGE = `Usage:
  cal-events migrate

Applies pending migrations to the database the server's settings name (DATABASE_URL and
CAL_DB_SCHEMA, or PGlite in CAL_DATA_DIR) and exits: for deployments that migrate once before
starting servers with CAL_MIGRATE_ON_START=0.`

/** `cal-events serve --help`. */
export const SERVE_USAGE = `Usage:
  cal-events serve [--port <port>] [--host <address>]

Serves the calendar REST API at http://HOST:PORT/cal/events/v1, with /healthz, /readyz, the
reference page (…/reference) and, with CAL_METRICS=1, /metrics. Configured by the environment:
DATABASE_URL (PostgreSQL; else embedded PGlite in CAL_DATA_DIR, default ./.data/pglite), PORT
(3000), HOST (127.0.0.1), CAL_ADMIN_TOKEN, CAL_PUBLIC_URL, CAL_TIMEZONE, CAL_VARIANT and the
other CAL_* variables of the README. The options override PORT and HOST.
Stops on SIGTERM or Ctrl-C after the requests in flight (exit 0).`

/** `cal-events import-ics --help`. */
export const IMPORT_ICS_USAGE = `Usage:
  cal-events import-ics <file.ics>

Imports the events of an iCalendar file (venues, organizers, series and their exceptions) into the
calendar the server's settings name (DATABASE_URL, or PGlite in CAL_DATA_DIR; CAL_TIMEZONE for
floating times and all-day events). Idempotent by UID: a second run updates and creates nothing.
A progress bar is drawn on a terminal. With the embedded database, stop the server first.`

/** `cal-events migrate-site --help`. */
export const MIGRATE_SITE_USAGE = `Usage:
  cal-events migrate-site <source-url> [--token <token> | --user <login> --password <password>] [--concurrency <1-32>]

Copies a whole calendar (categories, tags, venues, organizers, events) from a live site into the
calendar the server's settings name (DATABASE_URL, or PGlite in CAL_DATA_DIR). The source is a
site URL or its REST root: the WordPress plugin's /wp-json/tribe/events/v1 or this API's
/cal/events/v1. Without credentials only published items are copied. Idempotent and resumable:
Ctrl-C stops after the items in flight (exit 130); the same command again resumes. A progress bar
per phase is drawn on a terminal. Exit 1 on a source error or when some items were refused.`
