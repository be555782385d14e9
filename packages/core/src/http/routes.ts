import type { Operation } from '../api/operation.js'
import type { EndpointDoc } from '../openapi/endpoint-doc.js'

/** HTTP methods the calendar serves. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** One handler of a route: the methods it answers and what it does. */
export interface Endpoint {
  readonly methods: readonly HttpMethod[]
  readonly operation: Operation<any, any, any>
  /** What the OpenAPI document says about it, beyond what the built-in resources derive. */
  readonly doc?: EndpointDoc
  /** A create: answers to an `Idempotency-Key` are kept and replayed (http/idempotency.ts). */
  readonly idempotent?: boolean
}

/** One route of the table, in registration order (the root descriptor lists them so). */
export interface RouteDef {
  /** The route pattern as the root descriptor keys it: `/cal/events/v1/events/(?P<id>\d+)`. */
  readonly pattern: string
  /** Express-style path: `/cal/events/v1/events/:id`. */
  readonly path: string
  readonly endpoints: readonly Endpoint[]
}

/** A collection route: GET lists, then POST creates (CONTRACT 14.1's order). */
export function collectionRoute(path: string, list: Endpoint['operation'], create: Endpoint['operation']): RouteDef {
  return {
    pattern: path,
    path,
    endpoints: [
      { methods: ['GET'], operation: list },
      { methods: ['POST'], operation: create, idempotent: true },
    ],
  }
}

type Op = Endpoint['operation']

/** The `…/{id}` route of a collection, with its handlers in registration order. */
export function byIdRoute(collection: string, endpoints: readonly Endpoint[]): RouteDef {
  return { pattern: `${collection}/(?P<id>\\d+)`, path: `${collection}/:id`, endpoints }
}

/** The operations of a resource addressable by id and by slug (events, venues, organizers). */
export interface PostOperations {
  list: Op
  create: Op
  get: Op
  getBySlug: Op
  update: Op
  updateBySlug: Op
  delete: Op
  deleteBySlug: Op
}

/** Collection, by-id and by-slug routes; item handlers in the order GET, DELETE, update (CONTRACT 14.1). */
export function postRoutes(collection: string, ops: PostOperations): RouteDef[] {
  return [
    collectionRoute(collection, ops.list, ops.create),
    byIdRoute(collection, [
      { methods: ['GET'], operation: ops.get },
      { methods: ['DELETE'], operation: ops.delete },
      { methods: ['POST', 'PUT', 'PATCH'], operation: ops.update },
    ]),
    {
      pattern: `${collection}/by-slug/(?P<slug>[^/]+)`,
      path: `${collection}/by-slug/:slug`,
      endpoints: [
        { methods: ['GET'], operation: ops.getBySlug },
        { methods: ['DELETE'], operation: ops.deleteBySlug },
        { methods: ['POST', 'PUT', 'PATCH'], operation: ops.updateBySlug },
      ],
    },
  ]
}

/** A compiled route: the pattern as a regular expression with named groups. */
export interface CompiledRoute extends RouteDef {
  readonly regex: RegExp
}

/** Compiles `(?P<name>...)` patterns (the reference's PCRE syntax) to JS regular expressions. */
export function compileRoute(route: RouteDef): CompiledRoute {
  const source = route.pattern.replace(/\(\?P</g, '(?<')
  return { ...route, regex: new RegExp(`^${source}$`, 'i') }
}

/** Finds the route and endpoint for a path and method; `undefined` pieces mean 404. */
export function matchRoute(
  routes: readonly CompiledRoute[],
  path: string,
  method: string,
): { route: CompiledRoute; endpoint: Endpoint | undefined; params: Record<string, string> } | undefined {
  for (const route of routes) {
    const match = route.regex.exec(path)
    if (!match) continue
    const wanted = method === 'HEAD' ? 'GET' : method
    const endpoint = route.endpoints.find((e) => (e.methods as readonly string[]).includes(wanted))
    const params: Record<string, string> = {}
    for (const [key, value] of Object.entries(match.groups ?? {})) {
      if (value !== undefined) params[key] = safeDecode(value)
    }
    return { route, endpoint, params }
  }
  return undefined
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}
