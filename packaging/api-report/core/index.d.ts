import * as zod from 'zod';
import { z } from 'zod';
import { ColumnType, Transaction, Kysely } from 'kysely';
import * as zod_v4_core from 'zod/v4/core';

/** What differs between the two variants of the API; code asks this, never the variant's name. */
interface VariantConfig {
    /** Variant name as configured (`A` base, `B` multilingual). */
    readonly name: 'A' | 'B';
    /** Default `per_page` of every list. */
    readonly perPageDefault: number;
    /** Whether routes declare `ml_language`; the language list itself comes from the options. */
    readonly multilingual: boolean;
    /** Extra `/events` list parameters (`starts_*`, `ends_*`, `strict_dates`, `ticketed`). */
    readonly boundsFilters: boolean;
    /** Whether `password` is declared on the event by-id routes. */
    readonly passwordParam: boolean;
}

/** Roles of CONTRACT 3.1, weakest first. */
declare const ROLES: readonly ["subscriber", "contributor", "author", "editor", "administrator"];
/** A role name. */
type Role = (typeof ROLES)[number];
/** Who is calling: a user id (the `author` of what they create) and a role. */
interface Principal {
    readonly id: number;
    readonly role: Role;
}

/** One statement as pg's `client.query(config)` takes it. */
interface HostQueryConfig {
    text: string;
    values?: unknown[];
    name?: string;
    /** The calendar's type parsers, per query: the host's own parsers stay as the host set them. */
    types?: unknown;
    /** Client-side give-up time (pg's `query_timeout`), per query. */
    query_timeout?: number;
}
/** What the calendar uses of a host's pg client (`pg.PoolClient`, `pg.Client`). */
interface HostClient {
    query(config: HostQueryConfig): Promise<unknown>;
}
/** What the calendar uses of a checked-out client of the host's pool (`pg.PoolClient`). */
interface HostPoolClient extends HostClient {
    release(err?: Error | boolean): void;
    on(event: 'error', listener: (err: Error) => void): unknown;
    removeListener(event: 'error', listener: (err: Error) => void): unknown;
}
/** What the calendar uses of a host's `pg.Pool`: checkouts, and its counts for `poolStats()`. */
interface HostPool {
    connect(): Promise<HostPoolClient>;
    readonly totalCount: number;
    readonly idleCount: number;
    readonly waitingCount: number;
}

/**
 * A PGlite instance (`new PGlite()` / `PGlite.create()` of `@electric-sql/pglite`), described by
 * shape: these declarations never load PGlite's own, so an app on PostgreSQL needs no PGlite (nor
 * its types) installed.
 */
interface PGliteInstance {
    readonly waitReady: Promise<void>;
    query(query: string, params?: unknown[]): Promise<{
        rows: unknown[];
    }>;
    exec(query: string): Promise<{
        rows: unknown[];
    }[]>;
    close(): Promise<void>;
}
/**
 * Where the calendar keeps its data. The embedded choices (`dataDir`, `memory`, `pglite`) need the
 * optional peer dependency `@electric-sql/pglite` installed.
 */
type DatabaseOptions = 
/** A PostgreSQL server (`postgres://user@host:5432/db`). */
{
    url: string;
    poolSize?: number;
    connectionTimeoutMs?: number;
    statementTimeoutMs?: number;
    /**
     * Run hot statements as named prepared statements. Default true, but false with
     * `pooler: 'transaction'`: set it true there only when the pooler keeps protocol-level prepared
     * statements (PgBouncer 1.21 or later with `max_prepared_statements` > 0).
     */
    preparedStatements?: boolean;
    /** On start, wait this long for a server that is not up yet before giving up (default 0: one try). */
    startupWaitMs?: number;
    /**
     * `'transaction'`: the URL is a transaction-mode pooler (PgBouncer): no startup parameters, no
     * session state (search path and timeout set per transaction), no named prepared statements
     * unless `preparedStatements: true`.
     */
    pooler?: 'transaction';
    /**
     * Streaming replicas of this database (`postgres://` URLs, opened with the same settings):
     * anonymous reads go to one that has replayed what the caller wrote or was answered
     * (`Cal-Read-After`), else to the primary (docs/production.md "Read replicas").
     */
    replicas?: string[];
    /** A replica further behind the primary than this is skipped until it catches up (default 10,000 ms). */
    replicaMaxLagMs?: number;
}
/**
 * The host's own `pg.Pool`: never closed by the calendar, and its connections handed back with
 * their session settings as they were (search path and statement timeout are set per transaction
 * only). README "Embedding".
 */
 | {
    pool: HostPool;
    /** Limit of each of the calendar's statements on the host's connections (default 30 s); the host's own keep theirs. */
    statementTimeoutMs?: number;
    /** As for `url` (default true): hot statements are prepared on the host's connections under names starting `cal_`. */
    preparedStatements?: boolean;
}
/** Embedded PGlite persisted in a directory (guarded against a second process). */
 | {
    dataDir: string;
}
/** Embedded PGlite in memory (lost on close). */
 | {
    memory: true;
}
/** A PGlite instance owned by the caller (not closed by the calendar). */
 | {
    pglite: PGliteInstance;
};

/**
 * How many wrong guesses one key may make per window: a wrong event password per (event, client)
 * (issue 15 item 5), a failed login per client (issue 28).
 */
interface GuessLimit {
    readonly attempts: number;
    readonly windowMs: number;
    /** Most keys remembered at once; the oldest are forgotten first. */
    readonly maxKeys: number;
}

/** Cross-origin access for browser clients on other sites (off unless configured). */
interface CorsOptions {
    /**
     * Origins allowed to call every method of the API with credentials (`https://admin.example.org`),
     * and/or `'*'`: any other origin may read (`GET`/`HEAD`) anonymously, without credentials.
     */
    origins: readonly string[];
    /** How long browsers may cache a preflight answer. Default 600 seconds. */
    maxAgeSeconds?: number;
}

/** Bounds of the hot-read cache (`responseCache` option of `createCalendar`). */
interface ResponseCacheOptions {
    /** Approximate memory for kept answers: characters of body and headers, plus a fixed cost per entry. */
    maxBytes: number;
    /** Most answers kept. */
    maxEntries: number;
}
/** Bounds of iCalendar feeds (`feeds` option of `createCalendar`). */
interface FeedOptions {
    /** Feeds built at the same time; a build that finds none free waits in the queue. */
    concurrency: number;
    /** Builds that may wait for a free slot; one more is answered 503 at once. */
    queue: number;
    /** How long a build waits in the queue before it is answered 503. */
    queueWaitMs: number;
    /** Most events one feed holds (the first ones in list order). */
    maxEvents: number;
    /** Memory for kept feeds, in characters of text (a feed of 25,000 events is about 20 MB); 0 keeps none. */
    cacheBytes: number;
    /** Worker threads that build feeds' text off the event loop; 0 builds it on the event loop, in slices. */
    workers: number;
}

/** Who keeps unfiltered HTML: editors and up (WordPress single site), or nobody. */
type UnfilteredHtml = 'editors' | 'nobody';
/**
 * What an `authenticate` hook sees of a request: these fields of `CalendarRequest`, under the same
 * names (`native` is the adapter's own request object).
 */
interface AuthenticateRequest {
    method: string;
    /** Path below the mount point, starting with `/cal/events/v1`. */
    path: string;
    headers: Record<string, string | string[] | undefined>;
    native?: unknown;
}
/**
 * Hook that turns a request into a principal; `null` = anonymous. Throwing rejects the request.
 * `native` is the adapter's own request (Express: `req`, so `req.session` or `req.user` of the host).
 */
type Authenticate = (request: AuthenticateRequest) => Principal | null | undefined | Promise<Principal | null | undefined>;
/** Options of `createCalendar()`. */
interface CalendarOptions {
    /** `A` (base, default) or `B` (multilingual). */
    variant?: 'A' | 'B';
    /** Languages of variant B, default language first. Default `['en', 'es']`. */
    languages?: string[];
    /** Site time zone (IANA name or `UTC±h`). Default `UTC`. */
    siteTimezone?: string;
    /** Public site URL used for `url`, `global_id` and term archive links. Default: the request's origin. */
    publicBaseUrl?: string;
    /** Database. Default: embedded PGlite in memory (with `@electric-sql/pglite` installed). */
    database?: DatabaseOptions;
    /**
     * PostgreSQL schema for the calendar's tables, functions and migration records, created by the
     * migrations; nothing else in the database is touched. Default `cal_events`.
     */
    schema?: string;
    /** Run pending migrations on start. Default `true`. */
    migrate?: boolean;
    /** Replaces the default bearer-token authenticator. */
    authenticate?: Authenticate;
    /** How list date bounds compare (CONTRACT O-11). Default `event-local`. */
    dateFilterMode?: 'event-local' | 'utc';
    /** Largest request body in bytes. Default 1 MB. */
    maxBodyBytes?: number;
    /** Called with every unexpected error (the response says only "Internal server error."). */
    onError?: (err: unknown) => void;
    /** Called after every SQL statement with its parameters (statement counting, tracing, replaying). */
    onQuery?: (sql: string, durationMs: number, parameters: readonly unknown[]) => void;
    /**
     * Wrong password guesses one client may make on one event per window before getting 429
     * (variant B). Default 10 per 60 s, remembering at most 10,000 (event, client) pairs.
     */
    passwordGuesses?: {
        attempts?: number;
        windowMs?: number;
        maxKeys?: number;
    };
    /**
     * Failed logins (a well-formed Bearer token or Basic `login:token` that is wrong, unknown,
     * revoked or expired) one client may make per window before every request with credentials
     * gets 429 until the window ends. Default 10 per 60 s, remembering at most 10,000 clients. Not
     * used with an `authenticate` hook (the host checks its own credentials), nor for requests that
     * name no `client` (one count shared by all would lock everybody out).
     */
    loginGuesses?: {
        attempts?: number;
        windowMs?: number;
        maxKeys?: number;
    };
    /**
     * Who keeps unfiltered HTML in descriptions, excerpts, titles and names: `'editors'` (editors and
     * administrators, as WordPress on a single site; default) or `'nobody'`. Everybody else's HTML is
     * reduced to the documented allow-list on write.
     */
    unfilteredHtml?: UnfilteredHtml;
    /** Clock, for tests. Default `() => new Date()`. */
    now?: () => Date;
    /** Cross-origin access for browser clients on other sites. Default: off (no CORS headers). */
    cors?: CorsOptions;
    /**
     * Also serve the API under the reference plugin's path `/wp-json/tribe/events/v1`, with its
     * header names (`X-TEC-Total`) and `rest_url`s into that path. Default `false`.
     */
    wpCompat?: boolean;
    /**
     * The hot-read cache: anonymous GET/HEAD answers kept in memory and served again while the change
     * log shows no write since they were read (one small statement per request instead of the
     * read; docs/response-cache.md). `false` turns it off. Default on, 32 MB and 10,000 answers.
     */
    responseCache?: Partial<ResponseCacheOptions> | false;
    /**
     * Bounds of iCalendar feeds (docs/ical.md "Bounds and the shared answer"): builds at once
     * (`concurrency`, default 1), builds waiting for one (`queue`, 4, each at most `queueWaitMs`,
     * 5000; beyond, `503 rest_feed_busy` with `Retry-After`), events per feed (`maxEvents`, 25,000)
     * and memory for kept feeds shared by every poll (`cacheBytes`, 64 MB; 0 keeps none), worker
     * threads that build the text off the event loop (`workers`, 1; 0 builds it on the loop in slices).
     */
    feeds?: Partial<FeedOptions>;
}
/** Options after validation and defaults; never mutated. */
interface ResolvedOptions {
    readonly variant: VariantConfig;
    /** Languages of variant B (default first); empty in variant A. */
    readonly languages: readonly string[];
    readonly siteTimezone: string;
    readonly publicBaseUrl: string | undefined;
    readonly dateFilterMode: 'event-local' | 'utc';
    readonly maxBodyBytes: number;
    readonly migrate: boolean;
    readonly unfilteredHtml: UnfilteredHtml;
    readonly passwordGuesses: GuessLimit;
    readonly loginGuesses: GuessLimit;
    readonly schema: string;
    readonly database: DatabaseOptions;
    readonly authenticate: Authenticate | undefined;
    readonly onError: ((err: unknown) => void) | undefined;
    readonly onQuery: ((sql: string, durationMs: number, parameters: readonly unknown[]) => void) | undefined;
    readonly now: () => Date;
    readonly cors: CorsOptions | undefined;
    readonly wpCompat: boolean;
    /** The hot-read cache's bounds, or `false` when it is off. */
    readonly responseCache: ResponseCacheOptions | false;
    /** Bounds of iCalendar feeds. */
    readonly feeds: FeedOptions;
    /**
     * A calendar of a set (`createCalendars`): without a `publicBaseUrl`, its site links (`url`,
     * `global_id`, term links) sit under the mount too, so two calendars' links never meet.
     */
    readonly siteUnderMount?: boolean;
}

/**
 * This file was generated by kysely-codegen.
 * Please do not edit it manually.
 */

