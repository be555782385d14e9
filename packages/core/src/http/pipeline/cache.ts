import { cacheRules } from '../../api/policy.js'
import type { ResponseCache } from '../response-cache.js'
import { header, need, type HttpExchange, type Step } from './step.js'

/**
 * The hot-read cache (response-cache.ts, docs/response-cache.md): an anonymous GET/HEAD may be
 * answered with a kept answer after the shared change check; else, once the rest of the pipeline
 * has answered, a fresh JSON read is kept, for the clock slot it was made in when its operation read
 * the call's clock (`ctx.clock.read`). What may be kept, and for how long, is what the operation
 * declares (`cacheRules`: its policy and its parameters'), not a list of routes or names here.
 */
export function cacheStep(cache: ResponseCache | undefined): Step<HttpExchange> {
  return {
    name: 'cache',
    async run(x, next) {
      if (cache && !x.principal && (x.method === 'GET' || x.method === 'HEAD')) {
        const { namespace, origin, path, request } = x
        const rules = cacheRules(need(x.operation, 'the operation'))
        x.slot = cache.slot({ namespace, origin, mountPath: request.mountPath, path, query: request.query }, need(x.query, 'the query'), rules)
      }
      const cached = await x.slot?.fresh(header(x.request, 'if-none-match'))
      if (cached) {
        x.response = cached
        return
      }
      await next()
      // An operation that states its own caching (a feed with validators) keeps it.
      if (x.slot && x.read && !x.read.ownCaching && x.response) {
        const ctx = need(x.ctx, 'the call context')
        x.slot.keep(x.response.status, x.response.headers, x.read.text, ctx.clock, ctx.readPosition)
      }
    },
  }
}
