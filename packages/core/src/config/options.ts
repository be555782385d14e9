import { z } from 'zod'
import { isValidTimezone } from '../time/wall-time.js'
import { VARIANTS, type VariantConfig } from './variants.js'
import { DEFAULT_SCHEMA, SCHEMA_NAME } from '../db/schema.js'
import type { Principal } from '../auth/principal.js'
import type { DatabaseOptions } from '../db/database-options.js'
import type { GuessLimit } from '../auth/guess-limiter.js'
import { normalizeOrigins, type CorsOptions } from './cors-options.js'
import { DEFAULT_FEEDS, DEFAULT_RESPONSE_CACHE, type FeedOptions, type ResponseCacheOptions } from './service-options.js'

export type { DatabaseOptions, PGliteInstance } from '../db/database-options.js'
export type { CorsOptions } from './cors-options.js'
export type { FeedOptions, ResponseCacheOptions } from './service-options.js'

/** Who keeps unfiltered HTML: editors and up (WordPress single site), or nobody. */
export type UnfilteredHtml = 'editors' | 'nobody'

/**
 * What an `authenticate` hook sees of a request: these fields of `CalendarRequest`, under the same
 * names (`native` is the adapter's own request object).
 */
export interface AuthenticateRequest {
  method: string
  /** Path below the mount point, starting with `/cal/events/v1`. */
  path: string
  headers: Record<string, string | string[] | undefined>
  native?: unknown
}

/**
 * Hook that turns a request into a principal; `null` = anonymous. Throwing rejects the request.
 * `native` is the adapter's own request (Express: `req`, so `req.session` or `req.user` of the host).
 */
export type Authenticate = (request: AuthenticateRequest) =>
  | Principal
  | null
  | undefined
  | Promise<Principal | null | undefined>

/** Options of `createCalendar()`. */
export interface CalendarOptions {
  /** `A` (base, default) or `B` (multilingual). */
  variant?: 'A' | 'B'
  /** Languages of variant B, default language first. Default `['en', 'es']`. */
  languages?: string[]
  /** Site time zone (IANA name or `UTC±h`). Default `UTC`. */
  siteTimezone?: string
  /** Public site URL used for `url`, `global_id` and term archive links. Default: the request's origin. */
  publicBaseUrl?: string
  /** Database. Default: embedded PGlite in memory (with `@electric-sql/pglite` installed). */
  database?: DatabaseOptions
  /**
   * PostgreSQL schema for the calendar's tables, functions and migration records, created by the
   * migrations; nothing else in the database is touched. Default `cal_events`.
   */
  schema?: string
  /** Run pending migrations on start. Default `true`. */
  migrate?: boolean
  /** Replaces the default bearer-token authenticator. */
  authenticate?: Authenticate
  /** How list date bounds compare (CONTRACT O-11). Default `event-local`. */
  dateFilterMode?: 'event-local' | 'utc'
  /** Largest request body in bytes. Default 1 MB. */
  maxBodyBytes?: number
  /** Called with every unexpected error (the response says only "Internal server error."). */
  onError?: (err: unknown) => void
  /** Called after every SQL statement with its parameters (statement counting, tracing, replaying). */
  onQuery?: (sql: string, durationMs: number, parameters: readonly unknown[]) => void
  /**
   * Wrong password guesses one client may make on one event per window before getting 429
   * (variant B). Default 10 per 60 s, remembering at most 10,000 (event, client) pairs.
   */
  passwordGuesses?: { attempts?: number; windowMs?: number; maxKeys?: number }
  /**
   * Failed logins (a well-formed Bearer token or Basic `login:token` that is wrong, unknown,
   * revoked or expired) one client may make per window before every request with credentials
   * gets 429 until the window ends. Default 10 per 60 s, remembering at most 10,000 clients. Not
   * used with an `authenticate` hook (the host checks its own credentials), nor for requests that
   * name no `client` (one count shared by all would lock everybody out).
   */
  loginGuesses?: { attempts?: number; windowMs?: number; maxKeys?: number }
  /**
   * Who keeps unfiltered HTML in descriptions, excerpts, titles and names: `'editors'` (editors and
   * administrators, as WordPress on a single site; default) or `'nobody'`. Everybody else's HTML is
   * reduced to the documented allow-list on write.
   */
  unfilteredHtml?: UnfilteredHtml
  /** Clock, for tests. Default `() => new Date()`. */
  now?: () => Date
  /** Cross-origin access for browser clients on other sites. Default: off (no CORS headers). */
  cors?: CorsOptions
  /**
   * Also serve the API under the reference plugin's path `/wp-json/tribe/events/v1`, with its
   * header names (`X-TEC-Total`) and `rest_url`s into that path. Default `false`.
   */
  wpCompat?: boolean
  /**
   * The hot-read cache: anonymous GET/HEAD answers kept in memory and served again while the change
   * log shows no write since they were read (one small statement per request instead of the
   * read; docs/response-cache.md). `false` turns it off. Default on, 32 MB and 10,000 answers.
   */
  responseCache?: Partial<ResponseCacheOptions> | false
  /**
   * Bounds of iCalendar feeds (docs/ical.md "Bounds and the shared answer"): builds at once
   * (`concurrency`, default 1), builds waiting for one (`queue`, 4, each at most `queueWaitMs`,
   * 5000; beyond, `503 rest_feed_busy` with `Retry-After`), events per feed (`maxEvents`, 25,000)
   * and memory for kept feeds shared by every poll (`cacheBytes`, 64 MB; 0 keeps none), worker
   * threads that build the text off the event loop (`workers`, 1; 0 builds it on the loop in slices).
   */
  feeds?: Partial<FeedOptions>
}