type Generated<T> = T extends ColumnType<infer S, infer I, infer U> ? ColumnType<S, I | undefined, U> : ColumnType<T, T | undefined, T>;
type Json = JsonValue;
type JsonArray = JsonValue[];
type JsonObject = {
    [x: string]: JsonValue | undefined;
};
type JsonPrimitive = boolean | number | string | null;
type JsonValue = JsonArray | JsonObject | JsonPrimitive;
interface ApiTokens {
    created_utc: Generated<string>;
    expires_utc: string | null;
    id: Generated<number>;
    last_used_utc: string | null;
    name: Generated<string>;
    prefix: string;
    revoked_utc: string | null;
    secret_hash: string;
    user_id: number;
}
interface CalChangeHorizon {
    one: Generated<boolean>;
    snapshot: string | null;
    xid: string;
}
interface CalChanges {
    at: Generated<string>;
    tbl: string;
    xid: string;
}
interface CalCredentialsVersion {
    one: Generated<boolean>;
    version: number;
}
interface CalFeedKeys {
    created_utc: Generated<string>;
    id: Generated<number>;
    last_used_utc: string | null;
    name: Generated<string>;
    prefix: string;
    revoked_utc: string | null;
    secret_hash: string;
    user_id: number;
}
interface CalIdempotencyKeys {
    body: Json | null;
    created_utc: Generated<string>;
    fingerprint: string;
    key: string;
    location: string | null;
    status: number | null;
    user_id: number;
}
interface CalRowChanges {
    id: number;
    kind: string;
    xid: string;
}
interface CalSyncSecret {
    one: Generated<boolean>;
    secret: Generated<string>;
}
interface CalTermCountDeltas {
    delta: number;
    term_id: number;
}
interface EventOccurrenceHorizon {
    one: Generated<boolean>;
    until: string | null;
}
interface EventOccurrences {
    author_id: number | null;
    date_utc: string;
    end_local: string;
    end_utc: string;
    featured: boolean;
    hide_from_listings: boolean;
    language: string;
    occurrence_key: string;
    overridden: Generated<boolean>;
    series_id: number;
    start_local: string;
    start_utc: string;
    status: string;
    venue_id: number | null;
}
interface EventOrganizers {
    event_id: number;
    organizer_id: number;
    position: Generated<number>;
}
interface Events {
    all_day: Generated<boolean>;
    author_id: number | null;
    cost_position: Generated<string>;
    cost_symbol: Generated<string>;
    cost_values: Generated<string[]>;
    date_floating: Generated<boolean>;
    date_utc: string;
    description: Generated<string>;
    end_local: string;
    end_utc: string;
    exception_key: string | null;
    exception_of: number | null;
    excerpt: Generated<string>;
    featured: Generated<boolean>;
    hide_from_listings: Generated<boolean>;
    id: Generated<number>;
    image_id: number | null;
    language: Generated<string>;
    modified_utc: string;
    origin_uid: string | null;
    password: string | null;
    post_parent: number | null;
    recurrence: string[] | null;
    revision: Generated<number>;
    show_map: Generated<boolean>;
    show_map_link: Generated<boolean>;
    slug: Generated<string>;
    split_from: number | null;
    start_local: string;
    start_utc: string;
    status: string;
    sticky: Generated<boolean>;
    timezone: Generated<string>;
    title: Generated<string>;
    translation_group: number | null;
    venue_id: number | null;
    website: string | null;
}
interface EventTerms {
    event_id: number;
    term_id: number;
}
interface Images {
    created_utc: Generated<string>;
    extension: Generated<string>;
    height: number | null;
    id: Generated<number>;
    url: string;
    width: number | null;
}
interface Organizers {
    author_id: number | null;
    date_floating: Generated<boolean>;
    date_utc: string;
    description: Generated<string>;
    email: Generated<string>;
    excerpt: Generated<string>;
    id: Generated<number>;
    image_id: number | null;
    language: Generated<string>;
    modified_utc: string;
    phone: Generated<string>;
    slug: Generated<string>;
    status: string;
    title: Generated<string>;
    translation_group: number | null;
    website: Generated<string>;
}
interface Terms {
    count: Generated<number>;
    description: Generated<string>;
    id: Generated<number>;
    language: Generated<string>;
    name: string;
    parent_id: number | null;
    slug: string;
    taxonomy: string;
}
interface Users {
    created_utc: Generated<string>;
    display_name: Generated<string>;
    id: Generated<number>;
    login: string;
    role: string;
}
interface Venues {
    address: Generated<string>;
    author_id: number | null;
    city: Generated<string>;
    country: Generated<string>;
    date_floating: Generated<boolean>;
    date_utc: string;
    description: Generated<string>;
    excerpt: Generated<string>;
    geo_lat: number | null;
    geo_lng: number | null;
    id: Generated<number>;
    image_id: number | null;
    language: Generated<string>;
    modified_utc: string;
    phone: Generated<string>;
    province: Generated<string>;
    show_map: Generated<boolean>;
    show_map_link: Generated<boolean>;
    slug: Generated<string>;
    state: Generated<string>;
    stateprovince: Generated<string>;
    status: string;
    title: Generated<string>;
    translation_group: number | null;
    website: Generated<string>;
    zip: Generated<string>;
}
interface DB {
    api_tokens: ApiTokens;
    cal_change_horizon: CalChangeHorizon;
    cal_changes: CalChanges;
    cal_credentials_version: CalCredentialsVersion;
    cal_feed_keys: CalFeedKeys;
    cal_idempotency_keys: CalIdempotencyKeys;
    cal_row_changes: CalRowChanges;
    cal_sync_secret: CalSyncSecret;
    cal_term_count_deltas: CalTermCountDeltas;
    event_occurrence_horizon: EventOccurrenceHorizon;
    event_occurrences: EventOccurrences;
    event_organizers: EventOrganizers;
    event_terms: EventTerms;
    events: Events;
    images: Images;
    organizers: Organizers;
    terms: Terms;
    users: Users;
    venues: Venues;
}

/** The event loop's delay over the last 10 to 20 seconds, in milliseconds. */
interface EventLoopDelay {
    /** How many seconds the figures cover (the window so far plus the one before it). */
    readonly windowSeconds: number;
    /** The longest the loop was late to run a timer in that time. */
    readonly maxDelayMs: number;
    /** The 99th percentile of its delays (of each of the two windows, the larger). */
    readonly p99DelayMs: number;
    readonly meanDelayMs: number;
}
/** The event loop's delay over the last 10 to 20 seconds (the monitor starts on the first call if need be). */
declare function eventLoopDelay(): EventLoopDelay;

/** What `calendar.health()` tells a readiness probe. */
interface HealthReport {
    /** The database answers and every migration of this version is applied. */
    readonly ready: boolean;
    readonly database: 'up' | 'down';
    /** Migrations of this version not applied yet (empty when the database is down: unknown). */
    readonly pendingMigrations: readonly string[];
    /** Connections of the PostgreSQL pool (absent for PGlite). */
    readonly pool?: PoolStats;
    /** How late the process's event loop has been over the last 10 to 20 seconds (`shared/loop-delay.ts`). */
    readonly eventLoop: EventLoopDelay;
    /** With read replicas: reads served by replicas and by the primary, and each replica's state. */
    readonly reads?: ReadStats;
    /** Why the database counts as down. */
    readonly error?: string;
}
/** Counts of the router, for tests, metrics and the bench. */
interface ReadStats {
    readonly replicaReads: number;
    readonly primaryReads: number;
    readonly fallbacks: number;
    /** Each replica in the order configured (no URL: `/readyz` shows this, and a URL names internal hosts): in use, known replay position, lag. */
    readonly replicas: readonly {
        up: boolean;
        replayed: string | undefined;
        lagMs: number | undefined;
    }[];
}
/** Connections of the PostgreSQL pool: open, idle, and requests waiting for one. */
interface PoolStats {
    readonly total: number;
    readonly idle: number;
    readonly waiting: number;
}

/** What one migration run did. */
interface MigrationReport {
    /** Migrations applied by this run, in order. */
    readonly applied: readonly string[];
    /** True when this run moved an earlier version's tables from `public` into the schema. */
    readonly adopted: boolean;
}

/** A framework-neutral HTTP request, as an adapter hands it to the calendar. */
interface CalendarRequest {
    method: string;
    /** Path below the mount point, starting with `/cal/events/v1`. */
    path: string;
    /** The raw query string, without the leading `?`. */
    query: string;
    headers: Record<string, string | string[] | undefined>;
    /**
     * The body: raw bytes (parsed by the calendar according to `content-type`), or a value
     * already parsed by a host middleware such as `express.json()`.
     */
    body?: unknown;
    /** Origin the request was addressed to (`http://host:port`), used when no public URL is configured. */
    origin?: string;
    /**
     * The client's address as the host sees it (Express: `req.ip`, which follows `trust proxy`).
     * Password guesses are counted per event and client.
     */
    client?: string;
    /** Path prefix the host mounted the calendar under (`/api`), used for `rest_url`s. */
    mountPath?: string;
    /**
     * The framework's own request object (the Express adapter passes its `req`). The calendar never
     * reads it; it is there for an `authenticate` hook that needs the host's session or user.
     */
    native?: unknown;
}
/** A framework-neutral HTTP response. */
interface CalendarResponse {
    status: number;
    headers: Record<string, string>;
    body: unknown;
    /**
     * When set, the response body is this text (in `Content-Type`'s charset, UTF-8), to be written
     * chunk by chunk in order instead of `body` as JSON. Iteration may fail part-way (the database
     * went away): the adapter then aborts the response, since its status is already sent.
     */
    stream?: AsyncIterable<string> | Iterable<string>;
    /**
     * `body` already serialised as JSON (the calendar did it to compute the `ETag`); an adapter
     * sends this instead of serialising `body` again.
     */
    text?: string;
}
/**
 * A kept answer of the hot-read cache, ready to write (`Calendar.cachedAnswer`): the same status,
 * headers and bytes an adapter writes for `handle`'s answer, `Content-Length` included.
 */
interface CachedAnswer {
    /** 200, or 304 when `If-None-Match` named the answer's tag. */
    status: number;
    /** Every header to send. Shared by the requests this answer serves: never change it. */
    headers: Readonly<Record<string, string>>;
    /** The body; `undefined` for `HEAD` and 304. */
    body: Uint8Array | undefined;
    /**
     * The body compressed with `encoding`, made once per kept answer and kept with it: for a host that
     * compresses responses (the example server's `compression`), so a hit is not compressed again.
     */
    encoded(encoding: 'br' | 'gzip' | 'deflate'): Uint8Array;
}

/** How the root descriptor describes an argument. */
interface ArgDoc {
    type?: string | string[];
    format?: string;
    enum?: readonly (string | number)[];
    items?: {
        type: string | string[];
        enum?: readonly string[];
    };
}
/** One declared parameter of an endpoint: `T` parsed, `I` as a caller may send it. */
interface ArgSpec<T = unknown, I = unknown> {
    readonly schema: z.ZodType<T, I>;
    readonly doc: ArgDoc;
    readonly required?: boolean;
    /** Declared default, applied when the parameter is absent. */
    readonly default?: unknown;
    /** `null` reaches the handler (it means "clear"); otherwise `null` counts as absent. */
    readonly nullable?: boolean;
    readonly description?: string;
    /** Reason shown in `data.params` when parsing fails. */
    readonly reason?: string;
    /**
     * How the OpenAPI document states the value when the schema cannot say it (a `z.unknown()`
     * refinement, a string read as a flag); a subset of what the schema accepts.
     */
    readonly openapi?: Record<string, unknown>;
    /** Another parameter this one must come with (a coordinate pair); the document states it. */
    readonly with?: string;
    /** What a sent value means to the request pipeline beyond the operation (api/policy.ts). */
    readonly policy?: ArgPolicy;
}
/**
 * A parameter's policy, declared with it so that the steps that care read it instead of lists of
 * names (docs/ARCHITECTURE.md "Request pipeline").
 */
interface ArgPolicy {
    /**
     * The hot-read cache (docs/response-cache.md): `uncached`, a request that sends it is never kept
     * (a counted password guess; a sync walk, whose answer depends on how far the change log was
     * pruned); `second`, its value may be relative to now or bound the answer to the second, so an
     * answer that read the clock holds within its second only (else within its minute).
     */
    readonly cache?: 'uncached' | 'second';
    /**
     * Sync walks (docs/sync.md): `walk`, one of the walk's own parameters (`sync`, `sync_token`,
     * `sync_page`); `paging`, the list's paging, which a walk replaces with its cursor (neither is a
     * filter a token is bound to); `refused`, a filter a walk cannot follow exactly (a date window
     * moves with the clock, which no write records; a filter over another collection's links).
     */
    readonly sync?: 'walk' | 'paging' | 'refused';
}

/** What a handler returns: the body, and a status/headers when they are not 200/none. */
interface OperationResult<R = unknown> {
    status?: number;
    headers?: Record<string, string>;
    body: R;
    /** A body that is not JSON (an iCalendar feed): text sent chunk by chunk; `body` is then unused. */
    stream?: TextStream;
    /**
     * A write that read its item back: what the item's by-id GET by the same caller answers now
     * (`null`: an error), so the new `ETag` costs no second read (http/preconditions.ts).
     */
    read?: OperationResult | null;
}
/** Text produced piece by piece, so that a large document never sits in memory whole. */
type TextStream = AsyncIterable<string> | Iterable<string>;

/** A request's fingerprint: the one stored with a new key, and whether a stored one is the same request. */
interface Fingerprint {
    readonly value: string;
    matches(stored: string): boolean;
}
/**
 * A create's key, claimed by the create's own transaction (`api/write.ts`): the claim commits or
 * rolls back with the write, so a create that fails leaves the key free, and one that committed
 * holds it even if its answer never gets stored.
 */
declare class IdempotencyClaim {
    readonly userId: number;
    readonly key: string;
    readonly fingerprint: Fingerprint;
    /** Set once the transaction holding the claim has committed. */
    committed: boolean;
    constructor(userId: number, key: string, fingerprint: Fingerprint);
    /**
     * Claims the key inside `trx`. A duplicate still in flight holds the row's lock: the insert waits
     * for that transaction to end rather than polling, then claims a key it rolled back.
     */
    claimIn(trx: Transaction<DB>): Promise<void>;
}

/** Absolute URL roots for one request. */
interface Urls {
    /** REST root including the namespace: `http://host/cal/events/v1`. */
    readonly rest: string;
    /** Public site URL: `http://host`. */
    readonly site: string;
    /** `global_id` prefix: host and path of the site URL, e.g. `cal.example.org`. */
    readonly globalIdBase: string;
}
/** What every service call knows about its caller and the service. */
interface CallContext {
    readonly principal: Principal | null;
    /** The client's address over HTTP; `''` for the script API and adapters that pass none. */
    readonly client: string;
    /** Active language in variant B; `''` in variant A. */
    readonly language: string;
    /**
     * The call's moment. Read it through `clock.now()` only: the hot-read cache keeps an answer that
     * read it for one clock slot only (docs/response-cache.md), and the clock records every read
     * whichever copy of the context made it.
     */
    readonly clock: RequestClock;
    readonly urls: Urls;
    readonly options: ResolvedOptions;
    readonly db: Kysely<DB>;
    /** When `db` is a read replica: its replay position known when it was chosen (`db/replicas.ts`). */
    readonly readPosition?: bigint;
    /** Raw parameters exactly as the client sent them, by source (`rest_url` echoes, renames). */
    readonly raw: RawParams;
    /** A create's `Idempotency-Key`, claimed by its write transaction (`api/write.ts`). */
    readonly idempotency?: IdempotencyClaim;
    /** A GET's validators (`If-None-Match`, `If-Modified-Since`), for operations that answer 304 themselves (feeds). */
    readonly conditional?: Conditional;
}
/**
 * The moment of one call, and whether anything in the call asked for it. It is an object of its
 * own, shared by every copy of the context (a spread copies the reference), so an answer that
 * depends on the time is known as such however the context was passed on.
 */
