import { createDocument } from 'zod-openapi'
import type { ArgSpec } from '../api/arg-kinds.js'
import type { Urls } from '../api/context.js'
import type { CalendarErrorCode } from '../errors.js'
import { statusOf, wireCodeOf } from '../http/error-response.js'
import type { HttpMethod, RouteDef } from '../http/routes.js'
import { DOCUMENT_TAGS, endpointDoc, type EndpointDoc } from './endpoint-doc.js'
import { argJsonSchema, QUERY_LIST_STYLE } from './input-schemas.js'
import { ErrorSchema } from './wire-schemas.js'
import { IDEMPOTENCY_KEY_PARAM, IF_NONE_MATCH_READ_PARAM, WRITE_PRECONDITION_PARAMS } from './header-params.js'

type Json = Record<string, unknown>

const INT_MAX = 2147483647

const PATH_PARAM_SCHEMAS: Record<string, Json> = {
  id: { type: 'integer', minimum: 1, maximum: INT_MAX },
  slug: { type: 'string', minLength: 1, pattern: '^[^/]+$' },
  // An occurrence key (issue 19): never empty, one path segment.
  key: { type: 'string', minLength: 1, pattern: '^[^/]+$' },
}

const BODY_METHODS = new Set<HttpMethod>(['POST', 'PUT', 'PATCH'])

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request: a parameter is missing or invalid, or the body cannot be read.',
  401: 'Not authenticated: no token where one is needed, or a token that is unknown, malformed or revoked.',
  403: 'Forbidden: the caller may not do this, or may not see this item.',
  404: 'Not found.',
  409: 'A request with this `Idempotency-Key` is still in progress (its create committed, its answer is not stored yet).',
  410: 'Gone: already in the trash; on a list, a sync token the server can no longer answer (start again with sync=1).',
  412: 'A precondition failed: the item changed since the `If-Match` tag (or `If-Unmodified-Since` date) the request names; nothing was written.',
  413: 'The request body is too large.',
  415: 'Unsupported content type.',
  422: 'This `Idempotency-Key` was already used with another request (method, path or body).',
  429: 'Too many failed logins from this client (every request with credentials), or too many wrong password guesses for ' +
    'this event from this client; `data.retry_after` and the `Retry-After` header say in how many seconds to try again.',
  500: 'Unexpected server error.',
  503: 'The database is unavailable; try again shortly. A write answered 503 did not happen, or its outcome could not be ' +
    'known (a write that committed is answered as a success): retry a create with the same `Idempotency-Key`. ' +
    'On a feed, also: too many feeds are being built (`rest_feed_busy`; `Retry-After` says when to try again).',
}

const SECURITY_SCHEMES = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description: 'An API token (`cal_…`). Reads work without one; writes need a token whose role allows them.',
  },
  basicAuth: {
    type: 'http',
    scheme: 'basic',
    description: "The token owner's login as the user name and the token as the password (application-password style).",
  },
} as const

/** `(?P<id>\d+)` → `{id}`, relative to the namespace. */
function openApiPath(pattern: string, namespacePath: string): string {
  return pattern.slice(namespacePath.length).replace(/\(\?P<(\w+)>[^)]*\)/g, '{$1}') || '/'
}

/** The error codes one operation can answer: shared ones by what it declares and does, then its own. */
function errorCodes(
  doc: EndpointDoc,
  method: HttpMethod,
  args: Record<string, ArgSpec>,
  pathParams: Set<string>,
  idempotent: boolean,
  conditional: boolean,
): CalendarErrorCode[] {
  // Any route refuses a malformed query string or an invalid token (CONTRACT 3.2), and credentials
  // from a client that failed too many logins.
  const codes: CalendarErrorCode[] = ['INVALID_PARAM', 'INVALID_TOKEN', 'TOO_MANY_REQUESTS']
  if (Object.entries(args).some(([name, spec]) => spec.required && !pathParams.has(name))) codes.push('MISSING_PARAM')
  if (BODY_METHODS.has(method)) codes.push('INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE')
  if (doc.access === 'token') codes.push('UNAUTHENTICATED', 'FORBIDDEN')
  if (idempotent) codes.push('IDEMPOTENCY_KEY_INVALID', 'IDEMPOTENCY_KEY_IN_PROGRESS', 'IDEMPOTENCY_KEY_REUSED')
  if (conditional) codes.push('INVALID_IF_MATCH', 'PRECONDITION_FAILED')
  codes.push(...(doc.errors ?? []), 'INTERNAL', 'DATABASE_UNAVAILABLE')
  return [...new Set(codes)]
}