const languageCode = z.string().regex(/^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})?$/, 'a language code such as en or pt_BR')

const OptionsSchema = z.object({
  variant: z.enum(['A', 'B']).default('A'),
  languages: z.array(languageCode).min(1).optional(),
  siteTimezone: z.string().refine(isValidTimezone, 'an IANA time zone or UTC±h').default('UTC'),
  publicBaseUrl: z.url({ protocol: /^https?$/ }).optional(),
  dateFilterMode: z.enum(['event-local', 'utc']).default('event-local'),
  maxBodyBytes: z.number().int().positive().default(1024 * 1024),
  schema: z.string().regex(SCHEMA_NAME, 'a lower-case identifier such as cal_events').default(DEFAULT_SCHEMA),
  migrate: z.boolean().default(true),
  wpCompat: z.boolean().default(false),
  responseCache: z
    .union([
      z.literal(false),
      z.object({
        maxBytes: z.number().int().positive().default(DEFAULT_RESPONSE_CACHE.maxBytes),
        maxEntries: z.number().int().positive().default(DEFAULT_RESPONSE_CACHE.maxEntries),
      }).strict(),
    ])
    .default({ ...DEFAULT_RESPONSE_CACHE }),
  feeds: z
    .object({
      concurrency: z.number().int().positive().default(DEFAULT_FEEDS.concurrency),
      queue: z.number().int().nonnegative().default(DEFAULT_FEEDS.queue),
      queueWaitMs: z.number().int().positive().default(DEFAULT_FEEDS.queueWaitMs),
      maxEvents: z.number().int().positive().default(DEFAULT_FEEDS.maxEvents),
      cacheBytes: z.number().int().nonnegative().default(DEFAULT_FEEDS.cacheBytes),
      workers: z.number().int().nonnegative().max(16).default(DEFAULT_FEEDS.workers),
    })
    .strict()
    .default({ ...DEFAULT_FEEDS }),
  unfilteredHtml: z.enum(['editors', 'nobody']).default('editors'),
  passwordGuesses: z
    .object({
      attempts: z.number().int().positive().default(10),
      windowMs: z.number().int().positive().default(60_000),
      maxKeys: z.number().int().positive().default(10_000),
    })
    .default({ attempts: 10, windowMs: 60_000, maxKeys: 10_000 }),
  loginGuesses: z
    .object({
      attempts: z.number().int().positive().default(10),
      windowMs: z.number().int().positive().default(60_000),
      maxKeys: z.number().int().positive().default(10_000),
    })
    .default({ attempts: 10, windowMs: 60_000, maxKeys: 10_000 }),
})

