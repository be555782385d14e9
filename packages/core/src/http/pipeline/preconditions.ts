import { readPreconditions, runItemWrite } from '../preconditions.js'
import { header, need, type HttpExchange, type Step } from './step.js'

/**
 * Entity tags of item writes (http/preconditions.ts): a create or update answers with the item's
 * new `ETag`; an update or delete honours `If-Match`, `If-Unmodified-Since` and `If-None-Match`,
 * with the row locked in the write's transaction. The rest of the pipeline (the operation) runs
 * inside, on the transaction's context. Elsewhere these headers are ignored.
 */
export const preconditionsStep: Step<HttpExchange> = {
  name: 'preconditions',
  async run(x, next) {
    const item = need(x.endpoint, 'the endpoint').item
    if (!item) return next()
    const ctx = need(x.ctx, 'the call context')
    const conditions = item.write !== 'create' ? readPreconditions((name) => header(x.request, name), ctx.clock.now()) : undefined
    x.result = await runItemWrite(item, need(x.operation, 'the operation'), ctx, x.namespace, conditions, async (operation, inner) => {
      x.operation = operation
      x.ctx = inner
      await next()
      return need(x.result, 'the result')
    })
  },
}