interface RequestClock {
    /** The call's moment (the same for the whole call); records that the answer may depend on it. */
    now(): Date;
    /** Whether `now()` was called so far. */
    readonly read: boolean;
}
/** The request's conditional headers, as sent. */
interface Conditional {
    readonly ifNoneMatch?: string;
    readonly ifModifiedSince?: string;
}
/** Parameters of a call by where they came from. */
interface RawParams {
    readonly path: Readonly<Record<string, string>>;
    readonly query: Readonly<Record<string, unknown>>;
    readonly body: Readonly<Record<string, unknown>>;
}
/** The REST namespace. */
declare const NAMESPACE = "cal/events/v1";
/** The reference plugin's REST path, served as well when the `wpCompat` option is on. */
declare const WP_NAMESPACE = "wp-json/tribe/events/v1";

/**
 * What an operation's answer reads, or its writes change, named as the change log records changes
 * (`changes/change-log.ts`, one name per tracked table): `events` stands for every kind of event
 * change (filtered, searched or other columns). The hot-read cache keeps an answer across changes
 * of kinds it does not read; so a read left out here is a stale answer, and is tested for.
 */
type Resource = 'events' | 'event_occurrences' | 'event_terms' | 'event_organizers' | 'venues' | 'organizers' | 'terms' | 'images' | 'users';
/**
 * A limit of wrong guesses, by its name in the calendar's options (`config/options.ts`): an event's
 * password per event and client (`passwordGuesses`), failed logins per client (`loginGuesses`).
 */
type GuessLimitName = 'passwordGuesses' | 'loginGuesses';
/** An operation's own policies, beside its parameters'. */
interface OperationPolicy {
    /** The rate limit its wrong guesses count against (an event read's password); the operation counts them with this limit. */
    readonly guesses?: GuessLimitName;
    /** What its answer may read, whatever was asked (anonymous or not). */
    readonly reads?: readonly Resource[];
    /** What it may change; `[]` for a read (a read that writes, as a window past the occurrence horizon may, says so). */
    readonly writes?: readonly Resource[];
    /**
     * `never`: the hot-read cache never keeps its answers: they read no data (the root descriptor,
     * `/doc`), are streamed text (feeds) or depend on more than the data (sync walks: how far the
     * change log was pruned). Otherwise an anonymous GET answered 200 with JSON may be kept.
     */
    readonly cache?: 'never';
    /** A create: an `Idempotency-Key` (or the script API's `idempotencyKey`) makes a retry return the first answer. */
    readonly idempotent?: boolean;
    /**
     * Read replicas (`db/replicas.ts`): `primary`, its anonymous reads stay on the primary like every
     * write (sync walks on their own path; the root descriptor and `/doc`, which read no data).
     */
    readonly replica?: 'primary';
}

/** Declared parameters of an endpoint, by name. */
type ArgsRecord = Record<string, ArgSpec>;
/**
 * What a script caller may pass for declared parameters: each one's wire input, all optional (the
 * operation checks required ones). A name that is not declared does not compile.
 */
type ArgInput<A extends ArgsRecord> = {
    [K in keyof A]?: NonNullable<A[K]> extends ArgSpec<unknown, infer I> ? I | null : never;
};
/** Parsed values of declared parameters; absent ones are `undefined` (or `null` when nullable). */
type ParsedArgs<A extends ArgsRecord> = {
    [K in keyof A]-?: NonNullable<A[K]> extends ArgSpec<infer T> ? T | undefined : never;
};
/**
 * One endpoint's behaviour, free of HTTP: declared parameters, then (in the contract's order,
 * CONTRACT 2.2) database-backed parameter rules, the permission check, and the handler.
 */
interface Operation<A extends ArgsRecord = ArgsRecord, P = ParsedArgs<A>, R = unknown> {
    readonly args: A;
    /**
     * Names the operation reads from `ctx.raw` without declaring them (a tag's `parent`, refused by
     * its own rule); the script API accepts them beside the declared ones.
     */
    readonly readsRaw?: readonly string[];
    /** What the request pipeline does for it beyond running it: caching, idempotency (api/policy.ts). */
    readonly policy?: OperationPolicy;
    /** Parameter rules that need the database (unknown ids are 400s); returns the prepared input. */
    prepare?(input: ParsedArgs<A>, ctx: CallContext): Promise<P>;
    /** Permission check; throws UNAUTHENTICATED/FORBIDDEN. */
    authorize?(input: P, ctx: CallContext): void | Promise<void>;
    run(input: P, ctx: CallContext): Promise<OperationResult<R>>;
}
/**
 * Any operation, whatever its parameters, prepared input and result: `P` and `R` are only ever
 * handed back to the operation's own methods, so this is what a route table or a wrapper holds.
 */
type AnyOperation = Operation<ArgsRecord, unknown, unknown>;

/**
 * The one error type of the service. `code` is an internal, stable name; the wire code and
 * the HTTP status come from the single table in `http/error-response.ts`.
 */
type CalendarErrorCode = 'NO_ROUTE' | 'INVALID_JSON' | 'PAYLOAD_TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE' | 'MISSING_PARAM' | 'INVALID_PARAM' | 'UNAUTHENTICATED' | 'FORBIDDEN' | 'INVALID_TOKEN' | 'INVALID_NAMESPACE' | 'EVENT_ARCHIVE_PAGE_NOT_FOUND' | 'VENUE_ARCHIVE_PAGE_NOT_FOUND' | 'ORGANIZER_ARCHIVE_PAGE_NOT_FOUND' | 'EVENT_NOT_FOUND' | 'EVENT_OCCURRENCE_NOT_FOUND' | 'INVALID_EVENT_ID' | 'EVENT_NO_LONGER_AVAILABLE' | 'EVENT_NOT_ACCESSIBLE' | 'EVENT_PASSWORD_PROTECTED' | 'EVENT_IN_TRASH' | 'VENUE_NOT_ACCESSIBLE' | 'ORGANIZER_NOT_ACCESSIBLE' | 'VENUE_IN_TRASH' | 'ORGANIZER_IN_TRASH' | 'COULD_NOT_CREATE_VENUE' | 'COULD_NOT_CREATE_ORGANIZER' | 'COULD_NOT_UPDATE_VENUE' | 'COULD_NOT_UPDATE_ORGANIZER' | 'INVALID_LINKED_POST_ID' | 'BAD_SEARCH_STRING' | 'TERM_EXISTS' | 'DUPLICATE_TERM_SLUG' | 'TAXONOMY_NOT_HIERARCHICAL' | 'TOO_MANY_REQUESTS' | 'INVALID_HOST' | 'IDEMPOTENCY_KEY_INVALID' | 'IDEMPOTENCY_KEY_REUSED' | 'IDEMPOTENCY_KEY_IN_PROGRESS' | 'SYNC_TOKEN_INVALID' | 'SYNC_TOKEN_EXPIRED' | 'SYNC_TOKEN_MISMATCH' | 'INVALID_IF_MATCH' | 'PRECONDITION_FAILED' | 'DATABASE_UNAVAILABLE' | 'FEED_BUSY' | 'CALENDAR_NOT_FOUND' | 'INVALID_CALENDAR_KEY' | 'INTERNAL';
/** Extra members of the error body's `data` object, beside `status`. */
type CalendarErrorData = Record<string, unknown>;
/** An expected failure: it becomes a 4xx/5xx response in the contract's error shape. */
declare class CalendarError extends Error {
    readonly code: CalendarErrorCode;
    readonly data?: CalendarErrorData | undefined;
    constructor(code: CalendarErrorCode, message: string, data?: CalendarErrorData | undefined);
}

/** The item a conditional write names, locked: its id and, for posts, its modified time (UTC wall). */
interface LockedItem {
    id: number;
    modifiedUtc?: string;
    /** The path parameters of the read whose tag stands for the item; `{ id }` when absent. */
    path?: Record<string, string>;
}
/**
 * Finds the item a parsed update/delete input names (`id` or `slug`) and locks its row until the
 * transaction ends; `undefined` when there is none (the operation then answers its own not-found).
 */
type ItemLock = (trx: Transaction<DB>, input: Record<string, unknown>, ctx: CallContext) => Promise<LockedItem | undefined>;
/** What a create, update or delete route of an item needs for entity tags and preconditions. */
interface ItemWrite {
    readonly write: 'create' | 'update' | 'delete';
    /** The by-id GET of the item: its answer to this caller is what a tag stands for. */
    readonly read: AnyOperation;
    /** Updates and deletes: how to find and lock the item before the preconditions are checked. */
    readonly lock?: ItemLock;
    /**
     * The path parameters of the read an answer's new `ETag` is of (`{ id }` when absent): an
     * occurrence is read at its series id and key.
     */
    readonly answerPath?: (body: Record<string, unknown>) => Record<string, string> | undefined;
}

/** HTTP methods the calendar serves. */
type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** What the OpenAPI document says about one method of an endpoint. */
interface EndpointDoc {
    operationId?: string;
    summary?: string;
    description?: string;
    tags?: string[];
    /** Who may call it: `public` (a token only widens what is seen) or `token` (writes). */
    access?: 'public' | 'token';
    /** Domain errors the handler can answer, beside the ones every operation shares. */
    errors?: readonly CalendarErrorCode[];
    /** The success answer; `schema` absent means a body the document does not describe. */
    success?: {
        status: number;
        description: string;
        schema?: z.ZodType;
        contentType?: string;
        headers?: readonly ('list-totals' | 'location' | 'sync' | 'validators')[];
        /** Other success statuses with the same body schema (no `location`). */
        others?: readonly {
            status: number;
            description: string;
        }[];
    };
    /** Declared parameters the document describes on another path instead (the list's sync ones). */
    hiddenArgs?: readonly string[];
}
/** One handler of a route: the methods it answers and what it does. */
interface Endpoint {
    readonly methods: readonly HttpMethod[];
    readonly operation: AnyOperation;
    /** What the OpenAPI document says about it, beyond what the built-in resources derive. */
    readonly doc?: EndpointDoc;
    /** A create, update or delete of one item: `ETag` on its answer, `If-Match` honoured (http/preconditions.ts). */
    readonly item?: ItemWrite;
    /**
     * A feed: a `key` query parameter (a private feed key, auth/feed-keys.ts) stands for its user.
     * Every other endpoint refuses a feed key with the unknown token's 401.
     */
    readonly feedKey?: boolean;
}
/** One route of the table, in registration order (the root descriptor lists them so). */
interface RouteDef {
    /** The route pattern as the root descriptor keys it: `/cal/events/v1/events/(?P<id>\d+)`. */
    readonly pattern: string;
    /** Express-style path: `/cal/events/v1/events/:id`. */
    readonly path: string;
    readonly endpoints: readonly Endpoint[];
}

/** What a token and a feed key list alike (never the secret). */
interface SecretInfo {
    id: number;
    prefix: string;
    name: string;
    userId: number;
    login: string;
    role: Role;
    createdUtc: string;
    lastUsedUtc: string | null;
    revokedUtc: string | null;
}

/** A feed key as listed (never the secret). */
type FeedKeyInfo = SecretInfo;
/** Whose feed key to make: an existing user by login or id, and a label for listing. */
interface FeedKeyInput {
    login?: string;
    userId?: number;
    name?: string;
}

/** A token as listed (never the secret). */
interface TokenInfo extends SecretInfo {
    /** When the token stops working (UTC, `YYYY-MM-DD HH:MM:SS`); null: never. */
    expiresUtc: string | null;
}
/** What a new token is issued with. */
interface TokenInput {
    role: Role;
    name?: string;
    login?: string;
    /** When the token stops working: an ISO 8601 date-time with `Z` or an offset, or a Date; default never. */
    expires?: string | Date;
}

/** What an import did so far. */
interface ImportProgress {
    /** Items read. */
    done: number;
    created: number;
    updated: number;
    /** Found again and left as they were (`existing: 'skip'`, or the function said so). */
    unchanged: number;
    /** Found again in the trash: left there, never recreated. */
    skipped: number;
    failed: number;
}
/** What to do with an item an import finds already stored (not trashed). */
type ExistingPolicy = 'update' | 'skip' | ((current: Record<string, unknown>, item: Record<string, unknown>) => 'update' | 'skip');
/** Options of a bulk import besides the call's own. */
interface ImportBatchOptions {
    /** Items per transaction. Default 500. */
    batchSize?: number;
    /** An item found already stored: updated (default), skipped, or as the function decides given the stored item as an answer shows it. */
    existing?: ExistingPolicy;
    /** Called after each batch. */
    onProgress?: (progress: ImportProgress) => void;
}

/** One item the calendar refused. */
interface ImportItemError {
    /** Its position in the items (0-based). */
    index: number;
    origin_uid: string | undefined;
    error: Error;
}
/** What an import did, with the items refused. */
interface ImportSummary extends ImportProgress {
    errors: ImportItemError[];
}

/**
 * Venues and organizers are the same kind of record ("linked posts") with different fields. The
 * descriptor carries everything that differs, so the code serving them never asks which it is.
 */
