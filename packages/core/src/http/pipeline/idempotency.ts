import { withIdempotencyKey } from '../../api/idempotency.js'
import { need, type CallExchange, type Step } from './step.js'

/**
 * A create with an `Idempotency-Key` (a header, or the script API's `idempotencyKey`) runs once
 * per caller and key: a repeat gets the first answer and writes nothing (api/idempotency.ts). The
 * claim goes to the create's own transaction through the context.
 */
export const idempotencyStep: Step<CallExchange> = {
  name: 'idempotency',
  async run(x, next) {
    const asked = x.idempotencyKey
    if (!asked || !x.principal) return next()
    x.result = await withIdempotencyKey(x.db, x.principal.id, asked.key, asked.fingerprint, async (claim) => {
      x.claim = claim
      await next()
      return need(x.result, 'the result')
    })
  },
}
