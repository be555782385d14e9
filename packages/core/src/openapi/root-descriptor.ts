import type { ArgSpec } from '../api/arg-kinds.js'
import type { Urls } from '../api/context.js'
import { NAMESPACE } from '../api/context.js'
import type { RouteDef } from '../http/routes.js'

/** One declared parameter as the root descriptor lists it. */
export interface DescribedArg {
  default?: unknown
  type?: string | string[]
  format?: string
  enum?: readonly (string | number)[]
  items?: { type: string | string[]; enum?: readonly string[] }
  description?: string
  required: boolean
}

/** One route of the root descriptor: its methods and, per endpoint, the declared parameters. */
export interface DescribedRoute {
  namespace: string
  methods: string[]
  /** `args` is `[]` when an endpoint declares none (the reference's PHP serialisation). */
  endpoints: { methods: string[]; args: Record<string, DescribedArg> | [] }[]
  /** Routes without path parameters link to themselves. */
  _links?: { self: { href: string }[] }
}

/** The root descriptor (`GET /cal/events/v1`, CONTRACT 14.1). */
export interface RootDescriptor {
  namespace: string
  routes: Record<string, DescribedRoute>
  _links: { up: { href: string }[] }
}

function describeArg(spec: ArgSpec): DescribedArg {
  const out: Omit<DescribedArg, 'required'> = {}
  if (spec.default !== undefined) out.default = spec.default
  if (spec.doc.type !== undefined) out.type = spec.doc.type
  if (spec.doc.format !== undefined) out.format = spec.doc.format
  if (spec.doc.enum !== undefined) out.enum = spec.doc.enum
  if (spec.doc.items !== undefined) out.items = spec.doc.items
  if (spec.description !== undefined) out.description = spec.description
  return { ...out, required: Boolean(spec.required) }
}

/**
 * The root descriptor (CONTRACT 14.1), generated from the route table that drives the router.
 * `namespace` is the one the client called: ours, or the reference's `tribe/events/v1` on the
 * compatibility path, whose routes and links it then names as the plugin does.
 */
export function describeNamespace(routes: readonly RouteDef[], urls: Urls, namespace = NAMESPACE): RootDescriptor {
  const described: Record<string, DescribedRoute> = {}
  // `urls.rest` ends with the namespace; what comes before it is the REST prefix (`…/wp-json/`).
  const prefix = urls.rest.slice(0, -namespace.length)
  const rename = (pattern: string) => `/${namespace}${pattern.slice(NAMESPACE.length + 1)}`
  for (const route of routes) {
    const methods = [...new Set(route.endpoints.flatMap((e) => e.methods))]
    const pattern = rename(route.pattern)
    const entry: DescribedRoute = {
      namespace,
      methods,
      endpoints: route.endpoints.map((e) => {
        const args = Object.entries(e.operation.args as Record<string, ArgSpec>)
        // The reference serialises an empty map as [] (CONTRACT 1.3).
        return { methods: [...e.methods], args: args.length === 0 ? [] : Object.fromEntries(args.map(([n, s]) => [n, describeArg(n === 'namespace' ? { ...s, default: namespace } : s)])) }
      }),
    }
    if (!route.pattern.includes('(?P<')) {
      entry._links = { self: [{ href: `${prefix.slice(0, -1)}${pattern}` }] }
    }
    described[pattern] = entry
  }
  return {
    namespace,
    routes: described,
    _links: { up: [{ href: prefix }] },
  }
}
