import type { Kysely } from 'kysely'
import type { TokenCache } from '../../auth/token-cache.js'
import type { ResolvedOptions } from '../../config/options.js'
import type { DB } from '../../db/generated.js'
import type { ReadRouter } from '../../db/replicas.js'
import type { CorsPolicy } from '../cors.js'
import type { CalendarRequest, CalendarResponse } from '../request.js'
import type { ResponseCache } from '../response-cache.js'
import type { CompiledRoute } from '../routes.js'
import { authenticateStep } from './authenticate.js'
import { cacheStep } from './cache.js'
import { conditionalStep } from './conditional.js'
import { contextStep } from './context.js'
import { corsStep } from './cors.js'
import { errorsStep } from './errors.js'
import { idempotencyStep } from './idempotency.js'
import { inputStep } from './input.js'
import { operationStep } from './operation.js'
import { parseStep } from './parse.js'
import { preconditionsStep } from './preconditions.js'
import { replicaStep } from './replica.js'
import { routeStep } from './route.js'
import { serialiseStep } from './serialise.js'
import { need, runSteps, type HttpExchange, type Step } from './step.js'

/** What the HTTP steps of one calendar are built from. */
export interface HttpPipelineDeps {
  readonly routes: readonly CompiledRoute[]
  readonly options: ResolvedOptions
  readonly db: Kysely<DB>
  readonly cors: CorsPolicy | undefined
  /** Preflight answers, which carry their own CORS headers. */
  readonly preflights: WeakSet<CalendarResponse>
  readonly cache: ResponseCache | undefined
  /** The principals of tokens resolved before (`auth/token-cache.ts`). */
  readonly tokens?: TokenCache
  /** Read replicas for anonymous reads (`db/replicas.ts`), when configured. */
  readonly reads?: ReadRouter
}

/**
 * The steps of an HTTP request, in order (docs/ARCHITECTURE.md "Request pipeline"). Steps before
 * `next()` run top-down, their after-parts bottom-up: the serialise step turns the result into an
 * answer, the cache keeps it, and the conditional step may answer it 304.
 */
export function httpSteps(deps: HttpPipelineDeps): Step<HttpExchange>[] {
  const { options } = deps
  return [
    errorsStep(options.onError),
    parseStep(deps.routes),
    corsStep(deps.cors, deps.preflights),
    routeStep,
    authenticateStep(options, deps.tokens),
    inputStep(options.maxBodyBytes),
    conditionalStep,
    cacheStep(deps.cache),
    ...(deps.reads ? [replicaStep(deps.reads)] : []),
    contextStep(options),
    serialiseStep(options.authenticate !== undefined),
    idempotencyStep,
    preconditionsStep,
    operationStep,
  ]
}

/** Runs `steps` for one request in `namespace`: its answer (the errors step makes sure there is one). */
export async function runHttpPipeline(steps: readonly Step<HttpExchange>[], db: Kysely<DB>, request: CalendarRequest, namespace: string): Promise<CalendarResponse> {
  const x: HttpExchange = { request, namespace, db, principal: null, method: request.method, path: request.path }
  await runSteps(steps, x)
  return need(x.response, 'the response')
}
