import { ParseArgsConfig, parseArgs } from 'node:util';
import { Calendar, DatabaseOptions, TokenInfo, FeedKeyInfo, CallOptions, Calendars, CalendarOptions } from '@cal-events/core';
import { IncomingMessage, ServerResponse, Server } from 'node:http';
import { DestinationStream, Logger } from 'pino';

/** Exit codes of every command (README): done, failed, a mistake in the command line, interrupted (Ctrl-C). */
declare const EXIT_OK = 0;
declare const EXIT_FAILED = 1;
declare const EXIT_USAGE = 2;
declare const EXIT_INTERRUPTED = 130;
/** A command-line mistake; the CLI prints it with the usage text. */
declare class UsageError extends Error {
    name: string;
}
/** `cal-events --help`. */
declare const USAGE = "Usage: cal-events <command> [options]   (cal-events <command> --help for its own)\n\nCommands:\n  serve          serve the REST API (PostgreSQL via DATABASE_URL, else embedded PGlite)\n  migrate        apply pending database migrations and exit\n  tokens         create, list and revoke API tokens\n  feed-keys      create, list and revoke feed keys (subscribe URLs for calendar apps)\n  calendars      create, list and delete the calendars of CAL_MULTI_CALENDAR=1 (tokens: --calendar KEY)\n  import-ics     import an iCalendar (.ics) file, idempotent by UID\n  migrate-site   copy a whole calendar from a live site (this API or the WordPress plugin's)\n\nEvery command reads the same environment (DATABASE_URL, CAL_DATA_DIR, CAL_DB_SCHEMA,\nCAL_TIMEZONE, CAL_VARIANT, \u2026: see the README of @cal-events/cli).\n\nExit codes: 0 done, 1 failed (bad environment, database or source error, refused items),\n2 a mistake in the command line, 130 interrupted (migrate-site).";
/** `cal-events migrate --help`. */
declare const MIGRATE_USAGE = "Usage:\n  cal-events migrate\n\nApplies pending migrations to the database the server's settings name (DATABASE_URL and\nCAL_DB_SCHEMA, or PGlite in CAL_DATA_DIR) and exits: for deployments that migrate once before\nstarting servers with CAL_MIGRATE_ON_START=0.";
/** `cal-events serve --help`. */
declare const SERVE_USAGE = "Usage:\n  cal-events serve [--port <port>] [--host <address>]\n\nServes the calendar REST API at http://HOST:PORT/cal/events/v1, with /healthz, /readyz, the\nreference page (\u2026/reference) and, with CAL_METRICS=1, /metrics. Configured by the environment:\nDATABASE_URL (PostgreSQL; else embedded PGlite in CAL_DATA_DIR, default ./.data/pglite), PORT\n(3000), HOST (127.0.0.1), CAL_ADMIN_TOKEN, CAL_PUBLIC_URL, CAL_TIMEZONE, CAL_VARIANT and the\nother CAL_* variables of the README. The options override PORT and HOST.\nStops on SIGTERM or Ctrl-C after the requests in flight (exit 0).";
/** `cal-events import-ics --help`. */
declare const IMPORT_ICS_USAGE = "Usage:\n  cal-events import-ics <file.ics>\n\nImports the events of an iCalendar file (venues, organizers, series and their exceptions) into the\ncalendar the server's settings name (DATABASE_URL, or PGlite in CAL_DATA_DIR; CAL_TIMEZONE for\nfloating times and all-day events). Idempotent by UID: a second run updates and creates nothing.\nA progress bar is drawn on a terminal. With the embedded database, stop the server first.";
/** `cal-events migrate-site --help`. */
declare const MIGRATE_SITE_USAGE = "Usage:\n  cal-events migrate-site <source-url> [--token <token> | --user <login> --password <password>] [--concurrency <1-32>]\n\nCopies a whole calendar (categories, tags, venues, organizers, events) from a live site into the\ncalendar the server's settings name (DATABASE_URL, or PGlite in CAL_DATA_DIR). The source is a\nsite URL or its REST root: the WordPress plugin's /wp-json/tribe/events/v1 or this API's\n/cal/events/v1. Without credentials only published items are copied. Idempotent and resumable:\nCtrl-C stops after the items in flight (exit 130); the same command again resumes. A progress bar\nper phase is drawn on a terminal. Exit 1 on a source error or when some items were refused.";