function errorResponses(codes: readonly CalendarErrorCode[]): Record<string, Json> {
  const byStatus = new Map<number, string[]>()
  for (const code of codes) {
    const list = byStatus.get(statusOf(code)) ?? []
    if (!list.includes(wireCodeOf(code))) list.push(wireCodeOf(code))
    byStatus.set(statusOf(code), list)
  }
  const responses: Record<string, Json> = {}
  for (const [status, wire] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: `${STATUS_TEXT[status] ?? 'Error.'} Codes: ${wire.map((c) => `\`${c}\``).join(', ')}.`,
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: '#/components/schemas/Error' },
              { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: wire } } },
            ],
          },
        },
      },
    }
  }
  return responses
}

const LIST_HEADERS = {
  'X-Cal-Total': { description: 'Number of matches across all pages (as `total`).', schema: { type: 'integer', minimum: 0 } },
  'X-Cal-TotalPages': { description: 'Number of pages (as `total_pages`).', schema: { type: 'integer', minimum: 0 } },
}
const SYNC_HEADER = {
  'X-Cal-Next-Sync-Token': {
    description: 'Extension: on the last page of a sync walk, the token for the next sync (as `next_sync_token`).',
    required: false,
    schema: { type: 'string' },
  },
}
const LOCATION_HEADER = { Location: { description: 'URL of the item created.', schema: { type: 'string', format: 'uri' } } }
const ETAG_SCHEMA = { type: 'string', pattern: '^"[\\x21\\x23-\\x7e]*"$' }
const READ_ETAG_HEADER = {
  ETag: {
    description: 'Strong entity tag of this answer to this caller (body, list headers and who asked); send it in `If-None-Match`.',
    schema: ETAG_SCHEMA,
  },
}
const WRITE_ETAG_HEADER = {
  ETag: {
    description:
      "The item's entity tag as this caller would now GET it: send it in `If-Match` on the next update or delete. " +
      'Absent when the caller cannot read the item.',
    required: false,
    schema: ETAG_SCHEMA,
  },
}

const VALIDATOR_HEADERS = {
  ETag: { description: 'Strong entity tag; send it back in `If-None-Match` to poll.', schema: { type: 'string' } },
  'Last-Modified': { description: 'When what this answer shows last changed, to the second; for `If-Modified-Since`.', schema: { type: 'string' } },
  'Cache-Control': { description: '`public, max-age=300` for anonymous callers, else `private, no-cache`.', schema: { type: 'string' } },
}

/** The request headers of a conditional GET, for endpoints that answer 304 themselves. */
const CONDITIONAL_PARAMS: Json[] = [
  { name: 'If-None-Match', in: 'header', required: false, description: 'Entity tags the client holds: 304 when one is current.', schema: { type: 'string' } },
  {
    name: 'If-Modified-Since',
    in: 'header',
    required: false,
    description: 'An HTTP date: 304 when nothing shown changed after it. Ignored with `If-None-Match`.',
    schema: { type: 'string' },
  },
]

/** Whether an answer carries an `ETag`: JSON reads, and creates and updates of an item. */
type TagKind = 'read' | 'write' | undefined

function successResponse(doc: EndpointDoc, tag: TagKind): Record<string, unknown> {
  const success = doc.success ?? { status: 200, description: 'Success.' }
  const headers: Json = {}
  if (tag === 'read') Object.assign(headers, READ_ETAG_HEADER)
  if (tag === 'write') Object.assign(headers, WRITE_ETAG_HEADER)
  if (success.headers?.includes('list-totals')) Object.assign(headers, LIST_HEADERS)
  if (success.headers?.includes('location')) Object.assign(headers, LOCATION_HEADER)
  if (success.headers?.includes('sync')) Object.assign(headers, SYNC_HEADER)
  if (success.headers?.includes('validators')) Object.assign(headers, VALIDATOR_HEADERS)
  return {
    [String(success.status)]: {
      description: success.description,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: { [success.contentType ?? 'application/json']: { schema: success.schema ?? {} } },
    },
    ...Object.fromEntries((success.others ?? []).map((other) => [
      String(other.status),
      {
        description: other.description,
        ...(tag === 'write' ? { headers: WRITE_ETAG_HEADER } : {}),
        content: { [success.contentType ?? 'application/json']: { schema: success.schema ?? {} } },
      },
    ])),
    ...(success.headers?.includes('validators')
      ? { '304': { description: 'Not Modified: the copy the client holds is current (no body).', headers: { ETag: VALIDATOR_HEADERS.ETag, 'Last-Modified': VALIDATOR_HEADERS['Last-Modified'] } } }
      : {}),
  }
}

function pascal(text: string): string {
  return text[0]!.toUpperCase() + text.slice(1)
}

/** Example bodies of the main writes, checked against their schemas by the linters. */
const BODY_EXAMPLES: Record<string, Json> = {
  createEvent: {
    title: 'Team Meetup',
    start_date: '2027-03-01 18:00:00',
    end_date: '2027-03-01 20:00:00',
    timezone: 'Europe/Berlin',
    venue: { venue: 'Town Hall', city: 'Springfield' },
    organizer: [{ organizer: 'Meetup Crew' }],
    categories: ['Meetups'],
    tags: ['free'],
    cost: '0',
  },
  updateEvent: { featured: true, venue: null },
  createVenue: { venue: 'Town Hall', address: '1 Main St', city: 'Springfield', country: 'United States' },
  createOrganizer: { organizer: 'Meetup Crew', email: 'crew@example.org' },
  createCategory: { name: 'Meetups', description: 'Informal gatherings.' },
  createTag: { name: 'free' },
}

/** The document's `servers`: the REST root of the request (or of the configured public URL). */
export function openApiServers(urls: Urls): { url: string; description: string }[] {
  return [{ url: urls.rest, description: 'This server.' }]
}

const NOT_MODIFIED_RESPONSE = {
  304: {
    description: 'Not modified: the `If-None-Match` tag is current. No body; the same `ETag` and caching headers.',
    headers: READ_ETAG_HEADER,
  },
}

/** One operation of the document: the fields every one has, the others as written. */
export interface OpenApiOperation {
  operationId: string
  summary: string
  tags: string[]
  responses: Record<string, unknown>
  [field: string]: unknown
}

/**
 * The OpenAPI 3.1 document as JSON: the top-level fields this calendar writes, each part typed as
 * far as this code states it (an OpenAPI tool reads the rest).
 */
export interface OpenApiDocument {
  openapi: string
  info: Record<string, unknown>
  servers: { url: string; description: string }[]
  tags: Record<string, unknown>[]
  /** By path, then by lower-case method: the operation objects. */
  paths: Record<string, Record<string, OpenApiOperation>>
  components: { schemas: Record<string, Record<string, unknown>>; securitySchemes: Record<string, unknown> }
}

/** The OpenAPI 3.1 document (CONTRACT 14.2), generated from the route table and zod schemas. */
export function buildOpenApiDocument(routes: readonly RouteDef[], urls: Urls, namespacePath: string): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {}
  const bodySchemas: Record<string, Json> = {}
  for (const route of routes) {
    const path = openApiPath(route.pattern, namespacePath)
    const pathParams = new Set([...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!))
    const item: Record<string, unknown> = {}
    for (const endpoint of route.endpoints) {
      const args = endpoint.operation.args as Record<string, ArgSpec>
      for (const method of endpoint.methods) {
        const doc = endpointDoc(path, method, endpoint.doc)
        const operationId = doc.operationId!
        const hasBody = BODY_METHODS.has(method)
        const parameters: Json[] = [...pathParams].map((name) => ({
          name,
          in: 'path',
          required: true,
          description: args[name]?.description ?? `The ${name}.`,
          schema: PATH_PARAM_SCHEMAS[name] ?? { type: 'string' },
        }))
        if (endpoint.operation.policy?.idempotent) parameters.push(IDEMPOTENCY_KEY_PARAM)
        if (doc.success?.headers?.includes('validators')) parameters.push(...CONDITIONAL_PARAMS)
        const conditional = endpoint.item !== undefined && endpoint.item.write !== 'create'
        // Feeds that answer 304 themselves (`validators`) declare their own headers.
        const jsonRead = method === 'GET' && (doc.success?.contentType ?? 'application/json').includes('json') && !doc.success?.headers?.includes('validators')
        if (conditional) parameters.push(...WRITE_PRECONDITION_PARAMS)
        if (jsonRead) parameters.push(IF_NONE_MATCH_READ_PARAM)
        const tag: TagKind = jsonRead ? 'read' : endpoint.item && endpoint.item.write !== 'delete' ? 'write' : undefined
        const fields = Object.entries(args).filter(([name]) => !pathParams.has(name) && !doc.hiddenArgs?.includes(name))
        let requestBody: Json | undefined
        if (!hasBody) {
          for (const [name, spec] of fields) {
            const { description, ...schema } = argJsonSchema(spec, 'query')
            const list = schema.type === 'array'
            const text = list ? [description, QUERY_LIST_STYLE.note].filter(Boolean).join(' ') : description
            const style = list ? { style: QUERY_LIST_STYLE.style, explode: QUERY_LIST_STYLE.explode } : {}
            parameters.push({ name, in: 'query', required: Boolean(spec.required), ...(text ? { description: text } : {}), ...style, schema })
          }
        } else if (fields.length > 0) {
          const required = fields.filter(([, spec]) => spec.required).map(([name]) => name)
          const schema: Json = {
            type: 'object',
            properties: Object.fromEntries(fields.map(([name, spec]) => [name, argJsonSchema(spec, 'body')])),
            ...(required.length > 0 ? { required } : {}),
          }
          const pairs = fields.filter(([, spec]) => spec.with).map(([name, spec]) => [name, [spec.with!]])
          if (pairs.length > 0) schema.dependentRequired = Object.fromEntries(pairs)
          // One named schema per distinct body, shared by POST, PUT and PATCH of the same handler.
          const name = `${pascal(operationId.replace(/^(put|patch)/, 'update'))}Body`
          const known = bodySchemas[name]
          if (known && JSON.stringify(known) !== JSON.stringify(schema)) throw new Error(`two bodies named ${name}`)
          bodySchemas[name] = schema
          const ref = { $ref: `#/components/schemas/${name}` }
          const example = BODY_EXAMPLES[operationId]
          requestBody = {
            required: required.length > 0,
            description: 'JSON, or a form body with bracket syntax for nested values (`venue[city]=Rome`).',
            content: {
              'application/json': { schema: ref, ...(example ? { example } : {}) },
              'application/x-www-form-urlencoded': { schema: ref },
            },
          }
        }
        item[method.toLowerCase()] = {
          operationId,
          summary: doc.summary,
          description: doc.description,
          tags: doc.tags,
          security: doc.access === 'token' ? [{ bearerAuth: [] }, { basicAuth: [] }] : [{}, { bearerAuth: [] }, { basicAuth: [] }],
          ...(parameters.length > 0 ? { parameters } : {}),
          ...(requestBody ? { requestBody } : {}),
          responses: {
            ...successResponse(doc, tag),
            ...(jsonRead ? NOT_MODIFIED_RESPONSE : {}),
            ...errorResponses(errorCodes(doc, method, args, pathParams, Boolean(endpoint.operation.policy?.idempotent), conditional)),
          },
        }
      }
    }
    paths[path] = { ...paths[path], ...item }
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      version: '1.0.0',
      title: 'Event calendar REST API',
      description:
        'Events, venues, organizers, categories and tags (namespace cal/events/v1). Reads are public for published ' +
        'items; writes need a bearer token. Every error answers `{ code, message, data: { status, … } }`. ' +
        'Text values cannot contain U+0000. Anonymous reads may be answered from a server-side cache that is checked ' +
        "against the database's change log on every request: an answer never predates a write acknowledged before the request.",
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { name: 'cal-events' },
    },
    // No trailing slash: clients join it with paths that start with one.
    servers: openApiServers(urls),
    tags: DOCUMENT_TAGS,
    paths,
    components: {
      schemas: { Error: ErrorSchema, ...(bodySchemas as Record<string, never>) },
      securitySchemes: SECURITY_SCHEMES,
    },
  }) as unknown as OpenApiDocument
}
