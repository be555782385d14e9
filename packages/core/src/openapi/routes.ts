import { z } from 'zod'
import { arg } from '../api/arg-kinds.js'
import { NAMESPACE, WP_NAMESPACE, WP_REST_NAMESPACE } from '../api/context.js'
import { defineOperation } from '../api/operation.js'
import { CalendarError } from '../errors.js'
import type { RouteDef } from '../http/routes.js'
import { buildOpenApiDocument, openApiServers, type OpenApiDocument } from './document.js'
import { describeNamespace } from './root-descriptor.js'

// Declared once: each calendar has discovery operations of its own (over its route table), and
// their argument schemas were ~4 kB of each (issue 31).
const ROOT_ARGS = {
  // Any other namespace is a 404 (rest_invalid_namespace), not a 400: the document lists the one value.
  namespace: arg(z.string(), { type: 'string' }, { default: NAMESPACE, openapi: { type: 'string', enum: [NAMESPACE] } }),
  context: arg(z.string(), { type: 'string' }, { default: 'view' }),
}

/** The root descriptor and documentation operations over the (complete) route table. */
export function discoveryOperations(routes: () => readonly RouteDef[]) {
  // The document depends on the route table alone, but for its `servers` URL: one copy, and
  // each answer swaps in its own server (a copy per distinct Host grew without bound).
  let document: OpenApiDocument | undefined
  return {
    // Neither reads data: a cache check would cost more than answering them.
    root: defineOperation({
      policy: { cache: 'never', replica: 'primary', reads: [], writes: [] },
      args: ROOT_ARGS,
      async run(input, ctx) {
        // On the compatibility path the plugin's own namespace is the one that exists.
        const served = ctx.urls.rest.endsWith(`/${WP_NAMESPACE}`) ? WP_REST_NAMESPACE : NAMESPACE
        const asked = ctx.raw.query.namespace === undefined && ctx.raw.body.namespace === undefined ? served : input.namespace
        if (asked !== served) {
          throw new CalendarError('INVALID_NAMESPACE', 'The specified namespace could not be found.')
        }
        return { body: describeNamespace(routes(), ctx.urls, served) }
      },
    }),
    doc: defineOperation({
      policy: { cache: 'never', replica: 'primary', reads: [], writes: [] },
      args: {},
      async run(_input, ctx) {
        document ??= buildOpenApiDocument(routes(), ctx.urls, `/${NAMESPACE}`)
        return { body: { ...document, servers: openApiServers(ctx.urls) } }
      },
    }),
  }
}

/** The root and `/doc` routes, registered first (CONTRACT 14.1). */
export function discoveryRoutes(ops: ReturnType<typeof discoveryOperations>, ns: string): RouteDef[] {
  return [
    { pattern: ns, path: ns, endpoints: [{ methods: ['GET'], operation: ops.root }] },
    { pattern: `${ns}/doc`, path: `${ns}/doc`, endpoints: [{ methods: ['GET'], operation: ops.doc }] },
  ]
}