type Options = NonNullable<ParseArgsConfig['options']>;
type Values<O extends Options> = ReturnType<typeof parseArgs<{
    args: string[];
    allowPositionals: true;
    options: O & {
        help: {
            type: 'boolean';
            short: 'h';
        };
    };
}>>['values'];
/** What a command's parser gets: the option values, the words after the command, and a check that there are none. */
interface CommandLine<O extends Options> {
    values: Values<O>;
    rest: string[];
    /** Throws `UsageError` when words follow the command. */
    noMore(): void;
}
/**
 * Parses `<command> [words] [--options]` (plus `--help`/`-h`) and hands it to that command's
 * parser; throws `UsageError` for a bad option, no command or an unknown one.
 */
declare function parseCommandLine<O extends Options, C>(argv: readonly string[], options: O, commands: Record<string, (line: CommandLine<O>) => NoInfer<C>>): C | {
    command: 'help';
};
/** Rows under a header as an aligned text table; `empty` when there are no rows. */
declare function formatTable(header: readonly string[], rows: readonly (readonly string[])[], empty: string): string;
/** One command-line tool: its usage text, its parser and what runs a parsed command. */
interface CliTool<C extends {
    command: string;
}> {
    usage: string;
    parse(argv: readonly string[]): C;
    execute(cmd: C, calendar: Calendar, out: (line: string) => void): Promise<number>;
}
/** Where a tool prints: its results, and its mistakes and failures. */
interface CliOutput {
    out(line: string): void;
    err(line: string): void;
}
/**
 * Entry point of a tool: checks the arguments, opens the database `env` configures (running
 * migrations), runs, closes. Usage errors are printed with the usage text (exit 2); returns the exit code.
 */
declare function runCliMain<C extends {
    command: string;
}>(tool: CliTool<C>, argv: readonly string[], env?: Record<string, string | undefined>, print?: CliOutput): Promise<number>;

/** What a caller (the import-ics example) may set beside the environment. */
interface CommandDatabaseOptions {
    /** The database to use instead of the one the environment names. */
    database?: DatabaseOptions;
}
/** `cal-events import-ics <file>`: imports, prints the summary; returns the exit code. */
declare function runImportIcs(argv: readonly string[], env?: Record<string, string | undefined>, print?: CliOutput, options?: CommandDatabaseOptions): Promise<number>;

/** Runs `cal-events <argv>`; resolves with the exit code. */
declare function runCalEvents(argv: readonly string[], env?: Record<string, string | undefined>, print?: CliOutput, 
/** For `import-ics` and `migrate-site`: a database instead of the one the environment names (the examples' in-memory one). */
options?: CommandDatabaseOptions): Promise<number>;

/** Log levels the server accepts (`CAL_LOG_LEVEL`). */
declare const LOG_LEVELS: readonly ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
/** The URL with secret query values replaced, so a log line can never carry them. */
declare function redactUrl(url: string): string;
/** A structured JSON logger (pino). */
declare function createLogger(level: (typeof LOG_LEVELS)[number], destination?: DestinationStream): Logger;
/**
 * Express middleware: one JSON line per finished request (`request completed`, or `request
 * aborted` when the client left first) with a request id, method, redacted URL, status and time;
 * headers (Authorization, Cookie) and bodies never. Levels: 5xx error, 4xx warn, else info.
 * Hand-rolled rather than pino-http: that one builds a child logger and its bindings for every
 * request even when the level drops the line, which was most of the server's promoted
 * garbage under load.
 */
declare function requestLogger(logger: Logger): (req: IncomingMessage & {
    originalUrl?: string;
}, res: ServerResponse, next: () => void) => void;

