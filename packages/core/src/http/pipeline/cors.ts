import type { CorsPolicy } from '../cors.js'
import type { CalendarResponse } from '../request.js'
import { methodsOf } from './route.js'
import type { HttpExchange, Step } from './step.js'

/**
 * CORS preflights: an `OPTIONS` request on a known path, when CORS is configured, is answered here
 * with the route's methods. `preflights` remembers these answers: they carry their own CORS headers,
 * while every other answer is decorated on its way out (`finish` in dispatch.ts).
 */
export function corsStep(cors: CorsPolicy | undefined, preflights: WeakSet<CalendarResponse>): Step<HttpExchange> {
  return {
    name: 'cors',
    async run(x, next) {
      if (cors && x.match && x.method === 'OPTIONS') {
        const preflight = cors.preflight(x.request, methodsOf(x.match.route))
        preflights.add(preflight)
        x.response = preflight
        return
      }
      await next()
    },
  }
}
