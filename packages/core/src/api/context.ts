import type { Kysely } from 'kysely'
import type { Principal } from '../auth/principal.js'
import type { ResolvedOptions } from '../config/options.js'
import type { DB } from '../db/generated.js'
import type { IdempotencyClaim } from './idempotency.js'

/** Absolute URL roots for one request. */
export interface Urls {
  /** REST root including the namespace: `http://host/cal/events/v1`. */
  readonly rest: string
  /** Public site URL: `http://host`. */
  readonly site: string
  /** `global_id` prefix: host and path of the site URL, e.g. `cal.example.org`. */
  readonly globalIdBase: string
}

/** What every service call knows about its caller and the service. */
export interface CallContext {
  readonly principal: Principal | null
  /** The client's address over HTTP; `''` for the script API and adapters that pass none. */
  readonly client: string
  /** Active language in variant B; `''` in variant A. */
  readonly language: string
  /**
   * The call's moment. Read it through `clock.now()` only: the hot-read cache keeps an answer that
   * read it for one clock slot only (docs/response-cache.md), and the clock records every read
   * whichever copy of the context made it.
   */
  readonly clock: RequestClock
  readonly urls: Urls
  readonly options: ResolvedOptions
  readonly db: Kysely<DB>
  /** When `db` is a read replica: its replay position known when it was chosen (`db/replicas.ts`). */
  readonly readPosition?: bigint
  /** Raw parameters exactly as the client sent them, by source (`rest_url` echoes, renames). */
  readonly raw: RawParams
  /** A create's `Idempotency-Key`, claimed by its write transaction (`api/write.ts`). */
  readonly idempotency?: IdempotencyClaim
  /** A GET's validators (`If-None-Match`, `If-Modified-Since`), for operations that answer 304 themselves (feeds). */
  readonly conditional?: Conditional
}

/**
 * The moment of one call, and whether anything in the call asked for it. It is an object of its
 * own, shared by every copy of the context (a spread copies the reference), so an answer that
 * depends on the time is known as such however the context was passed on.
 */
export interface RequestClock {
  /** The call's moment (the same for the whole call); records that the answer may depend on it. */
  now(): Date
  /** Whether `now()` was called so far. */
  readonly read: boolean
}

/** A clock standing at `at` for one call. */
export function requestClock(at: Date): RequestClock {
  let read = false
  return {
    now() {
      read = true
      return at
    },
    get read() {
      return read
    },
  }
}

/** The request's conditional headers, as sent. */
export interface Conditional {
  readonly ifNoneMatch?: string
  readonly ifModifiedSince?: string
}

/** Parameters of a call by where they came from. */
export interface RawParams {
  readonly path: Readonly<Record<string, string>>
  readonly query: Readonly<Record<string, unknown>>
  readonly body: Readonly<Record<string, unknown>>
}

/** The REST namespace. */
export const NAMESPACE = 'cal/events/v1'

/** The reference plugin's REST path, served as well when the `wpCompat` option is on. */
export const WP_NAMESPACE = 'wp-json/tribe/events/v1'

/** The reference plugin's namespace, as its root descriptor names it (its path without `wp-json/`). */
export const WP_REST_NAMESPACE = 'tribe/events/v1'

/**
 * Builds the URL roots from the configured public URL or, without one, the request's (checked)
 * origin. A configured public URL is used for `rest_url`s too: a client's `Host` is never
 * reflected when the service knows its own address. `namespace` is the path the client used.
 */
export function buildUrls(publicBaseUrl: string | undefined, origin: string | undefined, mountPath = '', namespace = NAMESPACE, siteUnderMount = false): Urls {
  const requestRoot = (publicBaseUrl ?? origin ?? 'http://localhost').replace(/\/+$/, '')
  const mount = mountPath.replace(/\/+$/, '')
  // One calendar of many: its site is its mount (`/groups/chess`), or its own public URL.
  const site = publicBaseUrl ?? (siteUnderMount ? `${requestRoot}${mount}` : requestRoot)
  const parsed = new URL(site)
  return {
    rest: `${requestRoot}${mount}/${namespace}`,
    site,
    globalIdBase: `${parsed.hostname}${parsed.pathname.replace(/\/+$/, '')}`,
  }
}

/** Where one call comes from: HTTP (`http/dispatch.ts`) or the script API (`create-calendar.ts`). */
export interface CallSource {
  readonly principal: Principal | null
  readonly raw: RawParams
  /** The client's address (HTTP); `''` when unknown. */
  readonly client?: string
  /** A language chosen outside the parameters (the script API's option); wins over `ml_language`. */
  readonly language?: string
  /** Origin the request came in on (`http://host:port`); the public URL wins when configured. */
  readonly origin?: string
  /** Path the calendar is mounted under by the host. */
  readonly mountPath?: string
  /** REST namespace the call came in under (the compatibility namespace, or ours by default). */
  readonly namespace?: string
  /** Conditional headers of an HTTP GET or HEAD. */
  readonly conditional?: Conditional
}

/** Picks the active language of variant B from the raw `ml_language` (validated later). */
export function activeLanguage(options: ResolvedOptions, raw: unknown): string {
  if (!options.variant.multilingual) return ''
  return typeof raw === 'string' && options.languages.includes(raw) ? raw : options.languages[0]!
}

/**
 * The one builder of a call's context, and the parameters the operation parses: body over query,
 * path placeholders over both (O-13).
 */
export function buildCallContext(
  source: CallSource,
  options: ResolvedOptions,
  db: Kysely<DB>,
): { ctx: CallContext; params: Record<string, unknown> } {
  const { path, query, body } = source.raw
  const params: Record<string, unknown> = { ...query, ...body, ...path }
  if (source.language) params.ml_language = source.language
  const ctx: CallContext = {
    principal: source.principal,
    client: source.client ?? '',
    language: activeLanguage(options, params.ml_language),
    clock: requestClock(options.now()),
    urls: buildUrls(options.publicBaseUrl, source.origin, source.mountPath, source.namespace, options.siteUnderMount),
    options,
    db,
    raw: source.raw,
    ...(source.conditional ? { conditional: source.conditional } : {}),
  }
  return { ctx, params }
}