/** Everything the server and the commands need, read once from the environment. */
interface ServerConfig {
    /** TCP port; `0` picks a free one. */
    port: number;
    host: string;
    variant: 'A' | 'B';
    siteTimezone: string;
    publicBaseUrl: string | undefined;
    /** PostgreSQL (`DATABASE_URL`), else embedded PGlite in `CAL_DATA_DIR`. */
    database: DatabaseOptions;
    /** PostgreSQL schema of the calendar's tables (`CAL_DB_SCHEMA`, default `cal_events`). */
    schema?: string;
    /** Registered as an administrator token on start (`CAL_ADMIN_TOKEN`). */
    adminToken: string | undefined;
    /** Seed the demo calendar into an empty database. */
    demo: boolean;
    /** Request log level (`CAL_LOG_LEVEL`, default `info`; `silent` turns logging off). */
    logLevel: (typeof LOG_LEVELS)[number];
    /** Express `trust proxy` (`CAL_TRUST_PROXY`): whose `X-Forwarded-Proto`/`-Host`/`-For` count. Default off. */
    trustProxy?: boolean | number | string;
    /** Serve Prometheus metrics at `GET /metrics` (`CAL_METRICS=1`). */
    metrics?: boolean;
    /** Compress responses of 1 KB and more for clients that accept it (`CAL_COMPRESSION`, default on). */
    compression?: boolean;
    /** Apply pending migrations on start (`CAL_MIGRATE_ON_START`, default on). */
    migrateOnStart?: boolean;
    /** How long a start waits for PostgreSQL to come up (`CAL_DB_WAIT_SECONDS`, default 10). */
    dbWaitMs?: number;
    /** Serve `GET /__stats` (SQL statements, requests, RSS) for the benchmark (`CAL_BENCH_STATS=1`). */
    benchStats?: boolean;
    /** Origins allowed cross-origin (`CAL_CORS_ORIGINS`, comma-separated; `*` = any origin, reads only); unset = off. */
    corsOrigins?: string[];
    /** Also serve `/wp-json/tribe/events/v1` with the reference's header names (`CAL_WP_COMPAT=1`). */
    wpCompat?: boolean;
    /** Serve many calendars, each under `/calendars/{key}` (`CAL_MULTI_CALENDAR=1`; docs/multi-calendar.md). */
    multiCalendar?: boolean;
    /** Megabytes for the hot-read cache of anonymous reads (`CAL_RESPONSE_CACHE_MB`, default 32; `0` turns it off). */
    responseCacheMb?: number;
}
/** The environment was unusable; the message names every bad variable. */
declare class ConfigError extends Error {
    name: string;
}
/** Where PGlite keeps the calendar when `CAL_DATA_DIR` is unset: `.data/pglite` under the working directory. */
declare function defaultDataDir(cwd?: string): string;
/** What a caller of `loadConfig` may set beside the environment. */
interface LoadConfigOptions {
    /** The PGlite directory when `CAL_DATA_DIR` is unset. Default `defaultDataDir()`. */
    defaultDataDir?: string;
}
/**
 * PostgreSQL's own sizing rule (about twice the cores plus a couple) for a database on this
 * machine, as in the example set-up: more connections than that only queue inside PostgreSQL.
 * On 2 cores, 6 measured 5-10% more list throughput than 10 and a lower p99 (BENCHMARKS.md).
 */
declare function defaultPoolSize(cores?: number): number;
/** Reads and validates the server's environment variables; throws `ConfigError`. */
declare function loadConfig(env?: Record<string, string | undefined>, options?: LoadConfigOptions): ServerConfig;

/** What `seedDemoData` created. */
interface DemoSummary {
    venues: number;
    organizers: number;
    categories: number;
    tags: number;
    events: number;
}
/** True when the calendar has no events (in any status, at any date) and no venues. */
declare function isCalendarEmpty(calendar: Calendar): Promise<boolean>;
/**
 * Seeds a small demo calendar through the script API: four venues (one in New York), three organizers, categories
 * (one with a child), tags and fifteen published events from yesterday to two months ahead,
 * placed relative to `now` so the default list window always shows them.
 */