/** Options after validation and defaults; never mutated. */
export interface ResolvedOptions {
  readonly variant: VariantConfig
  /** Languages of variant B (default first); empty in variant A. */
  readonly languages: readonly string[]
  readonly siteTimezone: string
  readonly publicBaseUrl: string | undefined
  readonly dateFilterMode: 'event-local' | 'utc'
  readonly maxBodyBytes: number
  readonly migrate: boolean
  readonly unfilteredHtml: UnfilteredHtml
  readonly passwordGuesses: GuessLimit
  readonly loginGuesses: GuessLimit
  readonly schema: string
  readonly database: DatabaseOptions
  readonly authenticate: Authenticate | undefined
  readonly onError: ((err: unknown) => void) | undefined
  readonly onQuery: ((sql: string, durationMs: number, parameters: readonly unknown[]) => void) | undefined
  readonly now: () => Date
  readonly cors: CorsOptions | undefined
  readonly wpCompat: boolean
  /** The hot-read cache's bounds, or `false` when it is off. */
  readonly responseCache: ResponseCacheOptions | false
  /** Bounds of iCalendar feeds. */
  readonly feeds: FeedOptions
  /**
   * A calendar of a set (`createCalendars`): without a `publicBaseUrl`, its site links (`url`,
   * `global_id`, term links) sit under the mount too, so two calendars' links never meet.
   */
  readonly siteUnderMount?: boolean
}

/** Validates the options once; throws a readable error naming each bad option. */
export function resolveOptions(options: CalendarOptions = {}): ResolvedOptions {
  const parsed = OptionsSchema.safeParse(options)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
    throw new TypeError(`Invalid calendar options: ${problems}`)
  }
  const o = parsed.data
  const cors = resolveCors(options.cors)
  const variant = VARIANTS[o.variant]
  const languages = variant.multilingual ? (options.languages ?? ['en', 'es']) : []
  return Object.freeze({
    variant,
    languages: Object.freeze([...languages]),
    siteTimezone: o.siteTimezone,
    publicBaseUrl: o.publicBaseUrl?.replace(/\/+$/, ''),
    dateFilterMode: o.dateFilterMode,
    maxBodyBytes: o.maxBodyBytes,
    migrate: o.migrate,
    unfilteredHtml: o.unfilteredHtml,
    passwordGuesses: Object.freeze({ ...o.passwordGuesses }),
    loginGuesses: Object.freeze({ ...o.loginGuesses }),
    schema: o.schema,
    database: options.database ?? ({ memory: true } as const),
    authenticate: options.authenticate,
    onError: options.onError,
    onQuery: options.onQuery,
    now: options.now ?? (() => new Date()),
    cors,
    wpCompat: o.wpCompat,
    responseCache: o.responseCache === false ? false : Object.freeze({ ...o.responseCache }),
    feeds: Object.freeze({ ...o.feeds }),
  })
}

function resolveCors(cors: CorsOptions | undefined): CorsOptions | undefined {
  if (cors === undefined) return undefined
  const maxAge = cors.maxAgeSeconds
  if (!Array.isArray(cors.origins) || (maxAge !== undefined && (!Number.isInteger(maxAge) || maxAge < 0))) {
    throw new TypeError('Invalid calendar options: cors: expected { origins: string[], maxAgeSeconds?: integer >= 0 }')
  }
  try {
    return Object.freeze({ origins: Object.freeze(normalizeOrigins(cors.origins)), maxAgeSeconds: maxAge })
  } catch (err) {
    throw new TypeError(`Invalid calendar options: ${(err as Error).message}`, { cause: err })
  }
}
