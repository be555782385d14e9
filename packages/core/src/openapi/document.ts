import { z } from 'zod'
import { createDocument } from 'zod-openapi'
import type { ArgSpec } from '../api/arg-kinds.js'
import type { Urls } from '../api/context.js'
import type { HttpMethod, RouteDef } from '../http/routes.js'
import { ErrorSchema, RESOURCE_SCHEMAS } from './wire-schemas.js'

const PATH_PARAM_SCHEMAS: Record<string, z.ZodType> = {
  id: z.int().min(1).meta({ description: 'Numeric identifier.' }),
  slug: z.string().min(1).meta({ description: 'Slug.' }),
}

/** `(?P<id>\d+)` → `{id}`, relative to the namespace. */
function openApiPath(pattern: string, namespacePath: string): string {
  return pattern.slice(namespacePath.length).replace(/\(\?P<(\w+)>[^)]*\)/g, '{$1}') || '/'
}

function paramsShape(args: Record<string, ArgSpec>, exclude: Set<string>): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {}
  for (const [name, spec] of Object.entries(args)) {
    if (exclude.has(name)) continue
    const described = spec.description ? (spec.schema as z.ZodType).meta({ description: spec.description }) : (spec.schema as z.ZodType)
    shape[name] = spec.required ? described : described.optional()
  }
  return shape
}

function responseFor(path: string, method: HttpMethod): { status: string; schema: z.ZodType } {
  const [, segment, rest] = path.split('/')
  const schemas = RESOURCE_SCHEMAS[segment as keyof typeof RESOURCE_SCHEMAS]
  if (!schemas) return { status: '200', schema: z.record(z.string(), z.unknown()).meta({ description: 'The OpenAPI document.' }) }
  if (rest === undefined) return method === 'POST' ? { status: '201', schema: schemas.item } : { status: '200', schema: schemas.list }
  return { status: '200', schema: schemas.item }
}

/** The OpenAPI 3.1 document (CONTRACT 14.2), generated from the route table and zod schemas. */
export function buildOpenApiDocument(routes: readonly RouteDef[], urls: Urls, namespacePath: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    const path = openApiPath(route.pattern, namespacePath)
    if (path === '/') continue
    const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
    const exclude = new Set(pathParams)
    const item: Record<string, unknown> = {}
    for (const endpoint of route.endpoints) {
      const args = endpoint.operation.args as Record<string, ArgSpec>
      for (const method of endpoint.methods) {
        const { status, schema } = responseFor(path, method)
        const hasBody = method === 'POST' || method === 'PUT' || method === 'PATCH'
        const requestParams: Record<string, z.ZodObject> = {}
        if (pathParams.length > 0) {
          requestParams.path = z.object(Object.fromEntries(pathParams.map((p) => [p, PATH_PARAM_SCHEMAS[p] ?? z.string()])))
        }
        const fields = paramsShape(args, exclude)
        if (!hasBody && Object.keys(fields).length > 0) requestParams.query = z.object(fields)
        item[method.toLowerCase()] = {
          requestParams,
          ...(hasBody
            ? {
                requestBody: {
                  content: {
                    'application/json': { schema: z.object(fields) },
                    'application/x-www-form-urlencoded': { schema: z.object(fields) },
                  },
                },
              }
            : {}),
          responses: {
            [status]: { description: 'Success.', content: { 'application/json': { schema } } },
            default: { description: 'Error in the contract shape.', content: { 'application/json': { schema: ErrorSchema } } },
          },
        }
      }
    }
    paths[path] = item
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      version: '1.0.0',
      title: 'Event calendar REST API',
      description: 'Events, venues, organizers, categories and tags (namespace cal/events/v1).',
    },
    servers: [{ url: `${urls.rest}/` }],
    paths: paths as never,
  }) as unknown as Record<string, unknown>
}
