import type { Kysely } from 'kysely'
import { buildCallContext, NAMESPACE, WP_NAMESPACE, type CallContext } from '../api/context.js'
import { idempotencyFingerprint, withIdempotencyKey } from '../api/idempotency.js'
import { invoke } from '../api/operation.js'
import { invalidFeedKey, looksLikeFeedKey, resolveFeedKey } from '../auth/feed-keys.js'
import { createGuessLimiter, type GuessLimiter } from '../auth/guess-limiter.js'
import { authenticateBearer } from '../auth/tokens.js'
import type { Principal } from '../auth/principal.js'
import type { ResolvedOptions } from '../config/options.js'
import type { DB } from '../db/generated.js'
import { CalendarError, invalidParams } from '../errors.js'
import { addVary, entityTag, NOT_MODIFIED_HEADERS, noneMatchHits, PUBLIC_MAX_AGE_SECONDS, visibilityKey } from './conditional.js'
import { toErrorResponse } from './error-response.js'
import { checkedOrigin } from './origin.js'
import { readPreconditions, runItemWrite } from './preconditions.js'
import { referenceBody } from './reference-body.js'
import { parseBody, parseQueryString } from './parse-input.js'
import type { CachedAnswer, CalendarRequest, CalendarResponse } from './request.js'
import { createCorsPolicy } from './cors.js'
import { createResponseCache, type BodyEncoding, type ChangeValidator } from './response-cache.js'
import { matchRoute, type CompiledRoute } from './routes.js'

const JSON_TYPE = 'application/json; charset=UTF-8'
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])
const STATIC_ROUTES = new RegExp(`^/${NAMESPACE}(/doc)?$`)

function header(request: CalendarRequest, name: string): string | undefined {
  const value = request.headers[name] ?? request.headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : value
}

/** The headers of a 200 that its 304 repeats. */
function notModifiedHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(NOT_MODIFIED_HEADERS.filter((n) => headers[n] !== undefined).map((n) => [n, headers[n]!]))
}

/**
 * Resolves the caller: the host's hook when configured, else the bearer-token authenticator, its
 * failed logins counted per client by `logins` when given.
 */
export async function resolvePrincipal(
  request: CalendarRequest,
  options: ResolvedOptions,
  db: Kysely<DB>,
  logins?: GuessLimiter,
): Promise<Principal | null> {
  if (options.authenticate) return (await options.authenticate(request)) ?? null
  const key = request.client
  // Without a client address every caller would share one count, and ten bad tokens from anybody
  // would lock everybody out: such an adapter gets no limit.
  const guard = logins && key ? { check: () => logins.check(key, options.now().getTime()), fail: () => logins.fail(key, options.now().getTime()) } : undefined
  return authenticateBearer(db, header(request, 'authorization'), guard)
}

/** The 429 of a client that used up its failed logins. */
const loginMessage = (seconds: number) => `Too many failed logins from this client; try again in ${seconds} seconds.`

/**
 * The user a feed URL's `key` stands for. With an Authorization header as well, which of the two
 * should decide what the feed shows is unclear: that is refused rather than guessed.
 */
async function feedKeyPrincipal(request: CalendarRequest, key: unknown, db: Kysely<DB>): Promise<Principal> {
  if (header(request, 'authorization') !== undefined) {
    throw invalidParams({ key: 'Send either a feed key or an Authorization header, not both.' })
  }
  return resolveFeedKey(db, key)
}

/** The methods a route serves, in registration order (`Allow`, preflight answers). */
function methodsOf(route: CompiledRoute): string[] {
  return [...new Set(route.endpoints.flatMap((e) => e.methods))]
}

/**
 * What the reference sends to a signed-in caller (WordPress's `nocache_headers()`): answers that
 * depend on who asks must not be kept by a browser or a shared cache.
 */
const NO_CACHE_HEADERS = {
  Expires: 'Wed, 11 Jan 1984 05:00:00 GMT',
  'Cache-Control': 'no-cache, must-revalidate, max-age=0, no-store, private',
}

