import { normalizeOrigins, type CorsOptions } from '../config/cors-options.js'
import type { CalendarRequest, CalendarResponse } from './request.js'

export type { CorsOptions } from '../config/cors-options.js'

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
