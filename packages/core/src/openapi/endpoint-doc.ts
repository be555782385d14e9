import { z } from 'zod'
import type { CalendarErrorCode } from '../errors.js'
import type { EndpointDoc, HttpMethod } from '../http/routes.js'
import { ORGANIZER, VENUE } from '../linked/kinds.js'
import { TAXONOMIES, taxonomyAt } from '../terms/taxonomies.js'
import { RESOURCE_SCHEMAS, RootDescriptorSchema, OpenApiDocumentSchema } from './wire-schemas.js'

export type { EndpointDoc } from '../http/routes.js'

/** The list parameters of incremental sync, described on the `…/sync` paths. */
const SYNC_ARGS = ['sync', 'sync_token', 'sync_page'] as const

/** `GET /{collection}/sync`: a sync walk or delta of a syncing list (docs/sync.md). */
function syncDoc(names: ResourceNames, method: HttpMethod, schema: z.ZodType | undefined): EndpointDoc {
  if (method !== 'GET' || !schema) return genericDoc(`/${names.many.toLowerCase()}/sync`, method)
  const plural = names.many.toLowerCase()
  return {
    operationId: `sync${names.many}`,
    summary: `Sync ${plural}`,
    description:
      `Extension: incremental sync of the ${plural} a caller sees (docs/sync.md). Without \`sync_token\` or \`sync_page\`, ` +
      `a walk over every ${names.noun} by id (no date window) starts; follow \`next_rest_url\` page by page. The last page ` +
      `returns \`next_sync_token\` (body and X-Cal-Next-Sync-Token header). \`sync_token\` answers only what changed since: ` +
      `the ${names.noun} as the caller sees it now, or \`{"id", "deleted": true}\` for one gone or no longer visible; 410 means ` +
      `start again with a walk. The list's other filters apply and bind the token. The same as the list with \`sync=1\`.`,
    tags: [names.tag],
    access: 'public',
    errors: SYNC_ERRORS,
    success: { status: 200, description: `A page of a sync walk or delta of ${plural}.`, schema, headers: ['list-totals', 'sync'] },
  }
}

/** A built-in resource as its collection segment names it. */
interface ResourceNames {
  tag: string
  one: string
  many: string
  /** Lower-case singular for prose. */
  noun: string
}

const RESOURCES: Record<string, ResourceNames> = {
  events: { tag: 'Events', one: 'Event', many: 'Events', noun: 'event' },
  venues: { tag: 'Venues', one: 'Venue', many: 'Venues', noun: 'venue' },
  organizers: { tag: 'Organizers', one: 'Organizer', many: 'Organizers', noun: 'organizer' },
  ...Object.fromEntries(TAXONOMIES.map((t) => [t.plural, t.doc])),
}

/** Tags of the document, in the order the reference page lists them. */
export const DOCUMENT_TAGS = [
  { name: 'Discovery', description: 'The root descriptor and this document.' },
  { name: 'Events', description: 'Calendar events with their dates, venue, organizers, categories and tags.' },
  { name: 'Venues', description: 'Places events happen at (trashed, never deleted for good).' },
  { name: 'Organizers', description: 'People or groups running events (trashed, never deleted for good).' },
  ...TAXONOMIES.map((t) => ({ name: t.doc.tag, description: t.doc.about })),
]

type Action = 'list' | 'create' | 'get' | 'update' | 'put' | 'patch' | 'delete'

const LINKED_KINDS = [VENUE, ORGANIZER] as const

// An event write may create venues and organizers inline, or name them by id (CONTRACT 10.4).
const EVENT_LINK_ERRORS: CalendarErrorCode[] = ['INVALID_LINKED_POST_ID', ...LINKED_KINDS.map((k) => k.errors.couldNotCreate)]

/** What a list with sync parameters can answer besides its own errors (docs/sync.md). */
const SYNC_ERRORS: CalendarErrorCode[] = ['SYNC_TOKEN_MISMATCH', 'SYNC_TOKEN_INVALID', 'SYNC_TOKEN_EXPIRED']

/** Domain errors of a built-in action (CONTRACT 2.3, 9.1, 13), beside the shared ones. */
function domainErrors(segment: string, action: Action): CalendarErrorCode[] {
  const write = action === 'update' || action === 'put' || action === 'patch'
  if (segment === 'events') {
    if (action === 'list') return ['EVENT_ARCHIVE_PAGE_NOT_FOUND']
    if (action === 'create') return EVENT_LINK_ERRORS
    const missing: CalendarErrorCode[] = ['EVENT_NOT_FOUND', 'INVALID_EVENT_ID']
    if (action === 'get') {
      // Wrong password guesses are rate-limited per event and client.
      return [...missing, 'EVENT_NO_LONGER_AVAILABLE', 'EVENT_NOT_ACCESSIBLE', 'EVENT_PASSWORD_PROTECTED', 'TOO_MANY_REQUESTS']
    }
    if (action === 'delete') return [...missing, 'EVENT_IN_TRASH']
    if (write) return [...missing, ...EVENT_LINK_ERRORS]
  }
  const kind = LINKED_KINDS.find((k) => k.plural === segment)
  if (kind) {
    if (action === 'list') return [kind.errors.pageNotFound, 'BAD_SEARCH_STRING']
    if (action === 'create') return [kind.errors.couldNotCreate]
    if (action === 'get') return [kind.errors.notAccessible]
    if (action === 'delete') return [kind.errors.inTrash]
    if (write) return [kind.errors.couldNotUpdate]
  }
  const taxonomy = taxonomyAt(segment)
  if (taxonomy) {
    if (action === 'create') return ['TERM_EXISTS', ...taxonomy.writeErrors]
    if (write) return ['TERM_EXISTS', 'DUPLICATE_TERM_SLUG', ...taxonomy.writeErrors]
  }
  return []
}

