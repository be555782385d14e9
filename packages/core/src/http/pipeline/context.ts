import { buildCallContext } from '../../api/context.js'
import { idempotencyFingerprint } from '../../api/idempotency.js'
import type { ResolvedOptions } from '../../config/options.js'
import { header, need, type HttpExchange, type Step } from './step.js'

/**
 * The call's context and parameters (`buildCallContext`, as for a script call), the validators of
 * a GET for operations that answer 304 themselves (feeds), and a create's `Idempotency-Key` (keys
 * are per caller: an anonymous create is refused by the operation anyway).
 */
export function contextStep(options: ResolvedOptions): Step<HttpExchange> {
  return {
    name: 'context',
    async run(x, next) {
      const { request, method, principal } = x
      const query = need(x.query, 'the query')
      const body = need(x.body, 'the body')
      const conditional = method === 'GET' || method === 'HEAD'
        ? { ifNoneMatch: header(request, 'if-none-match'), ifModifiedSince: header(request, 'if-modified-since') }
        : undefined
      const source = { principal, raw: { path: need(x.match, 'the route').params, query, body }, client: request.client, origin: x.origin, mountPath: request.mountPath, namespace: x.namespace, conditional }
      const { ctx, params } = buildCallContext(source, options, x.readFrom?.db ?? x.db)
      x.ctx = x.readFrom?.readPosition !== undefined ? { ...ctx, readPosition: x.readFrom.readPosition } : ctx
      x.params = params
      const key = need(x.operation, 'the operation').policy?.idempotent && principal ? header(request, 'idempotency-key') : undefined
      if (key !== undefined) x.idempotencyKey = { key, fingerprint: idempotencyFingerprint(method, x.path, body) }
      await next()
    },
  }
}
