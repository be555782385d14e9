import { CalendarError } from '../../errors.js'
import type { CompiledRoute } from '../routes.js'
import type { HttpExchange, Step } from './step.js'

/** The methods a route serves, in registration order (`Allow`, preflight answers). */
export function methodsOf(route: CompiledRoute): string[] {
  return [...new Set(route.endpoints.flatMap((e) => e.methods))]
}

/** The endpoint that serves the request's method on its path, and the operation it runs; else NO_ROUTE. */
export const routeStep: Step<HttpExchange> = {
  name: 'route',
  async run(x, next) {
    const endpoint = x.match?.endpoint
    if (!endpoint) throw new CalendarError('NO_ROUTE', 'No route was found matching the URL and request method.')
    x.endpoint = endpoint
    x.operation = endpoint.operation
    await next()
  },
}
