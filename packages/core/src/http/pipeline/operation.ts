import { invoke } from '../../api/operation.js'
import { need, type CallExchange, type Step } from './step.js'

/** The operation itself (`invoke`: declared parameters, database rules, permission, handler); the last step. */
export const operationStep: Step<CallExchange> = {
  name: 'operation',
  async run(x) {
    const ctx = need(x.ctx, 'the call context')
    x.result = await invoke(need(x.operation, 'the operation'), need(x.params, 'the parameters'), x.claim ? { ...ctx, idempotency: x.claim } : ctx)
  },
}