/** Anonymous reads: shared caches may keep them briefly and revalidate with the `ETag`. */
const PUBLIC_CACHE_HEADERS = { 'Cache-Control': `public, max-age=${PUBLIC_MAX_AGE_SECONDS}` }

/**
 * The request path under our namespace, cleaned: `rest_url`s end collections with a slash
 * (CONTRACT 5.4), and a client joining a base URL that ends in `/` with a path that starts with one
 * sends `//`. The compatibility path is the same table: its requests are matched under our namespace.
 */
function namespacedPath(requestPath: string, namespace: string): string {
  const cleaned = requestPath.length > 1 ? requestPath.replace(/\/{2,}/g, '/').replace(/\/+$/, '') : requestPath
  return namespace === NAMESPACE ? cleaned : `/${NAMESPACE}${cleaned.slice(namespace.length + 1)}`
}

/** Origins recently checked, so the fast path does not parse the same `Host` per request. */
const ORIGIN_MEMO_SIZE = 64

/** Builds the framework-neutral request handler over the compiled route table. */
export function createDispatcher(routes: readonly CompiledRoute[], options: ResolvedOptions, db: Kysely<DB>, validator?: ChangeValidator) {
  const cors = createCorsPolicy(options.cors)
  // Preflight answers carry their own CORS headers; everything else is decorated on the way out.
  const preflights = new WeakSet<CalendarResponse>()
  const exposedExtra = options.wpCompat ? Object.values(REFERENCE_HEADERS) : []
  const cache = createResponseCache(options.responseCache, db, options.now, validator)
  // Failed Basic/Bearer logins per client (issue 28), like wrong event passwords per event and client.
  const logins = createGuessLimiter(options.loginGuesses, loginMessage)

  async function answer(request: CalendarRequest, namespace: string): Promise<CalendarResponse> {
    let principal: Principal | null = null
    let allow: string | undefined
    try {
      // Checked first: RFC 9112 answers a malformed Host with 400 whatever the route.
      const origin = checkedOrigin(request.origin)
      const method = request.method.toUpperCase()
      const path = namespacedPath(request.path, namespace)
      const match = matchRoute(routes, path, method)
      if (match) allow = methodsOf(match.route).join(', ')
      if (match && cors && method === 'OPTIONS') {
        const preflight = cors.preflight(request, methodsOf(match.route))
        preflights.add(preflight)
        return preflight
      }
      if (!match?.endpoint) {
        throw new CalendarError('NO_ROUTE', 'No route was found matching the URL and request method.')
      }
      let query: Record<string, unknown>
      if (match.endpoint.feedKey) {
        query = parseQueryString(request.query)
        principal = query.key === undefined ? await resolvePrincipal(request, options, db, logins) : await feedKeyPrincipal(request, query.key, db)
      } else {
        // The contract's order for everything else: credentials, then parameters.
        principal = await resolvePrincipal(request, options, db, logins)
        query = parseQueryString(request.query)
        // A feed key is read-only and for feeds: anywhere else it is no credential at all.
        if (looksLikeFeedKey(query.key)) throw invalidFeedKey()
      }
      const parsed = BODY_METHODS.has(method)
        ? parseBody(request.body, header(request, 'content-type'), options.maxBodyBytes)
        : {}
      const body = namespace === WP_NAMESPACE ? referenceBody(parsed) : parsed
      if (looksLikeFeedKey(body.key)) throw invalidFeedKey()
      // Anonymous reads may be answered from the hot-read cache (response-cache.ts). The root
      // descriptor and `/doc` read no data: a check would cost more than answering them. Feeds
      // are streamed text, never kept.
      const keepable = !match.endpoint.feedKey && !match.endpoint.sync && !STATIC_ROUTES.test(match.route.pattern)
      const slot = cache && !principal && (method === 'GET' || method === 'HEAD') && keepable
        ? cache.slot({ namespace, origin, mountPath: request.mountPath, path, query: request.query }, query)
        : undefined
      const cached = await slot?.fresh(header(request, 'if-none-match'))
      if (cached) return cached
      const conditional = method === 'GET' || method === 'HEAD'
        ? { ifNoneMatch: header(request, 'if-none-match'), ifModifiedSince: header(request, 'if-modified-since') }
        : undefined
      const built = buildCallContext(
        { principal, raw: { path: match.params, query, body }, client: request.client, origin, mountPath: request.mountPath, namespace, conditional },
        options,
        db,
      )
      const { params, ctx } = built
      const operation = match.endpoint.operation
      const item = match.endpoint.item
      // If-Match and company count on an item's update and delete; elsewhere they are ignored.
      const conditions = item && item.write !== 'create' ? readPreconditions((name) => header(request, name), ctx.clock.now()) : undefined
      const run = (c: CallContext) => (item ? runItemWrite(item, operation, params, c, namespace, conditions) : invoke(operation, params, c))
      // Keys are per caller; an anonymous create is refused by the operation anyway.
      const key = match.endpoint.idempotent && principal ? header(request, 'idempotency-key') : undefined
      const result = key === undefined || !principal
        ? await run(ctx)
        : await withIdempotencyKey(db, principal.id, key, idempotencyFingerprint(method, path, body), (idempotency) => run({ ...ctx, idempotency }))
      const status = result.status ?? 200
      const read = (method === 'GET' || method === 'HEAD') && status === 200 && !result.stream && result.body !== undefined
      // An operation that states its own caching (a feed with validators) keeps it.
      const ownCaching = result.headers?.['Cache-Control'] !== undefined
      const caching = ownCaching ? {} : principal ? NO_CACHE_HEADERS : read ? PUBLIC_CACHE_HEADERS : {}
      const headers: Record<string, string> = { 'Content-Type': JSON_TYPE, ...caching, ...result.headers }
      // An operation's own 304 (a feed's validators matched) repeats only what RFC 9110 15.4.5 allows.
      if (status === 304) return { status, headers: notModifiedHeaders(headers), body: undefined }
      if (!read) return { status, headers, body: result.body, ...(result.stream ? { stream: result.stream } : {}) }
      // Reads depend on who asks; a host hook may tell callers apart by their session cookie.
      headers.Vary = addVary(headers.Vary, ...(options.authenticate ? ['Authorization', 'Cookie'] : ['Authorization']))
      const text = JSON.stringify(result.body)
      headers.ETag = entityTag(text, result.headers ?? {}, visibilityKey(principal), namespace)
      if (!ownCaching) slot?.keep(status, headers, text, ctx.clock)
      if (noneMatchHits(header(request, 'if-none-match'), headers.ETag)) return { status: 304, headers: notModifiedHeaders(headers), body: undefined }
      return { status, headers, body: result.body, text }
    } catch (err) {
      const response = toErrorResponse(err, options.onError)
      // A known path asked with a method it does not serve: say which ones it does (a 405 in all
      // but status, which stays the contract's 404 rest_no_route).
      if (allow !== undefined && err instanceof CalendarError && err.code === 'NO_ROUTE') response.headers.Allow = allow
      if (principal) Object.assign(response.headers, NO_CACHE_HEADERS)
      return response
    }
  }

  /** What every answer gets on its way out: the reference's header names on its path, CORS. */
  function finish(request: CalendarRequest, answered: CalendarResponse, namespace = namespaceOf(request)): CalendarResponse {
    const response = namespace === WP_NAMESPACE ? withReferenceHeaders(answered) : answered
    return cors && !preflights.has(response) ? cors.decorate(request, response, exposedExtra) : response
  }

  /** The namespace a request is answered in: the reference's path only when compatibility is on. */
  function namespaceOf(request: CalendarRequest): string {
    return options.wpCompat && isUnder(request.path, WP_NAMESPACE) ? WP_NAMESPACE : NAMESPACE
  }

  const origins = new Map<string, string | undefined>()
  /** `checkedOrigin`, memoised; `null` for a malformed one (the full path answers it with 400). */
  function originOf(raw: string | undefined): string | undefined | null {
    if (raw === undefined) return undefined
    let origin = origins.get(raw)
    if (origin === undefined) {
      try {
        origin = checkedOrigin(raw)!
      } catch {
        return null
      }
      if (origins.size >= ORIGIN_MEMO_SIZE) origins.clear()
      origins.set(raw, origin)
    }
    return origin
  }

  /** What every hit of one kept answer sends, finished as `handle` finishes it for a request without `Origin`. */
  interface Wire {
    ok: Record<string, string>
    notModified: Record<string, string>
  }

  /**
   * The fast path (docs/response-cache.md): a kept answer of an anonymous GET/HEAD, ready to write,
   * after the same shared check `handle` waits for; `undefined` (at once or after the check) when
   * the request must take the full path. Requests with credentials, or any request when the host
   * authenticates through a hook, always take the full path.
   */
  function cachedAnswer(request: CalendarRequest): Promise<CachedAnswer | undefined> | undefined {
    if (!cache || options.authenticate) return undefined
    const method = request.method.toUpperCase()
    if ((method !== 'GET' && method !== 'HEAD') || header(request, 'authorization') !== undefined) return undefined
    const origin = originOf(request.origin)
    if (origin === null) return undefined
    const namespace = namespaceOf(request)
    const path = namespacedPath(request.path, namespace)
    const found = cache.fresh({ namespace, origin, mountPath: request.mountPath, path, query: request.query })
    if (!found) return undefined
    return found.then((kept): CachedAnswer | undefined => {
      if (!kept) return undefined
      const notModified = noneMatchHits(header(request, 'if-none-match'), kept.etag)
      const body = notModified || method === 'HEAD' ? undefined : kept.bytes()
      const encoded = (encoding: BodyEncoding) => kept.encoded(encoding)
      // With CORS on, an `Origin` header changes the answer's headers: finished per request.
      if (cors && header(request, 'origin') !== undefined) {
        const headers = notModified ? notModifiedHeaders(kept.headers) : { ...kept.headers, 'Content-Length': String(kept.bytes().length) }
        return { status: notModified ? 304 : kept.status, headers: finish(request, { status: 0, headers, body: undefined }).headers, body, encoded }
      }
      const wire = kept.derived<Wire>(() => {
        const bare: CalendarRequest = { method: 'GET', path: request.path, query: '', headers: {} }
        return {
          ok: finish(bare, { status: kept.status, headers: { ...kept.headers, 'Content-Length': String(kept.bytes().length) }, body: undefined }).headers,
          notModified: finish(bare, { status: 304, headers: notModifiedHeaders(kept.headers), body: undefined }).headers,
        }
      })
      return notModified ? { status: 304, headers: wire.notModified, body, encoded } : { status: kept.status, headers: wire.ok, body, encoded }
    })
  }

  return {
    async handle(request: CalendarRequest): Promise<CalendarResponse> {
      const namespace = namespaceOf(request)
      return finish(request, await answer(request, namespace), namespace)
    },
    cachedAnswer,
    finish,
  }
}

/** Whether a request path is the namespace root or below it. */
function isUnder(path: string, namespace: string): boolean {
  return path === `/${namespace}` || path.startsWith(`/${namespace}/`)
}

/** The reference's names of the list count headers (`X-TEC-Total`), for its path. */
const REFERENCE_HEADERS: Record<string, string> = { 'X-Cal-Total': 'X-TEC-Total', 'X-Cal-TotalPages': 'X-TEC-TotalPages' }

function withReferenceHeaders(response: CalendarResponse): CalendarResponse {
  if (!Object.keys(response.headers).some((name) => name in REFERENCE_HEADERS)) return response
  const headers = Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [REFERENCE_HEADERS[name] ?? name, value]))
  return { ...response, headers }
}
