import type { CalendarRequest, CalendarResponse } from './request.js'

/** Cross-origin access for browser clients on other sites (off unless configured). */
export interface CorsOptions {
  /**
   * Origins allowed to call every method of the API with credentials (`https://admin.example.org`),
   * and/or `'*'`: any other origin may read (`GET`/`HEAD`) anonymously, without credentials.
   */
  origins: readonly string[]
  /** How long browsers may cache a preflight answer. Default 600 seconds. */
  maxAgeSeconds?: number
}

/** Request headers a listed origin may send: credentials, JSON bodies, preconditions, retries. */
const LISTED_HEADERS = ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key']
/** Request headers an anonymous reader may send: no credentials. */
const ANONYMOUS_HEADERS = ['If-None-Match']
const ANONYMOUS_METHODS = new Set(['GET', 'HEAD'])
/** Response headers a page may read besides the CORS-safelisted ones. */
const EXPOSED_HEADERS = ['X-Cal-Total', 'X-Cal-TotalPages', 'X-Cal-Next-Sync-Token', 'ETag', 'Location', 'Allow']

/** What one origin may do: `listed` (every method, credentials) or `anonymous` (reads only). */
type Grant = 'listed' | 'anonymous' | undefined

/** The CORS rules of one calendar, applied by the dispatcher to every answer. */
export interface CorsPolicy {
  /** The answer to a preflight `OPTIONS` on a route serving `methods`. */
  preflight(request: CalendarRequest, methods: readonly string[]): CalendarResponse
  /** Adds the CORS response headers for the request's origin to an actual answer. */
  decorate(request: CalendarRequest, response: CalendarResponse, extraExposed?: readonly string[]): CalendarResponse
}

/** Checks the configured origins once; throws a `TypeError` naming a bad one. */
export function normalizeOrigins(origins: readonly string[]): string[] {
  return origins.map((raw) => {
    const value = raw.trim()
    if (value === '*') return value
    let url: URL
    try {
      url = new URL(value)
    } catch {
      throw new TypeError(`cors.origins: ${JSON.stringify(raw)} is not an origin such as https://app.example.org`)
    }
    // An origin is scheme, host and port only; a browser never sends a path, so one would never match.
    if (!/^https?:$/.test(url.protocol) || url.origin === 'null' || value.replace(/\/$/, '') !== url.origin) {
      throw new TypeError(`cors.origins: ${JSON.stringify(raw)} is not an origin such as https://app.example.org (scheme, host and port only)`)
    }
    return url.origin
  })
}

function headerOf(request: CalendarRequest, name: string): string | undefined {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** Builds the policy; `undefined` options mean no CORS headers at all (the contract's answers). */
export function createCorsPolicy(options: CorsOptions | undefined): CorsPolicy | undefined {
  if (!options) return undefined
  const origins = new Set(normalizeOrigins(options.origins))
  const anyone = origins.has('*')
  const maxAge = String(options.maxAgeSeconds ?? 600)

  function grantFor(request: CalendarRequest): { origin: string; grant: Grant } | undefined {
    const origin = headerOf(request, 'origin')
    if (origin === undefined) return undefined
    if (origins.has(origin)) return { origin, grant: 'listed' }
    return { origin, grant: anyone ? 'anonymous' : undefined }
  }

  // Every answer depends on the Origin header once CORS is on, so shared caches must key on it.
  const withVary = (headers: Record<string, string>) => ({ ...headers, Vary: headers.Vary ? `${headers.Vary}, Origin` : 'Origin' })

  function allowHeaders(origin: string, grant: Grant): Record<string, string> {
    if (grant === 'listed') return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true' }
    return grant === 'anonymous' ? { 'Access-Control-Allow-Origin': '*' } : {}
  }

  return {
    preflight(request, methods) {
      const found = grantFor(request)
      const headers: Record<string, string> = withVary({ Allow: methods.join(', ') })
      if (found?.grant) {
        const allowed = found.grant === 'listed' ? methods : methods.filter((m) => ANONYMOUS_METHODS.has(m))
        Object.assign(headers, allowHeaders(found.origin, found.grant), {
          'Access-Control-Allow-Methods': allowed.join(', '),
          'Access-Control-Allow-Headers': (found.grant === 'listed' ? LISTED_HEADERS : ANONYMOUS_HEADERS).join(', '),
          'Access-Control-Max-Age': maxAge,
        })
      }
      return { status: 204, headers, body: undefined }
    },
    decorate(request, response, extraExposed = []) {
      const found = grantFor(request)
      const headers = withVary(response.headers)
      // An anonymous grant covers reads only: a page on any site must not read a write's answer.
      const method = request.method.toUpperCase()
      if (found?.grant && (found.grant === 'listed' || ANONYMOUS_METHODS.has(method))) {
        Object.assign(headers, allowHeaders(found.origin, found.grant), {
          'Access-Control-Expose-Headers': [...EXPOSED_HEADERS, ...extraExposed].join(', '),
        })
      }
      return { ...response, headers }
    },
  }
}