interface LinkedKind<N extends string = 'venue' | 'organizer', D extends ArgsRecord = ArgsRecord> {
    readonly type: N;
    readonly table: 'venues' | 'organizers';
    /** Name of the name field on the wire (`venue` / `organizer`). */
    readonly nameField: N;
    /** Plural, as the list envelope and collection path name it. */
    readonly plural: 'venues' | 'organizers';
    /** Free-text detail fields, in wire order (str0 on input, `website` url0). */
    readonly textFields: readonly string[];
    /** The kind's own write fields (CONTRACT 11.1), besides the shared post fields. */
    readonly detailArgs: D;
    /** Boolean flags, `true` when a create leaves them out (venue map flags). */
    readonly flags: readonly string[];
    /** Whether records carry a `geo_lat`/`geo_lng` pair (extension). */
    readonly coordinates: boolean;
    /** Fields `search` looks in besides name, description and excerpt (CONTRACT 7). */
    readonly searchFields: readonly string[];
    /** How an event links records of the kind: a column of `events`, or a link table in order. */
    readonly eventLink: {
        readonly via: 'column';
        readonly column: 'venue_id';
    } | {
        readonly via: 'table';
        readonly table: 'event_organizers';
        readonly column: 'organizer_id';
    };
    /** Columns computed from others on every write that touches their sources (or creates). */
    derive?(input: Readonly<Record<string, unknown>>, merged: (field: string) => string, creating: boolean): Record<string, unknown>;
    /** The schema.org type of `json_ld` (CONTRACT 4.7). */
    readonly jsonLdType: 'Place' | 'Person';
    readonly errors: {
        readonly notAccessible: CalendarErrorCode;
        readonly inTrash: CalendarErrorCode;
        readonly couldNotCreate: CalendarErrorCode;
        readonly couldNotUpdate: CalendarErrorCode;
        readonly pageNotFound: CalendarErrorCode;
    };
}
declare const venueDetailArgs: {
    address: ArgSpec<string, string>;
    city: ArgSpec<string, string>;
    country: ArgSpec<string, string>;
    province: ArgSpec<string, string>;
    state: ArgSpec<string, string>;
    zip: ArgSpec<string, string>;
    phone: ArgSpec<string, string>;
    website: ArgSpec<string, string>;
    stateprovince: ArgSpec<string, string>;
    show_map: ArgSpec<boolean, unknown>;
    show_map_link: ArgSpec<boolean, unknown>;
    geo_lat: ArgSpec<number, string | number>;
    geo_lng: ArgSpec<number, string | number>;
};
declare const organizerDetailArgs: {
    phone: ArgSpec<string, string>;
    website: ArgSpec<string, string>;
    email: ArgSpec<string, string>;
};
/** The venue kind. */
/** A venue's own write fields (CONTRACT 11.1), named so the public input types can refer to them. */
type VenueDetailArgs = typeof venueDetailArgs;
/** The organizer kind. */
/** An organizer's own write fields (CONTRACT 11.1). */
type OrganizerDetailArgs = typeof organizerDetailArgs;

/** One item the calendar refused. */
interface LinkedImportItemError {
    /** Its position in the items (0-based). */
    index: number;
    /** The `slug` the item gave, if any. */
    slug: string | undefined;
    error: Error;
}
/** What a venue/organizer import did, with the items refused and each item's record. */
interface LinkedImportSummary extends ImportProgress {
    errors: LinkedImportItemError[];
    /** The id of each item's record, by the item's index: created, updated, left unchanged, or found in the trash (`skipped`); `undefined` for an item refused. */
    ids: (number | undefined)[];
}

/** One operation of the document: the fields every one has, the others as written. */
interface OpenApiOperation {
    operationId: string;
    summary: string;
    tags: string[];
    responses: Record<string, unknown>;
    [field: string]: unknown;
}
/**
 * The OpenAPI 3.1 document as JSON: the top-level fields this calendar writes, each part typed as
 * far as this code states it (an OpenAPI tool reads the rest).
 */
interface OpenApiDocument {
    openapi: string;
    info: Record<string, unknown>;
    servers: {
        url: string;
        description: string;
    }[];
    tags: Record<string, unknown>[];
    /** By path, then by lower-case method: the operation objects. */
    paths: Record<string, Record<string, OpenApiOperation>>;
    components: {
        schemas: Record<string, Record<string, unknown>>;
        securitySchemes: Record<string, unknown>;
    };
}

/** One declared parameter as the root descriptor lists it. */
interface DescribedArg {
    default?: unknown;
    type?: string | string[];
    format?: string;
    enum?: readonly (string | number)[];
    items?: {
        type: string | string[];
        enum?: readonly string[];
    };
    description?: string;
    required: boolean;
}
/** One route of the root descriptor: its methods and, per endpoint, the declared parameters. */
interface DescribedRoute {
    namespace: string;
    methods: string[];
    /** `args` is `[]` when an endpoint declares none (the reference's PHP serialisation). */
    endpoints: {
        methods: string[];
        args: Record<string, DescribedArg> | [];
    }[];
    /** Routes without path parameters link to themselves. */
    _links?: {
        self: {
            href: string;
        }[];
    };
}
/** The root descriptor (`GET /cal/events/v1`, CONTRACT 14.1). */
interface RootDescriptor {
    namespace: string;
    routes: Record<string, DescribedRoute>;
    _links: {
        up: {
            href: string;
        }[];
    };
}

