import { NAMESPACE } from '../../../src/api/context.js'
import { defineOperation } from '../../../src/api/operation.js'
import type { CalendarRequest } from '../../../src/http/request.js'
import { compileRoute, type Endpoint } from '../../../src/http/routes.js'
import type { HttpExchange } from '../../../src/http/pipeline/step.js'

// Small fixtures for the pipeline's unit tests: steps that reach no database get an exchange
// without one.

export const ROOT = `/${NAMESPACE}`

/** An operation answering `body`. */
export const answering = (body: unknown, extra: { status?: number; headers?: Record<string, string> } = {}) =>
  defineOperation({ args: {}, run: async () => ({ body, ...extra }) })

/** A route table: `/things` (GET, POST) and `/things/:id` (GET). */
export const ROUTES = [
  compileRoute({
    pattern: `${ROOT}/things`,
    path: `${ROOT}/things`,
    endpoints: [
      { methods: ['GET'], operation: answering([]) },
      { methods: ['POST'], operation: answering({ id: 1 }) },
    ],
  }),
  compileRoute({ pattern: `${ROOT}/things/(?P<id>\\d+)`, path: `${ROOT}/things/:id`, endpoints: [{ methods: ['GET'], operation: answering({ id: 1 }) }] }),
]

/** An exchange for `request` (GET of `/things` by default), as the parse step would leave it when `parsed`. */
export function exchange(request: Partial<CalendarRequest> = {}, over: Partial<HttpExchange> = {}): HttpExchange {
  const req: CalendarRequest = { method: 'GET', path: `${ROOT}/things`, query: '', headers: {}, ...request }
  return { request: req, namespace: NAMESPACE, db: undefined as never, principal: null, method: req.method.toUpperCase(), path: req.path, ...over }
}

/** An endpoint of `ROUTES` by route index and method. */
export function endpointOf(route: number, method: string): Endpoint {
  return ROUTES[route]!.endpoints.find((e) => (e.methods as readonly string[]).includes(method))!
}

/** A `next` that records it was called and runs `then`. */
export function nextDoing(then: () => void = () => {}) {
  const calls = { count: 0 }
  const next = async () => {
    calls.count++
    then()
  }
  return Object.assign(next, { calls })
}