function actionOf(method: HttpMethod, isItem: boolean): Action {
  if (!isItem) return method === 'GET' ? 'list' : 'create'
  if (method === 'GET') return 'get'
  if (method === 'DELETE') return 'delete'
  return method === 'PUT' ? 'put' : method === 'PATCH' ? 'patch' : 'update'
}

function camel(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word, i) => (i === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1)))
    .join('')
}

/** A generic description for a route the document knows nothing about (added by a host or a newer module). */
function genericDoc(path: string, method: HttpMethod): EndpointDoc {
  const segment = path.split('/')[1] ?? ''
  return {
    operationId: camel(`${method} ${path.replace(/[{}]/g, ' ')}`) || method.toLowerCase(),
    summary: `${method} ${path}`,
    description: `${method} ${path}.`,
    tags: [RESOURCES[segment]?.tag ?? 'Discovery'],
    access: method === 'GET' ? 'public' : 'token',
    success: { status: 200, description: 'Success.' },
  }
}

/** The document's view of one method of a route: derived for the built-in resources, `doc` wins. */
export function endpointDoc(path: string, method: HttpMethod, declared: EndpointDoc | undefined): EndpointDoc {
  return { ...builtInDoc(path, method), ...declared }
}

function builtInDoc(path: string, method: HttpMethod): EndpointDoc {
  if (path === '/' && method === 'GET') {
    return {
      operationId: 'describeApi',
      summary: 'Describe the namespace',
      description: 'The root descriptor: every route of the namespace with its methods and declared arguments.',
      tags: ['Discovery'],
      access: 'public',
      errors: ['INVALID_NAMESPACE'],
      success: { status: 200, description: 'The root descriptor.', schema: RootDescriptorSchema },
    }
  }
  if (path === '/doc' && method === 'GET') {
    return {
      operationId: 'getOpenApiDocument',
      summary: 'Get this OpenAPI document',
      description: 'This OpenAPI 3.1 document, generated from the schemas the API validates with.',
      tags: ['Discovery'],
      access: 'public',
      success: { status: 200, description: 'The OpenAPI document.', schema: OpenApiDocumentSchema },
    }
  }
  const match = /^\/(\w+)(?:\/(\{id\})|\/by-slug\/(\{slug\})|\/(sync))?$/.exec(path)
  const names = match ? RESOURCES[match[1]!] : undefined
  if (!match || !names) return genericDoc(path, method)
  const syncSchema = RESOURCE_SCHEMAS[match[1] as keyof typeof RESOURCE_SCHEMAS]?.sync
  if (match[4] !== undefined) return syncDoc(names, method, syncSchema)
  const segment = match[1]!
  const bySlug = match[3] !== undefined
  const isItem = match[2] !== undefined || bySlug
  const action = actionOf(method, isItem)
  const schemas = RESOURCE_SCHEMAS[segment as keyof typeof RESOURCE_SCHEMAS]
  const by = bySlug ? 'BySlug' : ''
  const byText = bySlug ? ' by slug' : ''
  const trashes = segment === 'events' || segment === 'venues' || segment === 'organizers'
  const base = { tags: [names.tag], errors: domainErrors(segment, action) }
  switch (action) {
    case 'list':
      return {
        ...base,
        operationId: `list${names.many}`,
        summary: `List ${names.many.toLowerCase()}`,
        description:
          `One page of ${names.many.toLowerCase()} matching the filters; the totals are also in the X-Cal-Total and ` +
          `X-Cal-TotalPages headers. Anonymous callers see published items only.` +
          (schemas.sync ? ` Extension: incremental sync has its own path, \`GET /${segment}/sync\`.` : ''),
        access: 'public',
        // The sync parameters the list still reads are described on the sync path, with its answer.
        ...(schemas.sync ? { hiddenArgs: SYNC_ARGS } : {}),
        success: { status: 200, description: `A page of ${names.many.toLowerCase()}.`, schema: schemas.list, headers: ['list-totals'] },
      }
    case 'create':
      return {
        ...base,
        operationId: `create${names.one}`,
        summary: `Create a ${names.noun}`,
        description: `Creates a ${names.noun} and answers it with 201.`,
        access: 'token',
        success: {
          status: 201,
          description: `The ${names.noun} created.`,
          schema: schemas.item,
          ...(taxonomyAt(segment) ? { headers: ['location'] as const } : {}),
        },
      }
    case 'get':
      return {
        ...base,
        operationId: `get${names.one}${by}`,
        summary: `Get a ${names.noun}${byText}`,
        description: `One ${names.noun}${byText}, with its schema.org \`json_ld\` where the type has one.`,
        access: 'public',
        success: { status: 200, description: `The ${names.noun}.`, schema: schemas.item },
      }
    case 'delete':
      return {
        ...base,
        operationId: `delete${names.one}${by}`,
        summary: `${trashes ? 'Trash' : 'Delete'} a ${names.noun}${byText}`,
        description: trashes
          ? `Moves the ${names.noun} to the trash and answers it as it is now (status \`trash\`).`
          : `Deletes the ${names.noun} for good and answers it as it was.`,
        access: 'token',
        success: { status: 200, description: `The ${names.noun}.`, schema: schemas.item },
      }
    default: {
      const verb = action === 'put' ? 'put' : action === 'patch' ? 'patch' : 'update'
      return {
        ...base,
        operationId: `${verb}${names.one}${by}`,
        summary: `Update a ${names.noun}${byText}${action === 'update' ? '' : ` (${method})`}`,
        description: `Partial update: fields left out keep their values. POST, PUT and PATCH behave the same.`,
        access: 'token',
        success: { status: 200, description: `The ${names.noun} as updated.`, schema: schemas.item },
      }
    }
  }
}
