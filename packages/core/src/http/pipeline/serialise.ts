import { addVary, entityTag, notModifiedHeaders, PUBLIC_MAX_AGE_SECONDS, visibilityKey } from '../conditional.js'
import { NO_CACHE_HEADERS } from './errors.js'
import { need, type HttpExchange, type Step } from './step.js'

const JSON_TYPE = 'application/json; charset=UTF-8'

/** Anonymous reads: shared caches may keep them briefly and revalidate with the `ETag`. */
const PUBLIC_CACHE_HEADERS = { 'Cache-Control': `public, max-age=${PUBLIC_MAX_AGE_SECONDS}` }

/**
 * The operation's result as an HTTP answer: its status and headers, the caching headers of who
 * asked (an operation that states its own `Cache-Control`, a feed, keeps it), and for a JSON read
 * answered 200 the body as text, its `ETag` and `Vary`. `hookAuthenticates`: a host hook may tell
 * callers apart by their session cookie.
 */
export function serialiseStep(hookAuthenticates: boolean): Step<HttpExchange> {
  const vary = hookAuthenticates ? ['Authorization', 'Cookie'] : ['Authorization']
  return {
    name: 'serialise',
    async run(x, next) {
      await next()
      const result = need(x.result, 'the result')
      const status = result.status ?? 200
      const read = (x.method === 'GET' || x.method === 'HEAD') && status === 200 && !result.stream && result.body !== undefined
      const ownCaching = result.headers?.['Cache-Control'] !== undefined
      const caching = ownCaching ? {} : x.principal ? NO_CACHE_HEADERS : read ? PUBLIC_CACHE_HEADERS : {}
      const headers: Record<string, string> = { 'Content-Type': JSON_TYPE, ...caching, ...result.headers }
      // An operation's own 304 (a feed's validators matched) repeats only what RFC 9110 15.4.5 allows.
      if (status === 304) {
        x.response = { status, headers: notModifiedHeaders(headers), body: undefined }
        return
      }
      if (!read) {
        x.response = { status, headers, body: result.body, ...(result.stream ? { stream: result.stream } : {}) }
        return
      }
      // Reads depend on who asks.
      headers.Vary = addVary(headers.Vary, ...vary)
      const text = JSON.stringify(result.body)
      headers.ETag = entityTag(text, result.headers ?? {}, visibilityKey(x.principal), x.namespace)
      x.read = { text, ownCaching }
      x.response = { status, headers, body: result.body, text }
    },
  }
}