declare function seedDemoData(calendar: Calendar, options?: {
    now?: Date;
}): Promise<DemoSummary>;

/** A running calendar server (`cal-events serve`, the example server). */
interface CalendarServer {
    /** The namespace URL, e.g. `http://127.0.0.1:3000/cal/events/v1`. */
    url: string;
    /** The Node HTTP server (already listening). */
    server: Server;
    calendar: Calendar;
    /** The administrator token created on this start (printed once), if one was created. */
    generatedAdminToken: string | undefined;
    /** What the demo seed created on this start, if it ran. */
    demo: DemoSummary | undefined;
    /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
    close(): Promise<void>;
}
/** Builds the calendar and the Express app, and listens. */
declare function startServer(config: ServerConfig, 
/** Where log lines go (tests capture them); default stdout. */
logDestination?: DestinationStream): Promise<CalendarServer>;

/** The database as a log line names it; the password stays out. */
declare function describeDatabase(config: ServerConfig): string;
/**
 * `cal-events serve` (and the example server's main): reads the environment, starts the server,
 * prints where it listens and any generated administrator token, and stops on SIGTERM/SIGINT.
 * Resolves with the exit code once stopped (or at once when it cannot start).
 */
declare function runServe(argv: readonly string[], env?: Record<string, string | undefined>, print?: CliOutput, options?: LoadConfigOptions): Promise<number>;

/** Options of the server's fast path. */
interface FastPathOptions {
    /** Compress as the `compression` middleware in front of the router does (its threshold), or not at all. */
    compression: {
        threshold: number;
    } | undefined;
}
/**
 * The hot-read cache's fast path in front of Express (docs/response-cache.md): a GET/HEAD under the
 * calendar's namespace whose anonymous answer is kept and still valid is written here, without
 * Express's routing and middleware; anything else returns `undefined` (at once, or once the shared
 * check is done) and goes to the Express app. The answer is what the app would send: the same
 * headers and bytes, compressed as `compression` would compress them, but from bytes compressed
 * once per kept answer (and with a `Content-Length` where `compression` streams chunks).
 *
 * Only for a server whose origin is its own `Host` (no `trust proxy`: then the origin can come from
 * `X-Forwarded-*`, which only Express's trust rules may read) and whose router is mounted at `/`.
 */
declare function cacheFastPath(calendar: Calendar, options: FastPathOptions): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> | undefined;

/**
 * V8 garbage-collector settings for this server's allocation pattern (many requests in flight,
 * each holding a page of rows for a few milliseconds), measured with `pnpm bench` (BENCHMARKS.md):
 * - no allocation-site pretenuring: V8 saw row and request objects outlive a scavenge and began
 *   allocating them straight in old space, so short-lived garbage filled old space and forced
 *   mark-compacts;
 * - old space may grow to 2x its live size between mark-compacts (V8 otherwise allows up to 4x
 *   when collection looks cheap, which put RSS over 200 MB for a 30 MB live heap).
 * Both are read at collection time, so setting them before the server starts is enough.
 * `CAL_GC_TUNING=0` leaves V8's defaults.
 */
declare const GC_FLAGS: readonly ["--no-allocation-site-pretenuring", "--heap-growing-percent=100"];
/** Applies `GC_FLAGS` unless `CAL_GC_TUNING=0`. */
declare function applyGcTuning(env?: NodeJS.ProcessEnv): boolean;

/**
 * `migrate`: applies pending migrations with the server's database settings and exits, for
 * deployments that migrate once before starting instances with CAL_MIGRATE_ON_START=0.
 * Returns the exit code; prints what it did.
 */
declare function runMigrate(env?: Record<string, string | undefined>, log?: (message?: any, ...optionalParams: any[]) => void, error?: (message?: any, ...optionalParams: any[]) => void): Promise<number>;