/** Category or tag as its own routes return it (CONTRACT 4.6). */
declare const TermSchema: z.ZodObject<{
    id: z.ZodInt;
    count: z.ZodInt;
    description: z.ZodString;
    name: z.ZodString;
    slug: z.ZodString;
    taxonomy: z.ZodEnum<{
        cal_events_cat: "cal_events_cat";
        post_tag: "post_tag";
    }>;
    parent: z.ZodOptional<z.ZodInt>;
    meta: z.ZodArray<z.ZodNever>;
    url: z.ZodString;
    urls: z.ZodObject<{
        self: z.ZodString;
        collection: z.ZodString;
        up: z.ZodOptional<z.ZodString>;
    }, z.core.$strict>;
}, z.core.$strict>;
/** Venue (CONTRACT 4.4). */
declare const VenueSchema: z.ZodObject<{
    venue: z.ZodOptional<z.ZodString>;
    address: z.ZodOptional<z.ZodString>;
    city: z.ZodOptional<z.ZodString>;
    country: z.ZodOptional<z.ZodString>;
    province: z.ZodOptional<z.ZodString>;
    state: z.ZodOptional<z.ZodString>;
    zip: z.ZodOptional<z.ZodString>;
    phone: z.ZodOptional<z.ZodString>;
    website: z.ZodOptional<z.ZodString>;
    stateprovince: z.ZodOptional<z.ZodString>;
    geo_lat: z.ZodOptional<z.ZodNumber>;
    geo_lng: z.ZodOptional<z.ZodNumber>;
    show_map: z.ZodBoolean;
    show_map_link: z.ZodBoolean;
    id: z.ZodInt;
    author: z.ZodOptional<z.ZodString>;
    status: z.ZodString;
    date: z.ZodString;
    date_utc: z.ZodString;
    modified: z.ZodString;
    modified_utc: z.ZodString;
    url: z.ZodString;
    description: z.ZodOptional<z.ZodString>;
    excerpt: z.ZodOptional<z.ZodString>;
    slug: z.ZodOptional<z.ZodString>;
    image: z.ZodOptional<z.ZodObject<{
        url: z.ZodString;
        id: z.ZodInt;
        extension: z.ZodOptional<z.ZodString>;
        width: z.ZodOptional<z.ZodInt>;
        height: z.ZodOptional<z.ZodInt>;
        sizes: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodObject<{
            width: z.ZodInt;
            height: z.ZodInt;
            'mime-type': z.ZodString;
            url: z.ZodString;
        }, z.core.$strict>>>;
    }, z.core.$strict>>;
    json_ld: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>;
    global_id: z.ZodString;
    global_id_lineage: z.ZodArray<z.ZodString>;
}, z.core.$strict>;
/** Organizer (CONTRACT 4.5). */
declare const OrganizerSchema: z.ZodObject<{
    organizer: z.ZodOptional<z.ZodString>;
    phone: z.ZodOptional<z.ZodString>;
    website: z.ZodOptional<z.ZodString>;
    email: z.ZodOptional<z.ZodString>;
    id: z.ZodInt;
    author: z.ZodOptional<z.ZodString>;
    status: z.ZodString;
    date: z.ZodString;
    date_utc: z.ZodString;
    modified: z.ZodString;
    modified_utc: z.ZodString;
    url: z.ZodString;
    description: z.ZodOptional<z.ZodString>;
    excerpt: z.ZodOptional<z.ZodString>;
    slug: z.ZodOptional<z.ZodString>;
    image: z.ZodOptional<z.ZodObject<{
        url: z.ZodString;
        id: z.ZodInt;
        extension: z.ZodOptional<z.ZodString>;
        width: z.ZodOptional<z.ZodInt>;
        height: z.ZodOptional<z.ZodInt>;
        sizes: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodObject<{
            width: z.ZodInt;
            height: z.ZodInt;
            'mime-type': z.ZodString;
            url: z.ZodString;
        }, z.core.$strict>>>;
    }, z.core.$strict>>;
    json_ld: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>;
    global_id: z.ZodString;
    global_id_lineage: z.ZodArray<z.ZodString>;
}, z.core.$strict>;
/** Event (CONTRACT 4.1). */
declare const EventSchema: z.ZodObject<{
    id: z.ZodInt;
    global_id: z.ZodString;
    global_id_lineage: z.ZodArray<z.ZodString>;
    author: z.ZodString;
    status: z.ZodEnum<{
        publish: "publish";
        future: "future";
        draft: "draft";
        pending: "pending";
        private: "private";
        trash: "trash";
    }>;
    date: z.ZodString;
    date_utc: z.ZodString;
    modified: z.ZodString;
    modified_utc: z.ZodString;
    url: z.ZodString;
    rest_url: z.ZodString;
    title: z.ZodString;
    description: z.ZodString;
    excerpt: z.ZodString;
    slug: z.ZodString;
    image: z.ZodUnion<readonly [z.ZodObject<{
        url: z.ZodString;
        id: z.ZodInt;
        extension: z.ZodOptional<z.ZodString>;
        width: z.ZodOptional<z.ZodInt>;
        height: z.ZodOptional<z.ZodInt>;
        sizes: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodObject<{
            width: z.ZodInt;
            height: z.ZodInt;
            'mime-type': z.ZodString;
            url: z.ZodString;
        }, z.core.$strict>>>;
    }, z.core.$strict>, z.ZodLiteral<false>]>;
    all_day: z.ZodNullable<z.ZodBoolean>;
    start_date: z.ZodString;
    start_date_details: z.ZodObject<{
        year: z.ZodString;
        month: z.ZodString;
        day: z.ZodString;
        hour: z.ZodString;
        minutes: z.ZodString;
        seconds: z.ZodString;
    }, z.core.$strict>;
    end_date: z.ZodString;
    end_date_details: z.ZodObject<{
        year: z.ZodString;
        month: z.ZodString;
        day: z.ZodString;
        hour: z.ZodString;
        minutes: z.ZodString;
        seconds: z.ZodString;
    }, z.core.$strict>;
    utc_start_date: z.ZodString;
    utc_start_date_details: z.ZodObject<{
        year: z.ZodString;
        month: z.ZodString;
        day: z.ZodString;
        hour: z.ZodString;
        minutes: z.ZodString;
        seconds: z.ZodString;
    }, z.core.$strict>;
    utc_end_date: z.ZodString;
    utc_end_date_details: z.ZodObject<{
        year: z.ZodString;
        month: z.ZodString;
        day: z.ZodString;
        hour: z.ZodString;
        minutes: z.ZodString;
        seconds: z.ZodString;
    }, z.core.$strict>;
    timezone: z.ZodString;
    timezone_abbr: z.ZodString;
    cost: z.ZodString;
    cost_details: z.ZodObject<{
        currency_symbol: z.ZodString;
        currency_code: z.ZodString;
        currency_position: z.ZodEnum<{
            "": "";
            prefix: "prefix";
            postfix: "postfix";
        }>;
        values: z.ZodArray<z.ZodString>;
    }, z.core.$strict>;
    website: z.ZodString;
    show_map: z.ZodNullable<z.ZodBoolean>;
    show_map_link: z.ZodNullable<z.ZodBoolean>;
    hide_from_listings: z.ZodNullable<z.ZodBoolean>;
    sticky: z.ZodNullable<z.ZodBoolean>;
    featured: z.ZodNullable<z.ZodBoolean>;
    categories: z.ZodArray<z.ZodObject<{
        name: z.ZodString;
        slug: z.ZodString;
        term_group: z.ZodInt;
        term_taxonomy_id: z.ZodInt;
        taxonomy: z.ZodEnum<{
            cal_events_cat: "cal_events_cat";
            post_tag: "post_tag";
        }>;
        description: z.ZodString;
        parent: z.ZodInt;
        count: z.ZodInt;
        filter: z.ZodLiteral<"raw">;
        id: z.ZodInt;
        urls: z.ZodObject<{
            self: z.ZodString;
            collection: z.ZodString;
            up: z.ZodOptional<z.ZodString>;
        }, z.core.$strict>;
    }, z.core.$strict>>;
    tags: z.ZodArray<z.ZodObject<{
        name: z.ZodString;
        slug: z.ZodString;
        term_group: z.ZodInt;
        term_taxonomy_id: z.ZodInt;
        taxonomy: z.ZodEnum<{
            cal_events_cat: "cal_events_cat";
            post_tag: "post_tag";
        }>;
        description: z.ZodString;
        parent: z.ZodInt;
        count: z.ZodInt;
        filter: z.ZodLiteral<"raw">;
        id: z.ZodInt;
        urls: z.ZodObject<{
            self: z.ZodString;
            collection: z.ZodString;
            up: z.ZodOptional<z.ZodString>;
        }, z.core.$strict>;
    }, z.core.$strict>>;
    venue: z.ZodUnion<readonly [z.ZodObject<{
        venue: z.ZodOptional<z.ZodString>;
        address: z.ZodOptional<z.ZodString>;
        city: z.ZodOptional<z.ZodString>;
        country: z.ZodOptional<z.ZodString>;
        province: z.ZodOptional<z.ZodString>;
        state: z.ZodOptional<z.ZodString>;
        zip: z.ZodOptional<z.ZodString>;
        phone: z.ZodOptional<z.ZodString>;
        website: z.ZodOptional<z.ZodString>;
        stateprovince: z.ZodOptional<z.ZodString>;
        geo_lat: z.ZodOptional<z.ZodNumber>;
        geo_lng: z.ZodOptional<z.ZodNumber>;
        show_map: z.ZodBoolean;
        show_map_link: z.ZodBoolean;
        id: z.ZodInt;
        author: z.ZodOptional<z.ZodString>;
        status: z.ZodString;
        date: z.ZodString;
        date_utc: z.ZodString;
        modified: z.ZodString;
        modified_utc: z.ZodString;
        url: z.ZodString;
        description: z.ZodOptional<z.ZodString>;
        excerpt: z.ZodOptional<z.ZodString>;
        slug: z.ZodOptional<z.ZodString>;
        image: z.ZodOptional<z.ZodObject<{
            url: z.ZodString;
            id: z.ZodInt;
            extension: z.ZodOptional<z.ZodString>;
            width: z.ZodOptional<z.ZodInt>;
            height: z.ZodOptional<z.ZodInt>;
            sizes: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodObject<{
                width: z.ZodInt;
                height: z.ZodInt;
                'mime-type': z.ZodString;
                url: z.ZodString;
            }, z.core.$strict>>>;
        }, z.core.$strict>>;
        json_ld: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>;
        global_id: z.ZodString;
        global_id_lineage: z.ZodArray<z.ZodString>;
    }, z.core.$strict>, z.ZodArray<z.ZodObject<{
        venue: z.ZodOptional<z.ZodString>;
        address: z.ZodOptional<z.ZodString>;
        city: z.ZodOptional<z.ZodString>;
        country: z.ZodOptional<z.ZodString>;
        province: z.ZodOptional<z.ZodString>;
        state: z.ZodOptional<z.ZodString>;
        zip: z.ZodOptional<z.ZodString>;
        phone: z.ZodOptional<z.ZodString>;
        website: z.ZodOptional<z.ZodString>;
        stateprovince: z.ZodOptional<z.ZodString>;
        geo_lat: z.ZodOptional<z.ZodNumber>;
        geo_lng: z.ZodOptional<z.ZodNumber>;
        show_map: z.ZodBoolean;
        show_map_link: z.ZodBoolean;
        id: z.ZodInt;
        author: z.ZodOptional<z.ZodString>;
        status: z.ZodString;
        date: z.ZodString;
        date_utc: z.ZodString;
        modified: z.ZodString;
        modified_utc: z.ZodString;
        url: z.ZodString;
        description: z.ZodOptional<z.ZodString>;
        excerpt: z.ZodOptional<z.ZodString>;
        slug: z.ZodOptional<z.ZodString>;
        image: z.ZodOptional<z.ZodObject<{
            url: z.ZodString;
            id: z.ZodInt;
            extension: z.ZodOptional<z.ZodString>;
            width: z.ZodOptional<z.ZodInt>;
            height: z.ZodOptional<z.ZodInt>;
            sizes: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodObject<{
                width: z.ZodInt;
                height: z.ZodInt;
                'mime-type': z.ZodString;
                url: z.ZodString;
            }, z.core.$strict>>>;
        }, z.core.$strict>>;
        json_ld: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>;
        global_id: z.ZodString;
        global_id_lineage: z.ZodArray<z.ZodString>;
    }, z.core.$strict>>]>;
    organizer: z.ZodArray<z.ZodObject<{
        organizer: z.ZodOptional<z.ZodString>;
        phone: z.ZodOptional<z.ZodString>;
        website: z.ZodOptional<z.ZodString>;
        email: z.ZodOptional<z.ZodString>;
        id: z.ZodInt;
        author: z.ZodOptional<z.ZodString>;
        status: z.ZodString;
        date: z.ZodString;
        date_utc: z.ZodString;
        modified: z.ZodString;
        modified_utc: z.ZodString;
        url: z.ZodString;
        description: z.ZodOptional<z.ZodString>;
        excerpt: z.ZodOptional<z.ZodString>;
        slug: z.ZodOptional<z.ZodString>;
        image: z.ZodOptional<z.ZodObject<{
            url: z.ZodString;
            id: z.ZodInt;
            extension: z.ZodOptional<z.ZodString>;
            width: z.ZodOptional<z.ZodInt>;
            height: z.ZodOptional<z.ZodInt>;
            sizes: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodObject<{
                width: z.ZodInt;
                height: z.ZodInt;
                'mime-type': z.ZodString;
                url: z.ZodString;
            }, z.core.$strict>>>;
        }, z.core.$strict>>;
        json_ld: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>;
        global_id: z.ZodString;
        global_id_lineage: z.ZodArray<z.ZodString>;
    }, z.core.$strict>>;
    custom_fields: z.ZodArray<z.ZodNever>;
    recurrence: z.ZodOptional<z.ZodArray<z.ZodString>>;
    occurrence: z.ZodOptional<z.ZodString>;
    series_id: z.ZodOptional<z.ZodInt>;
    original_start_date: z.ZodOptional<z.ZodString>;
    json_ld: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>;
}, z.core.$strict>;
/** List envelopes (CONTRACT 5.1). */
declare const EventListSchema: z.ZodObject<{
    rest_url: z.ZodString;
    next_rest_url: z.ZodOptional<z.ZodString>;
    previous_rest_url: z.ZodOptional<z.ZodString>;
    total: z.ZodInt;
    total_pages: z.ZodInt;
    events: z.ZodArray<z.ZodObject<{
        id: z.ZodInt;
        global_id: z.ZodString;
        global_id_lineage: z.ZodArray<z.ZodString>;
        author: z.ZodString;
        status: z.ZodEnum<{
            publish: "publish";
            future: "future";
            draft: "draft";
            pending: "pending";
            private: "private";
            trash: "trash";
        }>;
        date: z.ZodString;
        date_utc: z.ZodString;
        modified: z.ZodString;
        modified_utc: z.ZodString;
        url: z.ZodString;
        rest_url: z.ZodString;
        title: z.ZodString;
        description: z.ZodString;
        excerpt: z.ZodString;
        slug: z.ZodString;
        image: z.ZodUnion<readonly [z.ZodObject<{
            url: z.ZodString;
            id: z.ZodInt;
            extension: z.ZodOptional<z.ZodString>;
            width: z.ZodOptional<z.ZodInt>;
            height: z.ZodOptional<z.ZodInt>;
            sizes: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodObject<{
                width: z.ZodInt;
                height: z.ZodInt;
                'mime-type': z.ZodString;
                url: z.ZodString;
            }, z.core.$strict>>>;
        }, z.core.$strict>, z.ZodLiteral<false>]>;
        all_day: z.ZodNullable<z.ZodBoolean>;
        start_date: z.ZodString;
        start_date_details: z.ZodObject<{
            year: z.ZodString;
            month: z.ZodString;
            day: z.ZodString;
            hour: z.ZodString;
            minutes: z.ZodString;
            seconds: z.ZodString;
        }, z.core.$strict>;
        end_date: z.ZodString;
        end_date_details: z.ZodObject<{
            year: z.ZodString;
            month: z.ZodString;
            day: z.ZodString;
            hour: z.ZodString;
            minutes: z.ZodString;
            seconds: z.ZodString;
        }, z.core.$strict>;
        utc_start_date: z.ZodString;
        utc_start_date_details: z.ZodObject<{
            year: z.ZodString;
            month: z.ZodString;
            day: z.ZodString;
            hour: z.ZodString;
            minutes: z.ZodString;
            seconds: z.ZodString;
        }, z.core.$strict>;
        utc_end_date: z.ZodString;
        utc_end_date_details: z.ZodObject<{
            year: z.ZodString;
            month: z.ZodString;
            day: z.ZodString;
            hour: z.ZodString;
            minutes: z.ZodString;
            seconds: z.ZodString;
        }, z.core.$strict>;
        timezone: z.ZodString;
        timezone_abbr: z.ZodString;
        cost: z.ZodString;
        cost_details: z.ZodObject<{
            currency_symbol: z.ZodString;
            currency_code: z.ZodString;
            currency_position: z.ZodEnum<{
                "": "";
                prefix: "prefix";
                postfix: "postfix";
            }>;
            values: z.ZodArray<z.ZodString>;
        }, z.core.$strict>;
        website: z.ZodString;
        show_map: z.ZodNullable<z.ZodBoolean>;
        show_map_link: z.ZodNullable<z.ZodBoolean>;
        hide_from_listings: z.ZodNullable<z.ZodBoolean>;
        sticky: z.ZodNullable<z.ZodBoolean>;
        featured: z.ZodNullable<z.ZodBoolean>;
        categories: z.ZodArray<z.ZodObject<{
            name: z.ZodString;
            slug: z.ZodString;
            term_group: z.ZodInt;
            term_taxonomy_id: z.ZodInt;
            taxonomy: z.ZodEnum<{
                cal_events_cat: "cal_events_cat";
                post_tag: "post_tag";
            }>;
            description: z.ZodString;
            parent: z.ZodInt;
            count: z.ZodInt;
            filter: z.ZodLiteral<"raw">;
            id: z.ZodInt;
            urls: z.ZodObject<{
                self: z.ZodString;
                collection: z.ZodString;
                up: z.ZodOptional<z.ZodString>;
            }, z.core.$strict>;
        }, z.core.$strict>>;
        tags: z.ZodArray<z.ZodObject<{
            name: z.ZodString;
            slug: z.ZodString;
            term_group: z.ZodInt;
            term_taxonomy_id: z.ZodInt;
            taxonomy: z.ZodEnum<{
                cal_events_cat: "cal_events_cat";
                post_tag: "post_tag";
            }>;
            description: z.ZodString;
            parent: z.ZodInt;
            count: z.ZodInt;
            filter: z.ZodLiteral<"raw">;
            id: z.ZodInt;
            urls: z.ZodObject<{
                self: z.ZodString;
                collection: z.ZodString;
                up: z.ZodOptional<z.ZodString>;
            }, z.core.$strict>;
        }, z.core.$strict>>;
        venue: z.ZodUnion<readonly [z.ZodObject<{
            venue: z.ZodOptional<z.ZodString>;
            address: z.ZodOptional<z.ZodString>;
            city: z.ZodOptional<z.ZodString>;
            country: z.ZodOptional<z.ZodString>;
            province: z.ZodOptional<z.ZodString>;
            state: z.ZodOptional<z.ZodString>;
            zip: z.ZodOptional<z.ZodString>;
            phone: z.ZodOptional<z.ZodString>;
            website: z.ZodOptional<z.ZodString>;
            stateprovince: z.ZodOptional<z.ZodString>;
            geo_lat: z.ZodOptional<z.ZodNumber>;
            geo_lng: z.ZodOptional<z.ZodNumber>;
            show_map: z.ZodBoolean;
            show_map_link: z.ZodBoolean;
            id: z.ZodInt;
            author: z.ZodOptional<z.ZodString>;
            status: z.ZodString;
            date: z.ZodString;
            date_utc: z.ZodString;
            modified: z.ZodString;
            modified_utc: z.ZodString;
            url: z.ZodString;
            description: z.ZodOptional<z.ZodString>;
            excerpt: z.ZodOptional<z.ZodString>;
            slug: z.ZodOptional<z.ZodString>;
            image: z.ZodOptional<z.ZodObject<{
                url: z.ZodString;
                id: z.ZodInt;
                extension: z.ZodOptional<z.ZodString>;
                width: z.ZodOptional<z.ZodInt>;
                height: z.ZodOptional<z.ZodInt>;
                sizes: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodObject<{
                    width: z.ZodInt;
                    height: z.ZodInt;
                    'mime-type': z.ZodString;
                    url: z.ZodString;
                }, z.core.$strict>>>;
            }, z.core.$strict>>;
            json_ld: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>;
            global_id: z.ZodString;
            global_id_lineage: z.ZodArray<z.ZodString>;
        }, z.core.$strict>, z.ZodArray<z.ZodObject<{
            venue: z.ZodOptional<z.ZodString>;
            address: z.ZodOptional<z.ZodString>;
            city: z.ZodOptional<z.ZodString>;
            country: z.ZodOptional<z.ZodString>;
            province: z.ZodOptional<z.ZodString>;
            state: z.ZodOptional<z.ZodString>;
            zip: z.ZodOptional<z.ZodString>;
            phone: z.ZodOptional<z.ZodString>;
            website: z.ZodOptional<z.ZodString>;
            stateprovince: z.ZodOptional<z.ZodString>;
            geo_lat: z.ZodOptional<z.ZodNumber>;
            geo_lng: z.ZodOptional<z.ZodNumber>;
            show_map: z.ZodBoolean;
            show_map_link: z.ZodBoolean;
            id: z.ZodInt;
            author: z.ZodOptional<z.ZodString>;
            status: z.ZodString;
            date: z.ZodString;
            date_utc: z.ZodString;
            modified: z.ZodString;
            modified_utc: z.ZodString;
            url: z.ZodString;
            description: z.ZodOptional<z.ZodString>;
            excerpt: z.ZodOptional<z.ZodString>;
            slug: z.ZodOptional<z.ZodString>;
            image: z.ZodOptional<z.ZodObject<{
                url: z.ZodString;
                id: z.ZodInt;
                extension: z.ZodOptional<z.ZodString>;
                width: z.ZodOptional<z.ZodInt>;
                height: z.ZodOptional<z.ZodInt>;
                sizes: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodObject<{
                    width: z.ZodInt;
                    height: z.ZodInt;
                    'mime-type': z.ZodString;
                    url: z.ZodString;
                }, z.core.$strict>>>;
            }, z.core.$strict>>;
            json_ld: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>;
            global_id: z.ZodString;
            global_id_lineage: z.ZodArray<z.ZodString>;
        }, z.core.$strict>>]>;
        organizer: z.ZodArray<z.ZodObject<{
            organizer: z.ZodOptional<z.ZodString>;
            phone: z.ZodOptional<z.ZodString>;
            website: z.ZodOptional<z.ZodString>;
            email: z.ZodOptional<z.ZodString>;
            id: z.ZodInt;
            author: z.ZodOptional<z.ZodString>;
            status: z.ZodString;
            date: z.ZodString;
            date_utc: z.ZodString;
            modified: z.ZodString;
            modified_utc: z.ZodString;
            url: z.ZodString;
            description: z.ZodOptional<z.ZodString>;
            excerpt: z.ZodOptional<z.ZodString>;
            slug: z.ZodOptional<z.ZodString>;
            image: z.ZodOptional<z.ZodObject<{
                url: z.ZodString;
                id: z.ZodInt;
                extension: z.ZodOptional<z.ZodString>;
                width: z.ZodOptional<z.ZodInt>;
                height: z.ZodOptional<z.ZodInt>;
                sizes: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodObject<{
                    width: z.ZodInt;
                    height: z.ZodInt;
                    'mime-type': z.ZodString;
                    url: z.ZodString;
                }, z.core.$strict>>>;
            }, z.core.$strict>>;
            json_ld: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>;
            global_id: z.ZodString;
            global_id_lineage: z.ZodArray<z.ZodString>;
        }, z.core.$strict>>;
        custom_fields: z.ZodArray<z.ZodNever>;
        recurrence: z.ZodOptional<z.ZodArray<z.ZodString>>;
        occurrence: z.ZodOptional<z.ZodString>;
        series_id: z.ZodOptional<z.ZodInt>;
        original_start_date: z.ZodOptional<z.ZodString>;
        json_ld: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>;
    }, z.core.$strict>>;
}, z.core.$strict>;
declare const VenueListSchema: z.ZodObject<{
    rest_url: z.ZodString;
    next_rest_url: z.ZodOptional<z.ZodString>;
    previous_rest_url: z.ZodOptional<z.ZodString>;
    total: z.ZodInt;
    total_pages: z.ZodInt;
    venues: z.ZodArray<z.ZodObject<{
        venue: z.ZodOptional<z.ZodString>;
        address: z.ZodOptional<z.ZodString>;
        city: z.ZodOptional<z.ZodString>;
        country: z.ZodOptional<z.ZodString>;
        province: z.ZodOptional<z.ZodString>;
        state: z.ZodOptional<z.ZodString>;
        zip: z.ZodOptional<z.ZodString>;
        phone: z.ZodOptional<z.ZodString>;
        website: z.ZodOptional<z.ZodString>;
        stateprovince: z.ZodOptional<z.ZodString>;
        geo_lat: z.ZodOptional<z.ZodNumber>;
        geo_lng: z.ZodOptional<z.ZodNumber>;
        show_map: z.ZodBoolean;
        show_map_link: z.ZodBoolean;
        id: z.ZodInt;
        author: z.ZodOptional<z.ZodString>;
        status: z.ZodString;
        date: z.ZodString;
        date_utc: z.ZodString;
        modified: z.ZodString;
        modified_utc: z.ZodString;
        url: z.ZodString;
        description: z.ZodOptional<z.ZodString>;
        excerpt: z.ZodOptional<z.ZodString>;
        slug: z.ZodOptional<z.ZodString>;
        image: z.ZodOptional<z.ZodObject<{
            url: z.ZodString;
            id: z.ZodInt;
            extension: z.ZodOptional<z.ZodString>;
            width: z.ZodOptional<z.ZodInt>;
            height: z.ZodOptional<z.ZodInt>;
            sizes: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodObject<{
                width: z.ZodInt;
                height: z.ZodInt;
                'mime-type': z.ZodString;
                url: z.ZodString;
            }, z.core.$strict>>>;
        }, z.core.$strict>>;
        json_ld: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>;
        global_id: z.ZodString;
        global_id_lineage: z.ZodArray<z.ZodString>;
    }, z.core.$strict>>;
}, z.core.$strict>;
declare const OrganizerListSchema: z.ZodObject<{
    rest_url: z.ZodString;
    next_rest_url: z.ZodOptional<z.ZodString>;
    previous_rest_url: z.ZodOptional<z.ZodString>;
    total: z.ZodInt;
    total_pages: z.ZodInt;
    organizers: z.ZodArray<z.ZodObject<{
        organizer: z.ZodOptional<z.ZodString>;
        phone: z.ZodOptional<z.ZodString>;
        website: z.ZodOptional<z.ZodString>;
        email: z.ZodOptional<z.ZodString>;
        id: z.ZodInt;
        author: z.ZodOptional<z.ZodString>;
        status: z.ZodString;
        date: z.ZodString;
        date_utc: z.ZodString;
        modified: z.ZodString;
        modified_utc: z.ZodString;
        url: z.ZodString;
        description: z.ZodOptional<z.ZodString>;
        excerpt: z.ZodOptional<z.ZodString>;
        slug: z.ZodOptional<z.ZodString>;
        image: z.ZodOptional<z.ZodObject<{
            url: z.ZodString;
            id: z.ZodInt;
            extension: z.ZodOptional<z.ZodString>;
            width: z.ZodOptional<z.ZodInt>;
            height: z.ZodOptional<z.ZodInt>;
            sizes: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodObject<{
                width: z.ZodInt;
                height: z.ZodInt;
                'mime-type': z.ZodString;
                url: z.ZodString;
            }, z.core.$strict>>>;
        }, z.core.$strict>>;
        json_ld: z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>;
        global_id: z.ZodString;
        global_id_lineage: z.ZodArray<z.ZodString>;
    }, z.core.$strict>>;
}, z.core.$strict>;
declare const CategoryListSchema: z.ZodObject<{
    rest_url: z.ZodString;
    next_rest_url: z.ZodOptional<z.ZodString>;
    previous_rest_url: z.ZodOptional<z.ZodString>;
    total: z.ZodInt;
    total_pages: z.ZodInt;
    categories: z.ZodArray<z.ZodObject<{
        id: z.ZodInt;
        count: z.ZodInt;
        description: z.ZodString;
        name: z.ZodString;
        slug: z.ZodString;
        taxonomy: z.ZodEnum<{
            cal_events_cat: "cal_events_cat";
            post_tag: "post_tag";
        }>;
        parent: z.ZodOptional<z.ZodInt>;
        meta: z.ZodArray<z.ZodNever>;
        url: z.ZodString;
        urls: z.ZodObject<{
            self: z.ZodString;
            collection: z.ZodString;
            up: z.ZodOptional<z.ZodString>;
        }, z.core.$strict>;
    }, z.core.$strict>>;
}, z.core.$strict>;
declare const TagListSchema: z.ZodObject<{
    rest_url: z.ZodString;
    next_rest_url: z.ZodOptional<z.ZodString>;
    previous_rest_url: z.ZodOptional<z.ZodString>;
    total: z.ZodInt;
    total_pages: z.ZodInt;
    tags: z.ZodArray<z.ZodObject<{
        id: z.ZodInt;
        count: z.ZodInt;
        description: z.ZodString;
        name: z.ZodString;
        slug: z.ZodString;
        taxonomy: z.ZodEnum<{
            cal_events_cat: "cal_events_cat";
            post_tag: "post_tag";
        }>;
        parent: z.ZodOptional<z.ZodInt>;
        meta: z.ZodArray<z.ZodNever>;
        url: z.ZodString;
        urls: z.ZodObject<{
            self: z.ZodString;
            collection: z.ZodString;
            up: z.ZodOptional<z.ZodString>;
        }, z.core.$strict>;
    }, z.core.$strict>>;
}, z.core.$strict>;

