import type { AnyOperation } from '../api/operation.js'
import type { z } from 'zod'
import type { CalendarErrorCode } from '../errors.js'
import { postLock, type ItemLock, type ItemWrite } from './preconditions.js'

/** HTTP methods the calendar serves. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** What the OpenAPI document says about one method of an endpoint. */
export interface EndpointDoc {
  operationId?: string
  summary?: string
  description?: string
  tags?: string[]
  /** Who may call it: `public` (a token only widens what is seen) or `token` (writes). */
  access?: 'public' | 'token'
  /** Domain errors the handler can answer, beside the ones every operation shares. */
  errors?: readonly CalendarErrorCode[]
  /** The success answer; `schema` absent means a body the document does not describe. */
  success?: {
    status: number
    description: string
    schema?: z.ZodType
    contentType?: string
    headers?: readonly ('list-totals' | 'location' | 'sync' | 'validators')[]
    /** Other success statuses with the same body schema (no `location`). */
    others?: readonly { status: number; description: string }[]
  }
  /** Declared parameters the document describes on another path instead (the list's sync ones). */
  hiddenArgs?: readonly string[]
}

/** One handler of a route: the methods it answers and what it does. */
export interface Endpoint {
  readonly methods: readonly HttpMethod[]
  readonly operation: AnyOperation
  /** What the OpenAPI document says about it, beyond what the built-in resources derive. */
  readonly doc?: EndpointDoc
  /** A create, update or delete of one item: `ETag` on its answer, `If-Match` honoured (http/preconditions.ts). */
  readonly item?: ItemWrite
  /**
   * A feed: a `key` query parameter (a private feed key, auth/feed-keys.ts) stands for its user.
   * Every other endpoint refuses a feed key with the unknown token's 401.
   */
  readonly feedKey?: boolean
}

/** One route of the table, in registration order (the root descriptor lists them so). */
export interface RouteDef {
  /** The route pattern as the root descriptor keys it: `/cal/events/v1/events/(?P<id>\d+)`. */
  readonly pattern: string
  /** Express-style path: `/cal/events/v1/events/:id`. */
  readonly path: string
  readonly endpoints: readonly Endpoint[]
}

/** A collection route: GET lists, then POST creates (CONTRACT 14.1's order); `read` is the by-id GET. */
export function collectionRoute(path: string, list: Endpoint['operation'], create: Endpoint['operation'], read?: Op): RouteDef {
  return {
    pattern: path,
    path,
    endpoints: [
      { methods: ['GET'], operation: list },
      { methods: ['POST'], operation: create, ...(read ? { item: { write: 'create', read } } : {}) },
    ],
  }
}

type Op = Endpoint['operation']

/** The entity-tag metadata of an item's update and delete handlers. */
export function itemWrites(read: Op, lock: ItemLock): { update: ItemWrite; delete: ItemWrite } {
  return { update: { write: 'update', read, lock }, delete: { write: 'delete', read, lock } }
}

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
export function postRoutes(collection: string, ops: PostOperations, table: 'events' | 'venues' | 'organizers'): RouteDef[] {
  const item = itemWrites(ops.get, postLock(table))
  return [
    collectionRoute(collection, ops.list, ops.create, ops.get),
    byIdRoute(collection, [
      { methods: ['GET'], operation: ops.get },
      { methods: ['DELETE'], operation: ops.delete, item: item.delete },
      { methods: ['POST', 'PUT', 'PATCH'], operation: ops.update, item: item.update },
    ]),
    {
      pattern: `${collection}/by-slug/(?P<slug>[^/]+)`,
      path: `${collection}/by-slug/:slug`,
      endpoints: [
        { methods: ['GET'], operation: ops.getBySlug },
        { methods: ['DELETE'], operation: ops.deleteBySlug, item: item.delete },
        { methods: ['POST', 'PUT', 'PATCH'], operation: ops.updateBySlug, item: item.update },
      ],
    },
  ]
}

/**
 * The `…/sync` routes of the syncing lists (extensions, after the contract's routes): a list's sync
 * walk on its own path. Never kept by the hot-read cache, like any sync answer.
 */
export function syncRoutes(collections: readonly { path: string; sync: Op }[]): RouteDef[] {
  return collections.map(({ path, sync }) => ({ pattern: `${path}/sync`, path: `${path}/sync`, endpoints: [{ methods: ['GET'], operation: sync }] }))
}

/** A compiled route: the pattern as a regular expression with named groups. */
export interface CompiledRoute extends RouteDef {
  readonly regex: RegExp
}

/** Compiles `(?P<name>...)` patterns (the reference's PCRE syntax) to JS regular expressions. */
export function compileRoute(route: RouteDef): CompiledRoute {
  let compiled = compiledOf.get(route)
  if (!compiled) {
    let regex = regexOf.get(route.pattern)
    if (!regex) regexOf.set(route.pattern, (regex = new RegExp(`^${route.pattern.replace(/\(\?P</g, '(?<')}$`, 'i')))
    compiled = { ...route, regex }
    compiledOf.set(route, compiled)
  }
  return compiled
}

// Once per route: the routes of a variant's shared operations are shared by the calendars of a set
// (issue 31). A regular expression without the g or y flag keeps no state between matches.
const compiledOf = new WeakMap<RouteDef, CompiledRoute>()
// And once per pattern: a calendar's own routes (discovery, iCalendar) have the patterns of every other's.
const regexOf = new Map<string, RegExp>()

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