/** `tokens create`: issues a token for a user (created with that role when new). */
declare function createTokenCommand(calendar: Calendar, input: {
    role: string;
    name?: string;
    login?: string;
    expires?: string;
}): Promise<{
    token: string;
    info: TokenInfo;
}>;
/** `tokens list`: every token, newest first. */
declare function listTokensCommand(calendar: Calendar): Promise<TokenInfo[]>;
/**
 * `tokens revoke`: by numeric id, by prefix, or by the whole token (`cal_<prefix>_…`).
 * A numeric argument that matches no id is tried as a prefix.
 */
declare function revokeTokenCommand(calendar: Calendar, idOrPrefix: string): Promise<boolean>;
/** Tokens as an aligned text table. */
declare function formatTokenTable(tokens: readonly TokenInfo[]): string;
/** One parsed command line. */
type TokensCommand = {
    command: 'help';
} | {
    command: 'create';
    role: string;
    name?: string;
    login?: string;
    expires?: string;
} | {
    command: 'list';
} | {
    command: 'revoke';
    idOrPrefix: string;
};
/** Parses and checks the arguments (no database needed); throws `UsageError`. */
declare function parseTokensArgs(argv: readonly string[]): TokensCommand;
/** Runs a parsed command against an open calendar; returns the exit code. */
declare function executeTokensCommand(cmd: TokensCommand, calendar: Calendar, out?: (line: string) => void): Promise<number>;
/** Parses `argv` and runs it against an open calendar; returns the exit code. */
declare function runTokensCli(argv: readonly string[], calendar: Calendar, out?: (line: string) => void): Promise<number>;
/** The `tokens` tool, for `runCliMain`. */
declare const TOKENS_CLI: CliTool<TokensCommand>;

/** One parsed command line. */
type FeedKeysCommand = {
    command: 'help';
} | {
    command: 'create';
    login: string;
    name?: string;
    baseUrl?: string;
} | {
    command: 'list';
    login?: string;
} | {
    command: 'revoke';
    which: string;
};
/** Parses and checks the arguments (no database needed); throws `UsageError`. */
declare function parseFeedKeysArgs(argv: readonly string[]): FeedKeysCommand;
/** Feed keys as an aligned text table. */
declare function formatFeedKeyTable(keys: readonly FeedKeyInfo[]): string;
/** The subscribe URLs of a key, https and webcal forms. */
declare function feedUrls(baseUrl: string, key: string): string[];
/** Runs a parsed command against an open calendar; returns the exit code. */
declare function executeFeedKeysCommand(cmd: FeedKeysCommand, calendar: Calendar, out?: (line: string) => void): Promise<number>;
/** Parses `argv` and runs it against an open calendar; returns the exit code. */
declare function runFeedKeysCli(argv: readonly string[], calendar: Calendar, out?: (line: string) => void): Promise<number>;
/** The `feed-keys` tool, for `runCliMain`. */
declare const FEED_KEYS_CLI: CliTool<FeedKeysCommand>;