/** An event as the API returns it. */
type EventResource = z.output<typeof EventSchema>;
/** A venue as the API returns it (empty fields omitted). */
type VenueResource = z.output<typeof VenueSchema>;
/** An organizer as the API returns it (empty fields omitted). */
type OrganizerResource = z.output<typeof OrganizerSchema>;
/** A category or tag as its own routes return it. */
type TermResource = z.output<typeof TermSchema>;
/** `GET /events` body. */
type EventList = z.output<typeof EventListSchema>;
/** `GET /venues` body. */
type VenueList = z.output<typeof VenueListSchema>;
/** `GET /organizers` body. */
type OrganizerList = z.output<typeof OrganizerListSchema>;
/** `GET /categories` body. */
type CategoryList = z.output<typeof CategoryListSchema>;
/** `GET /tags` body. */
type TagList = z.output<typeof TagListSchema>;

/** Query parameters of `GET /events` in both variants (SPEC, CONTRACT 6.1). */
declare function commonListArgs(variant: VariantConfig): {
    sync: ArgSpec<boolean, string | boolean | 0 | 1>;
    sync_token: ArgSpec<string, string>;
    sync_page: ArgSpec<string, string>;
    page: ArgSpec<number, string | number>;
    per_page: ArgSpec<number, string | number>;
    start_date: ArgSpec<string | number, string | number>;
    end_date: ArgSpec<string | number, string | number>;
    search: ArgSpec<string, string>;
    categories: ArgSpec<(string | number)[], string | number | (string | number)[]>;
    tags: ArgSpec<(string | number)[], string | number | (string | number)[]>;
    venue: ArgSpec<number[], string | number | (string | number)[]>;
    organizer: ArgSpec<number[], string | number | (string | number)[]>;
    featured: ArgSpec<boolean, string | boolean | 0 | 1>;
    status: {
        description: string;
        schema: z.ZodType<("publish" | "future" | "draft" | "pending" | "private" | "trash")[], string | number | (string | number)[], z.core.$ZodTypeInternals<("publish" | "future" | "draft" | "pending" | "private" | "trash")[], string | number | (string | number)[]>>;
        doc: ArgDoc;
        required?: boolean;
        default?: unknown;
        nullable?: boolean;
        reason?: string;
        openapi?: Record<string, unknown>;
        with?: string;
        policy?: ArgPolicy;
    };
    geoloc: ArgSpec<boolean, string | boolean | 0 | 1>;
    geoloc_lat: ArgSpec<number, string | number>;
    geoloc_lng: ArgSpec<number, string | number>;
    include: ArgSpec<number[], string | number | (string | number)[]>;
    post_parent: ArgSpec<number, string | number>;
};
/** Query parameters of `GET /events` in variant B only. */
declare function boundsListArgs(): {
    starts_before: ArgSpec<string | number, string | number>;
    starts_after: ArgSpec<string | number, string | number>;
    ends_before: ArgSpec<string | number, string | number>;
    ends_after: ArgSpec<string | number, string | number>;
    strict_dates: ArgSpec<string, string>;
    ticketed: ArgSpec<boolean, string | boolean | 0 | 1>;
};
/** Every query parameter `GET /events` may declare; variant A leaves out the bounds filters. */
type EventListArgs = ReturnType<typeof commonListArgs> & Partial<ReturnType<typeof boundsListArgs>>;
/** Body fields of an event create or update (SPEC, CONTRACT 10.1). */
declare function eventWriteArgs(forCreate: boolean): {
    title: ArgSpec<string, string>;
    start_date: ArgSpec<string | number, string | number>;
    end_date: ArgSpec<string | number, string | number>;
    author: ArgSpec<number, string | number>;
    date: ArgSpec<string | number, string | number>;
    date_utc: ArgSpec<string | number, string | number>;
    description: ArgSpec<string, string>;
    slug: ArgSpec<string, string>;
    excerpt: ArgSpec<string, string>;
    status: ArgSpec<"publish" | "future" | "draft" | "pending" | "private", "publish" | "future" | "draft" | "pending" | "private">;
    timezone: ArgSpec<string, string>;
    all_day: ArgSpec<boolean, string | boolean | 0 | 1>;
    image: ArgSpec<string | number, string | number>;
    cost: ArgSpec<string | number | (string | number)[], string | number | (string | number)[]>;
    website: {
        nullable: boolean;
        schema: z.ZodType<string, string, z.core.$ZodTypeInternals<string, string>>;
        doc: ArgDoc;
        required?: boolean;
        default?: unknown;
        description?: string;
        reason?: string;
        openapi?: Record<string, unknown>;
        with?: string;
        policy?: ArgPolicy;
    };
    show_map: ArgSpec<boolean, string | boolean | 0 | 1>;
    show_map_link: ArgSpec<boolean, string | boolean | 0 | 1>;
    hide_from_listings: ArgSpec<boolean, string | boolean | 0 | 1>;
    sticky: ArgSpec<boolean, string | boolean | 0 | 1>;
    featured: ArgSpec<boolean, string | boolean | 0 | 1>;
    categories: ArgSpec<string | number | (string | number)[], string | number | (string | number)[]>;
    tags: ArgSpec<string | number | (string | number)[], string | number | (string | number)[]>;
    venue: ArgSpec<string | number | Record<string, unknown> | unknown[], string | number | Record<string, unknown> | unknown[]>;
    organizer: ArgSpec<string | number | Record<string, unknown> | unknown[], string | number | Record<string, unknown> | unknown[]>;
    origin_uid: ArgSpec<string, string>;
    recurrence: ArgSpec<string[], string[]>;
};

/** The event fields one occurrence may change; the rest (status, author, password, slug, rule) are the series'. */
declare const OVERRIDE_FIELDS: readonly ["title", "start_date", "end_date", "timezone", "description", "excerpt", "image", "cost", "website", "show_map", "show_map_link", "featured", "categories", "tags", "venue", "organizer"];
/** The declared arguments of a change of one occurrence (the fields of `OVERRIDE_FIELDS`). */
declare function overrideArgs(): Pick<{
    title: ArgSpec<string, string>;
    start_date: ArgSpec<string | number, string | number>;
    end_date: ArgSpec<string | number, string | number>;
    author: ArgSpec<number, string | number>;
    date: ArgSpec<string | number, string | number>;
    date_utc: ArgSpec<string | number, string | number>;
    description: ArgSpec<string, string>;
    slug: ArgSpec<string, string>;
    excerpt: ArgSpec<string, string>;
    status: ArgSpec<"publish" | "future" | "draft" | "pending" | "private", "publish" | "future" | "draft" | "pending" | "private">;
    timezone: ArgSpec<string, string>;
    all_day: ArgSpec<boolean, string | boolean | 0 | 1>;
    image: ArgSpec<string | number, string | number>;
    cost: ArgSpec<string | number | (string | number)[], string | number | (string | number)[]>;
    website: {
        nullable: boolean;
        schema: zod.ZodType<string, string, zod_v4_core.$ZodTypeInternals<string, string>>;
        doc: ArgDoc;
        required?: boolean;
        default?: unknown;
        description?: string;
        reason?: string;
        openapi?: Record<string, unknown>;
        with?: string;
        policy?: ArgPolicy;
    };
    show_map: ArgSpec<boolean, string | boolean | 0 | 1>;
    show_map_link: ArgSpec<boolean, string | boolean | 0 | 1>;
    hide_from_listings: ArgSpec<boolean, string | boolean | 0 | 1>;
    sticky: ArgSpec<boolean, string | boolean | 0 | 1>;
    featured: ArgSpec<boolean, string | boolean | 0 | 1>;
    categories: ArgSpec<string | number | (string | number)[], string | number | (string | number)[]>;
    tags: ArgSpec<string | number | (string | number)[], string | number | (string | number)[]>;
    venue: ArgSpec<string | number | Record<string, unknown> | unknown[], string | number | Record<string, unknown> | unknown[]>;
    organizer: ArgSpec<string | number | Record<string, unknown> | unknown[], string | number | Record<string, unknown> | unknown[]>;
    origin_uid: ArgSpec<string, string>;
    recurrence: ArgSpec<string[], string[]>;
}, (typeof OVERRIDE_FIELDS)[number]>;
/** The declared arguments of "this and all following": an occurrence's fields, and the new series' `recurrence`. */
declare function followingArgs(): {
    recurrence: ArgSpec<string[], string[]>;
    title: ArgSpec<string, string>;
    description: ArgSpec<string, string>;
    excerpt: ArgSpec<string, string>;
    show_map: ArgSpec<boolean, string | boolean | 0 | 1>;
    show_map_link: ArgSpec<boolean, string | boolean | 0 | 1>;
    timezone: ArgSpec<string, string>;
    website: {
        nullable: boolean;
        schema: zod.ZodType<string, string, zod_v4_core.$ZodTypeInternals<string, string>>;
        doc: ArgDoc;
        required?: boolean;
        default?: unknown;
        description?: string;
        reason?: string;
        openapi?: Record<string, unknown>;
        with?: string;
        policy?: ArgPolicy;
    };
    venue: ArgSpec<string | number | Record<string, unknown> | unknown[], string | number | Record<string, unknown> | unknown[]>;
    organizer: ArgSpec<string | number | Record<string, unknown> | unknown[], string | number | Record<string, unknown> | unknown[]>;
    image: ArgSpec<string | number, string | number>;
    featured: ArgSpec<boolean, string | boolean | 0 | 1>;
    end_date: ArgSpec<string | number, string | number>;
    categories: ArgSpec<string | number | (string | number)[], string | number | (string | number)[]>;
    tags: ArgSpec<string | number | (string | number)[], string | number | (string | number)[]>;
    start_date: ArgSpec<string | number, string | number>;
    cost: ArgSpec<string | number | (string | number)[], string | number | (string | number)[]>;
};

