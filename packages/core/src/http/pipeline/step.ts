import type { Kysely } from 'kysely'
import type { CallContext } from '../../api/context.js'
import type { Fingerprint, IdempotencyClaim } from '../../api/idempotency.js'
import type { OperationResult } from '../../api/operation.js'
import type { GuessLimitName } from '../../api/policy.js'
import type { Principal } from '../../auth/principal.js'
import type { DB } from '../../db/generated.js'
import type { ReadChoice } from '../../db/replicas.js'
import type { Preconditions } from '../preconditions.js'
import type { CalendarRequest, CalendarResponse } from '../request.js'
import type { CacheSlot } from '../response-cache.js'
import type { CompiledRoute, Endpoint } from '../routes.js'

// The request pipeline (issue 30 item 1, docs/ARCHITECTURE.md "Request pipeline"): one concern per
// step, the steps in a list, each step calling `next()` to hand the call on (as tRPC's middlewares
// do) and reading what earlier steps left on the exchange. The script API runs the call steps
// (idempotency, operation) without the HTTP ones.

/** The operation an endpoint runs. */
export type EndpointOperation = Endpoint['operation']

/** What one call carries from step to step, over HTTP or from a script. */
export interface CallExchange {
  /** The calendar's database (or a host's transaction, for a script call in `withTransaction`). */
  readonly db: Kysely<DB>
  principal: Principal | null
  operation?: EndpointOperation
  /** The parameters the operation parses: body over query, path over both. */
  params?: Record<string, unknown>
  ctx?: CallContext
  /** A create's `Idempotency-Key` as asked, and the request it promises to repeat. */
  idempotencyKey?: { readonly key: string; readonly fingerprint: Fingerprint }
  /** The key, claimed for the create's own transaction (set by the idempotency step). */
  claim?: IdempotencyClaim
  result?: OperationResult
}

/** The route a request path matched: the route, its endpoint for the method (if any) and path parameters. */
export interface RouteMatch {
  readonly route: CompiledRoute
  readonly endpoint: Endpoint | undefined
  readonly params: Record<string, string>
}

/** One HTTP request on its way through the pipeline. */
export interface HttpExchange extends CallExchange {
  readonly request: CalendarRequest
  /** The REST namespace the request came in under (ours, or the reference's path). */
  readonly namespace: string
  /** Upper-case method. */
  method: string
  /** The cleaned path under our namespace. */
  path: string
  /** The request's checked origin. */
  origin?: string
  match?: RouteMatch
  endpoint?: Endpoint
  query?: Record<string, unknown>
  body?: Record<string, unknown>
  /** The request's way through the hot-read cache, when it may be kept. */
  slot?: CacheSlot
  /** An anonymous read's database: a read replica or the primary (set by the replica step). */
  readFrom?: ReadChoice
  /** `If-Match` and company of an item's update or delete. */
  conditions?: Preconditions
  /** A fresh JSON read answered 200 with its `ETag` (set by the serialise step). */
  read?: { readonly text: string; readonly ownCaching: boolean }
  response?: CalendarResponse
}

/** One step of a pipeline: does its part, and calls `next()` to run the rest (or answers without it). */
export interface Step<X> {
  readonly name: string
  /** The rate limit of the options its wrong guesses count against (failed logins), when it counts some. */
  readonly guesses?: GuessLimitName
  run(x: X, next: () => Promise<void>): Promise<void>
}

/** Runs `steps` in order on `x`: each one runs the rest through its `next`. */
export function runSteps<X>(steps: readonly Step<X>[], x: X): Promise<void> {
  const from = (i: number): Promise<void> => (i === steps.length ? Promise.resolve() : steps[i]!.run(x, () => from(i + 1)))
  return from(0)
}

/** What an earlier step should have set; a step run out of order fails loudly instead of guessing. */
export function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new TypeError(`Pipeline step run before ${what} was set.`)
  return value
}

/** The first value of a request header, by its lower-case name. */
export function header(request: CalendarRequest, name: string): string | undefined {
  const value = request.headers[name] ?? request.headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : value
}
