import { CalendarError } from '../../errors.js'
import { toErrorResponse } from '../error-response.js'
import { methodsOf } from './route.js'
import type { HttpExchange, Step } from './step.js'

/**
 * What the reference sends to a signed-in caller (WordPress's `nocache_headers()`): answers that
 * depend on who asks must not be kept by a browser or a shared cache.
 */
export const NO_CACHE_HEADERS = {
  Expires: 'Wed, 11 Jan 1984 05:00:00 GMT',
  'Cache-Control': 'no-cache, must-revalidate, max-age=0, no-store, private',
}

/**
 * The outermost step: anything a later step throws becomes the contract's error response (a
 * non-`CalendarError` is a 500 reported to `onError`). A known path asked with a method it does not
 * serve says which ones it does (a 405 in all but status, which stays the contract's 404
 * rest_no_route); an error to a signed-in caller is not to be kept either.
 */
export function errorsStep(onError: ((err: unknown) => void) | undefined): Step<HttpExchange> {
  return {
    name: 'errors',
    async run(x, next) {
      try {
        await next()
      } catch (err) {
        const response = toErrorResponse(err, onError)
        if (x.match && err instanceof CalendarError && err.code === 'NO_ROUTE') response.headers.Allow = methodsOf(x.match.route).join(', ')
        if (x.principal) Object.assign(response.headers, NO_CACHE_HEADERS)
        x.response = response
      }
    },
  }
}