/**
 * The feed's parameters: the event list's filters, without paging (a feed is one document) and
 * without the list's sync walk (a calendar app polls with `If-None-Match` instead).
 */
declare function feedArgs(variant: VariantConfig): {
    key: ArgSpec<string, string>;
    start_date: ArgSpec<string | number, string | number>;
    end_date: ArgSpec<string | number, string | number>;
    search: ArgSpec<string, string>;
    categories: ArgSpec<(string | number)[], string | number | (string | number)[]>;
    tags: ArgSpec<(string | number)[], string | number | (string | number)[]>;
    venue: ArgSpec<number[], string | number | (string | number)[]>;
    organizer: ArgSpec<number[], string | number | (string | number)[]>;
    featured: ArgSpec<boolean, string | boolean | 0 | 1>;
    status: {
        description: string;
        schema: zod.ZodType<("publish" | "future" | "draft" | "pending" | "private" | "trash")[], string | number | (string | number)[], zod_v4_core.$ZodTypeInternals<("publish" | "future" | "draft" | "pending" | "private" | "trash")[], string | number | (string | number)[]>>;
        doc: ArgDoc;
        required?: boolean;
        default?: unknown;
        nullable?: boolean;
        reason?: string;
        openapi?: Record<string, unknown>;
        with?: string;
        policy?: ArgPolicy;
    };
    geoloc: ArgSpec<boolean, string | boolean | 0 | 1>;
    geoloc_lat: ArgSpec<number, string | number>;
    geoloc_lng: ArgSpec<number, string | number>;
    include: ArgSpec<number[], string | number | (string | number)[]>;
    post_parent: ArgSpec<number, string | number>;
    starts_before?: ArgSpec<string | number, string | number> | undefined;
    starts_after?: ArgSpec<string | number, string | number> | undefined;
    ends_before?: ArgSpec<string | number, string | number> | undefined;
    ends_after?: ArgSpec<string | number, string | number> | undefined;
    strict_dates?: ArgSpec<string, string> | undefined;
    ticketed?: ArgSpec<boolean, string | boolean | 0 | 1> | undefined;
};

/**
 * The body fields `linkedWriteArgs` declares for a kind with name field `N` and detail fields `D`.
 * Named: the declaration bundler loses what an inline `typeof linkedWriteArgs<…>` refers to.
 */
type LinkedWriteArgs<N extends string, D extends ArgsRecord> = ReturnType<typeof linkedWriteArgs<N, D>>;
/** Body fields of a venue/organizer create or update (CONTRACT 11.1); also used for inline data. */
declare function linkedWriteArgs<N extends string, D extends ArgsRecord>(kind: LinkedKind<N, D>, forCreate: boolean): Record<N, ArgSpec<string, string>> & {
    author: ArgSpec<number, string | number>;
    date: ArgSpec<string | number, string | number>;
    date_utc: ArgSpec<string | number, string | number>;
    description: ArgSpec<string, string>;
    status: ArgSpec<"publish" | "future" | "draft" | "pending" | "private", "publish" | "future" | "draft" | "pending" | "private">;
} & D & {
    image: ArgSpec<string | number, string | number>;
};
/** Query parameters of `GET /venues` and `GET /organizers` (SPEC, CONTRACT 7). */
declare function linkedListArgs(kind: LinkedKind, variant: VariantConfig): {
    sync: ArgSpec<boolean, string | boolean | 0 | 1>;
    sync_token: ArgSpec<string, string>;
    sync_page: ArgSpec<string, string>;
    page: ArgSpec<number, string | number>;
    per_page: ArgSpec<number, string | number>;
    search: {
        description: string;
        schema: z.ZodType<unknown, unknown, z.core.$ZodTypeInternals<unknown, unknown>>;
        doc: ArgDoc;
        required?: boolean;
        default?: unknown;
        nullable?: boolean;
        reason?: string;
        openapi?: Record<string, unknown>;
        with?: string;
        policy?: ArgPolicy;
    };
    event: ArgSpec<number, string | number>;
    has_events: ArgSpec<boolean, unknown>;
    only_with_upcoming: ArgSpec<boolean, unknown>;
    status: {
        description: string;
        schema: z.ZodType<("publish" | "future" | "draft" | "pending" | "private" | "trash")[], string | number | (string | number)[], z.core.$ZodTypeInternals<("publish" | "future" | "draft" | "pending" | "private" | "trash")[], string | number | (string | number)[]>>;
        doc: ArgDoc;
        required?: boolean;
        default?: unknown;
        nullable?: boolean;
        reason?: string;
        openapi?: Record<string, unknown>;
        with?: string;
        policy?: ArgPolicy;
    };
};

/**
 * Categories and tags are the same kind of record (terms) with different rules. The descriptor
 * carries everything that differs, so the code serving them never asks which taxonomy it is: a
 * new taxonomy is one more descriptor (and a migration admitting its name in `terms.taxonomy`'s check).
 */
interface TaxonomyDescriptor<N extends string = string, P extends string = string, W extends string = string> {
    /** The value of `terms.taxonomy`. */
    readonly name: N;
    /** `taxonomy` in Term and EmbeddedTerm objects (CONTRACT 4.6). */
    readonly wire: W;
    /**
     * The collection segment (`/categories`), the list envelope's key, and the event's field of the
     * same name: on events, in event writes (CONTRACT 10.5) and as an event list filter (CONTRACT 6.1).
     */
    readonly plural: P;
    /** Whether terms nest (`parent`, children moving up on delete, filters matching descendants). */
    readonly hierarchical: boolean;
    /** The lowest role that may create, update and delete terms (CONTRACT 3.1). */
    readonly manageRole: Role;
    /** The public archive page of a term (`url` of the Term object). */
    archiveUrl(site: string, slug: string): string;
    /** Whether the event's terms of this taxonomy become its iCalendar CATEGORIES (tags do not). */
    readonly categorizes: boolean;
    /** Where a term's slug must be unique (with the language); also its advisory-lock scope. */
    readonly slugNamespace: string;
    /** Names in the OpenAPI document. */
    readonly doc: {
        readonly tag: string;
        readonly one: string;
        readonly many: string;
        readonly noun: string;
        readonly about: string;
    };
    /** Domain errors a write can answer, beside the ones every term write shares. */
    readonly writeErrors: readonly CalendarErrorCode[];
}
/** Every taxonomy, in route registration order (CONTRACT 14.1). */
declare const TAXONOMIES: readonly [TaxonomyDescriptor<"category", "categories", "cal_events_cat">, TaxonomyDescriptor<"tag", "tags", "post_tag">];
/** A taxonomy descriptor. */
type Taxonomy = (typeof TAXONOMIES)[number];

type WithParent<T> = T & {
    parent: ArgSpec<number>;
};
/** Query parameters of `GET /categories` and `GET /tags` (SPEC, CONTRACT 8). */
declare function termListArgs(taxonomy: Taxonomy, variant: VariantConfig): WithParent<{
    page: ArgSpec<number, string | number>;
    per_page: ArgSpec<number, string | number>;
    search: ArgSpec<string, string>;
    exclude: ArgSpec<number[], string | number | (string | number)[]>;
    include: ArgSpec<number[], string | number | (string | number)[]>;
    order: ArgSpec<"asc" | "desc", unknown>;
    orderby: ArgSpec<"id" | "description" | "name" | "slug" | "count" | "term_group" | "include" | "include_slugs", unknown>;
    hide_empty: ArgSpec<boolean, string | boolean | 0 | 1>;
    post: ArgSpec<number, string | number>;
    event: ArgSpec<number, string | number>;
    slug: ArgSpec<string, string>;
}>;
/** Body fields of a term create (`required`) or update (SPEC, CONTRACT 12). */
declare function termWriteArgs(taxonomy: Taxonomy, required: boolean): WithParent<{
    name: ArgSpec<string, string>;
    description: ArgSpec<string, string>;
    slug: ArgSpec<string, string>;
}>;

/** Per-call options of the script API. */
interface CallOptions {
    /** Act as this principal; `null` = anonymous. Default: an administrator. */
    as?: Principal | null;
    /** Active language (variant B). */
    language?: string;
}
/** Options of a script create: `idempotencyKey` makes a retry return the first result (README "Retrying creates"). */
interface CreateOptions extends CallOptions {
    /** As the `Idempotency-Key` header: 1 to 255 characters, per caller, kept 24 hours; shared with HTTP creates of the same body. */
    idempotencyKey?: string;
}
/** `ml_language`, which every call declares in variant B (the `language` call option sets it too). */
type WithLanguage<T> = T & {
    ml_language?: string;
};
/** Query of `events.list`: the parameters of `GET /events` (CONTRACT 6.1; bounds filters in variant B). */
type EventListQuery = WithLanguage<ArgInput<EventListArgs>>;
/** Query of `events.feed`: the list's filters without paging, as `GET /events/ical` takes them. */
type EventFeedQuery = WithLanguage<ArgInput<ReturnType<typeof feedArgs>>>;
/** Body of `events.create`/`update`: the fields of CONTRACT 10.1 (`password` in variant B). */
type EventInput = Omit<WithLanguage<ArgInput<ReturnType<typeof eventWriteArgs>>>, 'venue' | 'organizer'> & {
    venue?: EventVenueInput;
    organizer?: EventOrganizerInput;
    password?: string | null;
};
/** `venue` of an event write: an id, `{ id }`, a venue to create (or reuse) inline, or a clearing value (`null`, `0`, `''`, `[]`). */
type EventVenueInput = number | string | {
    id: number;
} | VenueInput | null | (number | string | {
    id: number;
} | VenueInput)[];
/** `organizer` of an event write: one or a list (or comma-separated ids) of ids, `{ id }` objects or organizers to create inline. */
type EventOrganizerInput = number | string | {
    id: number;
} | OrganizerInput | null | (number | string | {
    id: number;
} | OrganizerInput)[];
/** Body of `events.updateOccurrence`: the event fields one occurrence may change. */
type OccurrenceInput = WithLanguage<ArgInput<ReturnType<typeof overrideArgs>>>;
/** Body of `events.updateFollowing`: the fields of `OccurrenceInput`, and the new series' `recurrence`. */
type FollowingInput = WithLanguage<ArgInput<ReturnType<typeof followingArgs>>>;
/** Body of `venues.create`/`update` (CONTRACT 11.1). */
type VenueInput = WithLanguage<ArgInput<LinkedWriteArgs<'venue', VenueDetailArgs>>>;
/** Body of `organizers.create`/`update` (CONTRACT 11.1). */
type OrganizerInput = WithLanguage<ArgInput<LinkedWriteArgs<'organizer', OrganizerDetailArgs>>>;
/** Query of `venues.list`/`organizers.list` (CONTRACT 7). */
type LinkedListQuery = WithLanguage<ArgInput<ReturnType<typeof linkedListArgs>>>;
/** Query of `categories.list`/`tags.list` (CONTRACT 8; `parent` for categories only). */
type TermListQuery = WithLanguage<ArgInput<ReturnType<typeof termListArgs>>>;
/** Body of `categories.create`/`update` and the tag calls (CONTRACT 12; `parent` for categories only). */
type TermInput = WithLanguage<ArgInput<ReturnType<typeof termWriteArgs>>>;

