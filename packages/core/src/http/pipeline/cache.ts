import { NAMESPACE } from '../../api/context.js'
import type { ResponseCache } from '../response-cache.js'
import { header, need, type HttpExchange, type Step } from './step.js'

const STATIC_ROUTES = new RegExp(`^/${NAMESPACE}(/doc)?$`)

/**
 * The hot-read cache (response-cache.ts, docs/response-cache.md): an anonymous GET/HEAD may be
 * answered with a kept answer after the shared change check; else, once the rest of the pipeline
 * has answered, a fresh JSON read is kept, for the clock slot it was made in when its operation read
 * the call's clock (`ctx.clock.read`). The root descriptor and `/doc` read no data (a check would
 * cost more than answering them); feeds are streamed text and sync walks depend on the moment asked:
 * never kept.
 */
export function cacheStep(cache: ResponseCache | undefined): Step<HttpExchange> {
  return {
    name: 'cache',
    async run(x, next) {
      const endpoint = need(x.endpoint, 'the endpoint')
      const keepable = !endpoint.feedKey && !endpoint.sync && !STATIC_ROUTES.test(need(x.match, 'the route').route.pattern)
      if (cache && !x.principal && (x.method === 'GET' || x.method === 'HEAD') && keepable) {
        const { namespace, origin, path, request } = x
        x.slot = cache.slot({ namespace, origin, mountPath: request.mountPath, path, query: request.query }, need(x.query, 'the query'))
      }
      const cached = await x.slot?.fresh(header(x.request, 'if-none-match'))
      if (cached) {
        x.response = cached
        return
      }
      await next()
      // An operation that states its own caching (a feed with validators) keeps it.
      if (x.slot && x.read && !x.read.ownCaching && x.response) x.slot.keep(x.response.status, x.response.headers, x.read.text, need(x.ctx, 'the call context').clock)
    },
  }
}