/** One calendar event the file describes. */
interface PlannedEvent {
    /** `origin_uid`: the UID, or `UID#RECURRENCE-ID` for an occurrence of a series. */
    origin: string;
    /** `cancel`: STATUS:CANCELLED, remove an earlier import. */
    /** `override`: change one occurrence of the series `series` (a RECURRENCE-ID VEVENT). */
    action: 'upsert' | 'cancel' | 'override';
    /** Body for `calendar.events.create`/`update` (without `origin_uid`). */
    input: Record<string, unknown>;
    /**
     * For a series: its occurrences as single events, imported instead when the calendar refuses
     * the series' `recurrence` (a rule it does not support).
     */
    expanded?: () => PlannedEvent[];
    /** For an override: the series' UID and the occurrence's RECURRENCE-ID. */
    series?: string;
    recurrenceId?: RecurrenceId;
}
/** A RECURRENCE-ID: its wall clock (`YYYYMMDDTHHMMSS`, or `YYYYMMDD` for a date) and frame. */
interface RecurrenceId {
    value: string;
    /** `UTC`, an IANA zone, or `''` for a floating time (the calendar's site zone). */
    zone: string;
}
/** The parsed file: what to write, and what was left out and why. */
interface IcsPlan {
    /** VEVENT components in the file. */
    vevents: number;
    events: PlannedEvent[];
    warnings: string[];
}
/** What an import did. */
interface IcsImportSummary {
    vevents: number;
    /** Calendar events the file describes (a series counts once, an expanded one per occurrence). */
    planned: number;
    created: number;
    updated: number;
    /** Cancelled in the file and never imported, or trashed in the calendar. */
    skipped: number;
    /** Cancelled in the file and moved to the trash now. */
    removed: number;
    warnings: string[];
}
/** Options of `planIcs()` and `importIcs()`. */
interface IcsImportOptions {
    /** Most occurrences imported from one recurring series. Default 100. */
    maxOccurrences?: number;
    /** Open-ended series (no COUNT or UNTIL) are expanded up to this instant. Default: one year from now. */
    horizon?: Date;
    /** Options of every script-API call (`{ as: principal }`, `{ language: 'es' }`). Default: administrator. */
    call?: CallOptions;
    /** Called after each event: `done` of `total`. */
    onProgress?: (done: number, total: number, event: PlannedEvent) => void;
}
/**
 * The calendar's occurrence key of a RECURRENCE-ID: its original start in UTC
 * (`20270201T170000Z`), or its date in an all-day series; floating times are read in `siteZone`.
 */
declare function occurrenceKey(rid: RecurrenceId, siteZone: string): string;
/** Parses an .ics text into the calendar events it describes; no database involved. */
declare function planIcs(icsText: string, options?: Omit<IcsImportOptions, 'call' | 'onProgress'>): IcsPlan;
/**
 * Imports an .ics text: creates the events not imported yet, updates those that were (found by
 * origin), and trashes earlier imports the file now marks cancelled. Events and series are written
 * by `calendar.events.import()` (batches of multi-row writes); a series the calendar refuses is
 * imported expanded, one event per occurrence (and an earlier import of it as a series is
 * trashed). Changed occurrences and cancellations follow, one call each.
 */
declare function importIcs(calendar: Calendar, icsText: string, options?: IcsImportOptions): Promise<IcsImportSummary>;

/**
 * Reading a live calendar site over HTTP: this API (`/cal/events/v1`) or the reference plugin's
 * (`/wp-json/tribe/events/v1`). Retries what may pass (429, 5xx, a dropped connection) with
 * backoff, follows redirects itself so a loop is named as one, and turns anything that is not the
 * calendar's JSON into a `SourceError` naming the URL.
 */
/** The source answered something a calendar API never answers; `url` is the request that did. */
declare class SourceError extends Error {
    readonly url: string;
    /** The HTTP status when the source answered one (a 404 of a probe is not an error). */
    readonly status?: number | undefined;
    name: string;
    constructor(url: string, problem: string, 
    /** The HTTP status when the source answered one (a 404 of a probe is not an error). */
    status?: number | undefined);
}
/** How the source is read. */
interface SourceOptions {
    /** `Authorization` header sent to the source's origin (never to another origin a redirect names). */
    authorization?: string;
    /** Tries per request for 429/5xx/connection failures. Default 5. */
    retries?: number;
    /** First backoff delay; doubled each retry (a `Retry-After` of up to a minute wins). Default 500 ms. */
    backoffMs?: number;
    /** Stops waiting and retrying. */
    signal?: AbortSignal;
    /** Default: the global `fetch`. */
    fetch?: typeof fetch;
}
/** A reader of one source. */
interface Source {
    /** The REST root, e.g. `https://site.example/wp-json/tribe/events/v1`. */
    readonly root: string;
    /** GETs a URL and returns its JSON object (or throws `SourceError`). */
    getJson(url: string): Promise<Record<string, unknown>>;
}