type Query = Record<string, unknown>;
type Body = Record<string, unknown>;
/** The typed script API of one resource with by-id and by-slug routes. */
interface PostResourceApi<T, L, Q = Query, I = Body> {
    list(query?: Q, options?: CallOptions): Promise<L>;
    get(id: number, options?: CallOptions & {
        password?: string;
    }): Promise<T>;
    getBySlug(slug: string, options?: CallOptions & {
        password?: string;
    }): Promise<T>;
    create(input: I, options?: CreateOptions): Promise<T>;
    update(id: number, input: I, options?: CallOptions): Promise<T>;
    updateBySlug(slug: string, input: I, options?: CallOptions): Promise<T>;
    delete(id: number, options?: CallOptions): Promise<T>;
    deleteBySlug(slug: string, options?: CallOptions): Promise<T>;
}
/** The script API of events: the common resource calls plus the origin lookup (extension). */
interface EventResourceApi extends PostResourceApi<EventResource, EventList, EventListQuery, EventInput> {
    /**
     * The event imported from `originUid` (its `origin_uid` write field, e.g. an iCalendar UID) in
     * the active language, or `undefined` when none exists or the caller may not see it. Trashed
     * events count: importers use this to skip or update instead of creating duplicates.
     */
    getByOrigin(originUid: string, options?: CallOptions): Promise<EventResource | undefined>;
    /**
     * Writes many events (issue 33): each item an event input with its `origin_uid` (venues,
     * organizers and terms inline or by reference), in batches of `batchSize` per transaction. An
     * item whose origin id an event has updates it (or is skipped: `existing`); one in the trash is
     * left there. An item the calendar refuses is reported in `errors` and the rest goes on.
     */
    import(items: Iterable<EventInput> | AsyncIterable<EventInput>, options?: ImportOptions): Promise<ImportSummary>;
    /**
     * Deletes one occurrence of a series (`DELETE /events/{id}/occurrences/{key}`): adds an EXDATE,
     * the series stays; answers the series.
     */
    deleteOccurrence(id: number, key: string, options?: CallOptions): Promise<EventResource>;
    /**
     * One occurrence of a series (`GET /events/{id}/occurrences/{key}`): the series' fields with the
     * occurrence's own dates, `occurrence`, `series_id` and `original_start_date` (docs/recurrence.md).
     */
    getOccurrence(id: number, key: string, options?: CallOptions): Promise<EventResource>;
    /**
     * Changes one occurrence of a series only (`PATCH /events/{id}/occurrences/{key}`); later series
     * edits leave it as it is. Answers the occurrence.
     */
    updateOccurrence(id: number, key: string, input: OccurrenceInput, options?: CallOptions): Promise<EventResource>;
    /**
     * Changes occurrence `key` and every later one (`PATCH /events/{id}/occurrences/{key}/following`):
     * the series ends before it and a new series starts there with the change; answers the new
     * series (at the first occurrence: the whole series, edited). docs/recurrence.md.
     */
    updateFollowing(id: number, key: string, input: FollowingInput, options?: CallOptions): Promise<EventResource>;
    /**
     * The iCalendar feed of the events `list(query)` would show the caller (`GET /events/ical`), as
     * text. A `key` in the query (a feed key) makes the key's user the caller, as over HTTP.
     */
    feed(query?: EventFeedQuery, options?: CallOptions): Promise<string>;
    /** One event as an iCalendar file (`GET /events/{id}/ical`), readable exactly when `get(id)` is. */
    ical(id: number, options?: CallOptions & {
        password?: string;
        key?: string;
    }): Promise<string>;
}
/** The script API of venues and organizers: the common resource calls plus the bulk import. */
interface LinkedResourceApi<T, L, I> extends PostResourceApi<T, L, LinkedListQuery, I> {
    /**
     * Writes many venues or organizers (issue 33): each item the fields of `create`, with an
     * optional `slug` it is found again by (and a new record takes), in batches of `batchSize` per
     * transaction. Found again (by `slug`, or without one by name as `create` reuses a record): updated
     * (or skipped: `existing`); one in the trash is left there. `ids` gives each item's record; an
     * item the calendar refuses is reported in `errors` and the rest goes on.
     */
    import(items: Iterable<I & {
        slug?: string;
    }> | AsyncIterable<I & {
        slug?: string;
    }>, options?: ImportOptions): Promise<LinkedImportSummary>;
}
/** The typed script API of categories and tags (term ids only, no slugs routes). */
interface TermResourceApi<T, L, Q = TermListQuery, I = TermInput> {
    list(query?: Q, options?: CallOptions): Promise<L>;
    get(id: number, options?: CallOptions): Promise<T>;
    create(input: I, options?: CreateOptions): Promise<T>;
    update(id: number, input: I, options?: CallOptions): Promise<T>;
    delete(id: number, options?: CallOptions): Promise<T>;
}
/** Options of `calendar.events.import()` and of `venues.import()`/`organizers.import()`: the call's (`as`, `language`) and the batches'. */
interface ImportOptions extends CallOptions, ImportBatchOptions {
}
/** The typed script services of a calendar (and of `withTransaction`'s callback). */
interface CalendarScripts {
    readonly events: EventResourceApi;
    readonly venues: LinkedResourceApi<VenueResource, VenueList, VenueInput>;
    readonly organizers: LinkedResourceApi<OrganizerResource, OrganizerList, OrganizerInput>;
    readonly categories: TermResourceApi<TermResource, CategoryList>;
    readonly tags: TermResourceApi<TermResource, TagList>;
    /** The root descriptor (`GET /cal/events/v1`) and the OpenAPI document (`GET /cal/events/v1/doc`). */
    readonly discovery: {
        describe(options?: CallOptions): Promise<RootDescriptor>;
        openapi(options?: CallOptions): Promise<OpenApiDocument>;
    };
    /** API tokens of the default authenticator. */
    readonly tokens: {
        /** Issues a token; `expires` (ISO 8601 date-time with a zone) makes it answer 401 from then on. */
        create(input: TokenInput): Promise<{
            token: string;
            info: TokenInfo;
        }>;
        register(token: string, input: TokenInput): Promise<TokenInfo>;
        list(): Promise<TokenInfo[]>;
        revoke(idOrPrefix: number | string): Promise<boolean>;
        hasAdmin(): Promise<boolean>;
    };
    /** Private feed keys: a secret in a feed URL that shows what one user may see, on the feed routes only. */
    readonly feedKeys: {
        /** Issues a key for an existing user (`login` or `userId`); the key is returned once. */
        create(input: FeedKeyInput): Promise<{
            key: string;
            info: FeedKeyInfo;
        }>;
        /** Every key (or one user's by login), newest first; never the secrets. */
        list(login?: string): Promise<FeedKeyInfo[]>;
        /** Revokes a key by id, prefix or the whole key; false when none was live. */
        revoke(idPrefixOrKey: number | string): Promise<boolean>;
    };
}

/** A running calendar: HTTP-neutral handler, route table and typed services. */
interface Calendar extends CalendarScripts {
    readonly options: ResolvedOptions;
    /** Routes in registration order; every adapter and the root descriptor use this table. */
    readonly routes: readonly RouteDef[];
    /** Answers one framework-neutral request; never rejects. */
    handle(request: CalendarRequest): Promise<CalendarResponse>;
    /**
     * The hot-read cache's fast path (docs/response-cache.md): for an anonymous GET/HEAD whose answer
     * is kept and still valid, that answer ready to write; `undefined` (at once, or once the shared
     * check is done) when the request must go to `handle`. An adapter calls it before its own routing.
     * `client`, `body` and `native` of the request are not read. Never rejects.
     */
    cachedAnswer(request: CalendarRequest): Promise<CachedAnswer | undefined> | undefined;
    /** Turns anything thrown into the contract's error response; given the request, with the CORS and compatibility-path headers its answers get. */
    toErrorResponse(err: unknown, request?: CalendarRequest): CalendarResponse;
    /**
     * Runs `work` with the script services inside the host's own transaction on `client` (a
     * `pg.PoolClient` or `pg.Client` after BEGIN): the calendar's writes commit or roll back with
     * the host's, and its reads see the transaction's writes. Each call is a savepoint: one that
     * fails is undone and leaves the host's transaction usable. The host commits or rolls back after
     * `work`; the services given to `work` refuse calls once it has returned. README "Embedding".
     *
     * @example
     * await client.query('begin')
     * const event = await calendar.withTransaction(client, (cal) => cal.events.create(input))
     * await client.query('insert into orders (event_id) values ($1)', [event.id])
     * await client.query('commit')
     */
    withTransaction<T>(client: HostClient, work: (calendar: CalendarScripts) => Promise<T>): Promise<T>;
    /**
     * Readiness: whether the database answers (within `timeoutMs`, default 2 s) and every migration
     * is applied, plus pool usage. Never throws; for `/readyz` probes and metrics.
     */
    health(timeoutMs?: number): Promise<HealthReport>;
    /** Connections of the PostgreSQL pool right now (`undefined` for PGlite); no database round trip. */
    poolStats(): PoolStats | undefined;
    /**
     * Does now the start-up work the first call would otherwise do (moving the stored occurrence
     * horizon of recurring events): a server calls it before listening, so no request pays for it.
     */
    warmUp(): Promise<void>;
    /** Releases the database. */
    close(): Promise<void>;
}

/**
 * Applies pending migrations and closes the database again: for deployments that migrate once
 * before starting instances with `migrate: false`.
 *
 * @example
 * const { applied } = await migrateCalendar({ database: { url: process.env.DATABASE_URL! } })
 */
declare function migrateCalendar(input?: CalendarOptions): Promise<MigrationReport>;
/**
 * Opens the database (running migrations) and returns the calendar.
 *
 * @example
 * const calendar = await createCalendar({ database: { url: process.env.DATABASE_URL! } })
 * const event = await calendar.events.create({ title: 'Open day', start_date: '2027-06-01 10:00:00', end_date: '2027-06-01 16:00:00' })
 * await calendar.close()
 */
declare function createCalendar(input?: CalendarOptions): Promise<Calendar>;

/** A calendar key: lower-case letters, digits and inner hyphens, 1 to 50 characters (URL- and schema-safe). */
declare const CALENDAR_KEY: RegExp;
/** Options one calendar of a set may have of its own (kept in the registry, applied over the set's). */
interface CalendarSettings {
    variant?: 'A' | 'B';
    languages?: string[];
    siteTimezone?: string;
    publicBaseUrl?: string;
    dateFilterMode?: 'event-local' | 'utc';
    unfilteredHtml?: 'editors' | 'nobody';
}
/** `calendars.create`'s options: the calendar's own settings, and optionally an existing schema to take in. */
interface CreateCalendarOptions extends CalendarSettings {
    /**
     * The schema to keep the calendar in. Default `cal_c_<key>` (hyphens as underscores). An existing
     * calendar's schema (`cal_events` of a single-calendar install) is taken in as it is, data kept.
     */
    schema?: string;
}
/** One calendar of the registry. */
interface CalendarInfo {
    readonly key: string;
    readonly schema: string;
    readonly settings: CalendarSettings;
    /** ISO 8601 instant. */
    readonly createdAt: string;
}
/** Options of `createCalendars`: every calendar option but `schema`, shared by all calendars, and the set's own. */
interface CalendarsOptions extends Omit<CalendarOptions, 'schema' | 'authenticate'> {
    /**
     * Replaces the default bearer-token authenticator, for every calendar; told which calendar the
     * request is for, so one user may hold a different role in each.
     */
    authenticate?: (request: Parameters<Authenticate>[0], calendar: {
        readonly key: string;
    }) => ReturnType<Authenticate>;
    /** Schema of the registry of keys. Default `cal_registry`. */
    registrySchema?: string;
    /**
     * Calendars kept open at most (the most recently used); another one is opened again when asked
     * for (one statement, its migrations checked). An open idle calendar keeps about 30 kB of heap
     * (its handle, dispatcher and caches; the operations, their routes and the query compiler are shared,
     * the script API is built on first use); a closed one costs a registry row. Default 500 (about 15 MB).
     */
    maxOpen?: number;
    /**
     * Schemas kept migrated ahead of need (listed in the registry, made in the background after a
     * `create`), so that `create` renames one instead of running every migration: milliseconds, not
     * the ~100 ms to 1 s of the migrations' DDL. Default 2 on PostgreSQL, 0 on PGlite (one session:
     * a spare being made would hold every request); 0: each `create` migrates its schema.
     */
    spareSchemas?: number;
}
/** Many calendars on one pool: `create`, `get`, `list`, `delete`, each answering the same `Calendar` as `createCalendar`. */
interface Calendars {
    /** The options shared by every calendar (each calendar's `options` adds its own settings). */
    readonly options: ResolvedOptions;
    /** Creates a calendar (its schema, migrated) and registers `key`; a key in use is an error. */
    create(key: string, options?: CreateCalendarOptions): Promise<Calendar>;
    /** The calendar of `key`, opened if it is not; `undefined` when no calendar has that key. A malformed key throws (`INVALID_CALENDAR_KEY`). */
    get(key: string): Promise<Calendar | undefined>;
    /** As `get`, but an unknown key throws `CALENDAR_NOT_FOUND` (404 over HTTP): for request resolvers. */
    resolve(key: string): Promise<Calendar>;
    /** Every registered calendar, by key. */
    list(): Promise<CalendarInfo[]>;
    /** Drops the calendar of `key` and all its data; false when there was none. */
    delete(key: string): Promise<boolean>;
    /** Calendars open right now (in memory). */
    openCount(): number;
    /**
     * The calendar of `key` if it is open and started, else `undefined`: no I/O, and not counted as a
     * use (the least recently used still goes first). For observers such as the metrics router.
     */
    opened(key: string): Calendar | undefined;
    /** Connections of the shared PostgreSQL pool (`undefined` for PGlite). */
    poolStats(): PoolStats | undefined;
    /**
     * Readiness: whether the shared database answers (the registry is read within `timeoutMs`,
     * default 2 s), plus pool usage. Each calendar checks its own migrations when it opens. Never throws.
     */
    health(timeoutMs?: number): Promise<HealthReport>;
    /** Stops every calendar's background work and releases the shared database. */
    close(): Promise<void>;
}
/**
 * Opens the database once for many calendars (one pool, or one PGlite session) and its registry of
 * keys. `database` and every other option apply to all calendars; `create` adds a calendar's own settings.
 *
 * @example
 * const calendars = await createCalendars({ database: { url: process.env.DATABASE_URL! } })
 * const chess = await calendars.create('chess-club', { siteTimezone: 'Europe/Paris' })
 * const same = await calendars.get('chess-club')
 */
declare function createCalendars(input?: CalendarsOptions): Promise<Calendars>;

export { type Authenticate, CALENDAR_KEY, type CachedAnswer, type Calendar, CalendarError, type CalendarErrorCode, type CalendarInfo, type CalendarOptions, type CalendarRequest, type CalendarResponse, type CalendarScripts, type CalendarSettings, type Calendars, type CalendarsOptions, type CallOptions, type CategoryList, type CorsOptions, type CreateCalendarOptions, type CreateOptions, type DatabaseOptions, type DescribedArg, type DescribedRoute, type Endpoint, type EventFeedQuery, type EventInput, type EventList, type EventListQuery, type EventLoopDelay, type EventOrganizerInput, type EventResource, type EventResourceApi, type EventVenueInput, type ExistingPolicy, type FeedKeyInfo, type FeedKeyInput, type FollowingInput, type HealthReport, type HostClient, type HostPool, type HostPoolClient, type HostQueryConfig, type HttpMethod, type ImportItemError, type ImportOptions, type ImportProgress, type ImportSummary, type LinkedImportItemError, type LinkedImportSummary, type LinkedListQuery, type LinkedResourceApi, type MigrationReport, NAMESPACE, type OccurrenceInput, type OpenApiDocument, type OpenApiOperation, type OrganizerInput, type OrganizerList, type OrganizerResource, type PoolStats, type PostResourceApi, type Principal, ROLES, type ReadStats, type ResolvedOptions, type Role, type RootDescriptor, type RouteDef, type TagList, type TermInput, type TermListQuery, type TermResource, type TermResourceApi, type TokenInfo, type TokenInput, type VenueInput, type VenueList, type VenueResource, WP_NAMESPACE, createCalendar, createCalendars, eventLoopDelay, migrateCalendar };
