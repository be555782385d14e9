import type { Kysely } from 'kysely'
import { NAMESPACE, WP_NAMESPACE } from '../api/context.js'
import { createTokenCache } from '../auth/token-cache.js'
import type { ResolvedOptions } from '../config/options.js'
import type { DB } from '../db/generated.js'
import type { ReadRouter } from '../db/replicas.js'
import { noneMatchHits, notModifiedHeaders } from './conditional.js'
import { checkedOrigin } from './origin.js'
import type { CachedAnswer, CalendarRequest, CalendarResponse } from './request.js'
import { createCorsPolicy } from './cors.js'
import { createResponseCache, type BodyEncoding, type ChangeValidator } from './response-cache.js'
import type { CompiledRoute } from './routes.js'
import { httpSteps, runHttpPipeline } from './pipeline/http-pipeline.js'
import { namespacedPath } from './pipeline/parse.js'
import { READ_AFTER_HEADER } from './pipeline/replica.js'
import { header } from './pipeline/step.js'


/** Origins recently checked, so the fast path does not parse the same `Host` per request. */
const ORIGIN_MEMO_SIZE = 64

/** Builds the framework-neutral request handler over the compiled route table. */
export function createDispatcher(routes: readonly CompiledRoute[], options: ResolvedOptions, db: Kysely<DB>, validator?: ChangeValidator, reads?: ReadRouter) {
  const cors = createCorsPolicy(options.cors)
  // Preflight answers carry their own CORS headers; everything else is decorated on the way out.
  const preflights = new WeakSet<CalendarResponse>()
  const exposedExtra = [...(options.wpCompat ? Object.values(REFERENCE_HEADERS) : []), ...(reads ? [READ_AFTER_HEADER] : [])]
  const cache = createResponseCache(options.responseCache, db, options.now, validator)
  // A kept token is checked against the version the change check reads (shared by concurrent requests).
  const tokens = validator && createTokenCache(async () => (await validator.next()).credentials)

  // The request pipeline (pipeline/http-pipeline.ts): every request runs these steps in order.
  const steps = httpSteps({ routes, options, db, cors, preflights, cache, tokens, reads })

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
      return finish(request, await runHttpPipeline(steps, db, request, namespace), namespace)
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