/**
 * Copies a whole calendar from a live site into a calendar through its script API: categories
 * (parents first), tags, venues, organizers, then events with their links, time zones, all-day
 * flags, costs, flags and image URLs, in every status the source's credentials can see.
 *
 * - Idempotent, so an interrupted run is resumed by running it again: events carry the source's
 *   `global_id` as `origin_uid` (found again by `calendar.events.import()`, as the ICS import
 *   does); terms, venues and organizers are found again by slug (a slug-less draft by name).
 *   What is already equal is left alone, what changed at the source is updated, nothing is
 *   created twice.
 * - Terms are one script-API call each; venues, organizers and events are written by the bulk
 *   imports (`venues.import()`, `organizers.import()`, `events.import()`) in batches, each in a
 *   transaction, so an item is written whole or not at all; a source that answers garbage stops
 *   the run with a `SourceError` naming the URL before anything of that item is written.
 * - Bounded concurrency within each phase (term writes, list pages asked at once); the events
 *   list is read on while its events are written. 429 and 5xx answers are retried with backoff.
 */

/** The phases of a run, in order. */
declare const PHASES: readonly ["categories", "tags", "venues", "organizers", "events"];
type Phase = (typeof PHASES)[number];
/** What a run did with one kind of item. */
interface PhaseCounts {
    /** Items read from the source. */
    seen: number;
    created: number;
    updated: number;
    /** Already equal in the target. */
    unchanged: number;
    /** Left alone: trashed in the target, or rejected by it (see `failures`). */
    skipped: number;
}
/** What a run did. */
interface MigrationSummary {
    /** The source's REST root that was read. */
    source: string;
    counts: Record<Phase, PhaseCounts>;
    /** Items the target refused, with the reason; the rest of the run went on. */
    failures: string[];
    /** The run was stopped through `signal` before it finished; run it again to resume. */
    interrupted: boolean;
}
/** Options of `migrateSite()`. */
interface MigrateSiteOptions extends SourceOptions {
    /** Parallel writes of terms, and pages of a source list asked at once. Default 4. */
    concurrency?: number;
    /** Options of every script-API call. Default: administrator. */
    call?: CallOptions;
    /**
     * Events hidden from listings (`hide_from_listings`) never appear in the source's event list;
     * find them by asking for each id between the listed ones (one request per unlisted id up to
     * the highest id seen). Default `true`.
     */
    findHidden?: boolean;
    /** Called after each item; `total` is the source's count for the phase. */
    onProgress?: (phase: Phase, done: number, total: number) => void;
}
/** `Authorization` value for a login and an application password (or one of our tokens). */
declare function basicAuth(login: string, password: string): string;
/** Copies the calendar at `source` (a REST root or a site URL) into `target`. */
declare function migrateSite(target: Calendar, source: string, options?: MigrateSiteOptions): Promise<MigrationSummary>;

/** `cal-events migrate-site <url>`: copies, prints the summary; returns the exit code. */
declare function runMigrateSite(argv: readonly string[], env?: Record<string, string | undefined>, print?: CliOutput, options?: CommandDatabaseOptions): Promise<number>;

/** Where the calendars are served: `/calendars/{key}/cal/events/v1`. */
declare const CALENDARS_MOUNT = "/calendars";
/** The key of the calendar the demo seed creates (`CAL_DEMO`) in a registry that has none. */
declare const DEMO_CALENDAR_KEY = "demo";
/** A running server of many calendars (`CAL_MULTI_CALENDAR=1`). */
interface CalendarsServer {
    /** The namespace URL with `{key}` for the calendar key, e.g. `http://127.0.0.1:3000/calendars/{key}/cal/events/v1`. */
    url: string;
    server: Server;
    calendars: Calendars;
    /** What the demo seed created on this start (the calendar `demo`), if it ran. */
    demo: (DemoSummary & {
        key: string;
    }) | undefined;
    /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
    close(): Promise<void>;
}
/**
 * The server of `CAL_MULTI_CALENDAR=1`: every calendar of the database's registry under
 * `/calendars/{key}` on one pool (an unknown key 404, a malformed one 400, in the error shape),
 * `/healthz` and `/readyz` for the shared database, the reference page, `/metrics` with
 * `CAL_METRICS=1` (each calendar's requests labelled by its key). Calendars are made with
 * `calendars create KEY`, their tokens with `tokens create --calendar KEY`; with `CAL_DEMO` on, a
 * registry without any calendar gets the calendar `demo`, seeded as the single server seeds its own.
 */
