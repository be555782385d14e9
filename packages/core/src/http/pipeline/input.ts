import { WP_NAMESPACE } from '../../api/context.js'
import { invalidFeedKey, looksLikeFeedKey } from '../../auth/feed-keys.js'
import { parseBody } from '../parse-input.js'
import { referenceBody } from '../reference-body.js'
import { header, need, type HttpExchange, type Step } from './step.js'

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])

/**
 * The body of a write, parsed by its `Content-Type` within `maxBodyBytes` (the query was read with
 * the credentials); on the reference's path, its field names. A feed key in the body is refused.
 */
export function inputStep(maxBodyBytes: number): Step<HttpExchange> {
  return {
    name: 'input',
    async run(x, next) {
      need(x.query, 'the query')
      const parsed = BODY_METHODS.has(x.method) ? parseBody(x.request.body, header(x.request, 'content-type'), maxBodyBytes) : {}
      x.body = x.namespace === WP_NAMESPACE ? referenceBody(parsed) : parsed
      if (looksLikeFeedKey(x.body.key)) throw invalidFeedKey()
      await next()
    },
  }
}
