import { NAMESPACE } from '../../api/context.js'
import { checkedOrigin } from '../origin.js'
import { matchRoute, type CompiledRoute } from '../routes.js'
import type { HttpExchange, Step } from './step.js'

/**
 * The request path under our namespace, cleaned: `rest_url`s end collections with a slash
 * (CONTRACT 5.4), and a client joining a base URL that ends in `/` with a path that starts with one
 * sends `//`. The compatibility path is the same table: its requests are matched under our namespace.
 */
export function namespacedPath(requestPath: string, namespace: string): string {
  const cleaned = requestPath.length > 1 ? requestPath.replace(/\/{2,}/g, '/').replace(/\/+$/, '') : requestPath
  return namespace === NAMESPACE ? cleaned : `/${NAMESPACE}${cleaned.slice(namespace.length + 1)}`
}

/**
 * The request line: the checked origin (first: RFC 9112 answers a malformed Host with 400 whatever
 * the route), the method, the cleaned path and the route it matches in the table, if any. Whether
 * the route serves the method is the route step's question, after CORS preflights.
 */
export function parseStep(routes: readonly CompiledRoute[]): Step<HttpExchange> {
  return {
    name: 'parse',
    async run(x, next) {
      x.origin = checkedOrigin(x.request.origin)
      x.method = x.request.method.toUpperCase()
      x.path = namespacedPath(x.request.path, x.namespace)
      x.match = matchRoute(routes, x.path, x.method)
      await next()
    },
  }
}