declare function startCalendarsServer(config: ServerConfig, logDestination?: DestinationStream): Promise<CalendarsServer>;

/**
 * The calendar options a configuration names, shared by one calendar (`serve`) and a calendar set
 * (`CAL_MULTI_CALENDAR=1`, the `calendars` and `--calendar` commands).
 */
declare function calendarsOptions(config: ServerConfig, onError?: (err: unknown) => void): Omit<CalendarOptions, 'schema' | 'authenticate'>;

/** `cal-events calendars --help`. */
declare const CALENDARS_USAGE = "Usage:\n  cal-events calendars create <key> [<key>\u2026]\n  cal-events calendars list\n  cal-events calendars delete <key> [<key>\u2026]\n\nThe calendars of a server started with CAL_MULTI_CALENDAR=1, each served at\n/calendars/<key>/cal/events/v1 (docs/multi-calendar.md). A key has lower-case letters, digits and\ninner hyphens, 1 to 50 characters. delete drops the calendar and all its data. Tokens of one\ncalendar: cal-events tokens create --calendar <key> --role \u2026 Uses the server's database settings\n(DATABASE_URL, or PGlite in CAL_DATA_DIR; with the embedded database, stop the server first).";
/** One parsed command line. */
type CalendarsCommand = {
    command: 'help';
} | {
    command: 'create' | 'delete';
    keys: string[];
} | {
    command: 'list';
};
/** Parses and checks the arguments (no database needed); throws `UsageError`. */
declare function parseCalendarsArgs(argv: readonly string[]): CalendarsCommand;
/** Runs a parsed command on an open calendar set; returns the exit code. */
declare function executeCalendarsCommand(cmd: CalendarsCommand, calendars: Calendars, print: CliOutput): Promise<number>;
/** `cal-events calendars …`: opens the database the environment names, runs, closes; returns the exit code. */
declare function runCalendarsCli(argv: readonly string[], env: Record<string, string | undefined>, print: CliOutput): Promise<number>;

export { CALENDARS_MOUNT, CALENDARS_USAGE, type CalendarServer, type CalendarsCommand, type CalendarsServer, type CliOutput, type CliTool, type CommandDatabaseOptions, type CommandLine, ConfigError, DEMO_CALENDAR_KEY, type DemoSummary, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, FEED_KEYS_CLI, type FastPathOptions, type FeedKeysCommand, GC_FLAGS, IMPORT_ICS_USAGE, type IcsImportOptions, type IcsImportSummary, type IcsPlan, LOG_LEVELS, type LoadConfigOptions, MIGRATE_SITE_USAGE, MIGRATE_USAGE, type MigrateSiteOptions, type MigrationSummary, PHASES, type Phase, type PhaseCounts, type PlannedEvent, type RecurrenceId, SERVE_USAGE, type ServerConfig, type Source, SourceError, TOKENS_CLI, type TokensCommand, USAGE, UsageError, applyGcTuning, basicAuth, cacheFastPath, calendarsOptions, createLogger, createTokenCommand, defaultDataDir, defaultPoolSize, describeDatabase, executeCalendarsCommand, executeFeedKeysCommand, executeTokensCommand, feedUrls, formatFeedKeyTable, formatTable, formatTokenTable, importIcs, isCalendarEmpty, listTokensCommand, loadConfig, migrateSite, occurrenceKey, parseCalendarsArgs, parseCommandLine, parseFeedKeysArgs, parseTokensArgs, planIcs, redactUrl, requestLogger, revokeTokenCommand, runCalEvents, runCalendarsCli, runCliMain, runFeedKeysCli, runImportIcs, runMigrate, runMigrateSite, runServe, runTokensCli, seedDemoData, startCalendarsServer, startServer };
