import type { VariantConfig } from '../config/variants.js'
import { itemWrites, postRoutes, type RouteDef } from '../http/routes.js'
import { postLock, type ItemLock, type ItemWrite } from '../http/preconditions.js'
import type { EndpointDoc } from '../http/routes.js'
import { EventSchema } from '../openapi/wire-schemas.js'
import { wallFromDb } from '../time/wall-time.js'
import { syncOperation } from '../sync/sync-route.js'
import { eventListOperation } from './event-list.js'
import {
  eventByOriginOperation,
  eventCreateOperation,
  eventDeleteOperation,
  eventOccurrenceReadOperation,
  eventReadOperation,
  eventUpdateOperation,
} from './event.operations.js'
import { eventOccurrenceDeleteOperation, eventOccurrenceSplitOperation, eventOccurrenceUpdateOperation } from './occurrence.operations.js'
import { findException } from '../recurrence/index.js'

/** The event operations, by name, for routes and the script API alike. */
export function eventOperations(variant: VariantConfig) {
  const list = eventListOperation(variant)
  return {
    list,
    /** `GET /events/sync`: the list's sync walk on its own path. */
    sync: syncOperation(list, 'events/sync'),
    create: eventCreateOperation(),
    get: eventReadOperation('id', variant),
    getBySlug: eventReadOperation('slug', variant),
    update: eventUpdateOperation('id', variant),
    updateBySlug: eventUpdateOperation('slug', variant),
    delete: eventDeleteOperation('id', variant),
    deleteBySlug: eventDeleteOperation('slug', variant),
    getOccurrence: eventOccurrenceReadOperation(variant),
    deleteOccurrence: eventOccurrenceDeleteOperation(),
    updateOccurrence: eventOccurrenceUpdateOperation(),
    updateFollowing: eventOccurrenceSplitOperation(),
    /** Script API only; no route serves it. */
    getByOrigin: eventByOriginOperation(),
  }
}

const DELETE_OCCURRENCE_DOC: EndpointDoc = {
  operationId: 'deleteEventOccurrence',
  summary: 'Delete one occurrence of a series',
  description:
    'Extension (issue 19): excludes the occurrence `key` from the series `id` by adding an EXDATE to its `recurrence`; ' +
    'the series is not trashed. A key that is no occurrence of the series (already deleted, not in the rule, or the event ' +
    'is no series) is 404 `rest-event-occurrence-not-found`; deleting the last occurrence left is a 400 on `recurrence` ' +
    '(delete the series instead). Permissions are those of the series.',
  tags: ['Events'],
  access: 'token',
  errors: ['EVENT_NOT_FOUND', 'INVALID_EVENT_ID', 'EVENT_IN_TRASH', 'EVENT_OCCURRENCE_NOT_FOUND'],
  success: { status: 200, description: 'The series, with the new EXDATE.', schema: EventSchema },
}

const UPDATE_OCCURRENCE_DOC: EndpointDoc = {
  operationId: 'updateEventOccurrence',
  summary: 'Change one occurrence of a series',
  description:
    'Extension (issue 19): changes the occurrence `key` of series `id` only (title, times, description, venue, organizers, ' +
    'categories, tags, cost, ...). It keeps its key and place in the series; later edits of the series leave what was changed ' +
    'as it is (when a series edit moves the whole series, changed occurrences stay where they are, as RFC 5545 overrides do). ' +
    'Lists show its values and filter on them. Status, author and password are the series\'. A key that is no occurrence of ' +
    'the series is 404 `rest-event-occurrence-not-found`. Answers the occurrence. `If-Match` takes the tag of the occurrence ' +
    '(`GET /events/{id}/occurrences/{key}`); the `ETag` answered is the occurrence\'s new one.',
  tags: ['Events'],
  access: 'token',
  errors: ['EVENT_NOT_FOUND', 'INVALID_EVENT_ID', 'EVENT_IN_TRASH', 'EVENT_OCCURRENCE_NOT_FOUND'],
  success: { status: 200, description: 'The occurrence as changed.', schema: EventSchema },
}

const FOLLOWING_DOC: EndpointDoc = {
  operationId: 'updateEventFollowing',
  summary: 'Change an occurrence and all following ones',
  description:
    'Extension (issue 19): "this and all following". Splits series `id` at occurrence `key`: the series ends just before it ' +
    '(its COUNT becomes the occurrences before the key, otherwise UNTIL is set; its RDATEs and EXDATEs from the key on move), ' +
    'and a new series starts at the occurrence with the series\' fields and the fields sent on top (an occurrence\'s fields, ' +
    'and `recurrence` to replace the adapted rule: a COUNT keeps what was left of the old one). Changed occurrences from the key on ' +
    'move to the new series; its `global_id_lineage` ends with the old series\' global id. Answers the new series with 201 and its ' +
    '`Location`; at the first occurrence nothing is split and the whole series is edited and answered with 200. `If-Match` takes ' +
    'the series\' tag; the `ETag` answered is the new series\'. A key that is no occurrence of the series is 404 ' +
    '`rest-event-occurrence-not-found`; a change that leaves the new series no occurrence is a 400 on `recurrence`. Permissions ' +
    'are those of the series.',
  tags: ['Events'],
  access: 'token',
  errors: ['EVENT_NOT_FOUND', 'INVALID_EVENT_ID', 'EVENT_IN_TRASH', 'EVENT_OCCURRENCE_NOT_FOUND'],
  success: {
    status: 201,
    description: 'The new series.',
    schema: EventSchema,
    headers: ['location'],
    others: [{ status: 200, description: 'The series, edited as a whole (the key was its first occurrence).' }],
  },
}

/**
 * The lock of one occurrence's change: its series' row, and the tag of the occurrence as read at
 * `GET …/occurrences/{key}` (a changed occurrence's own modified time for `If-Unmodified-Since`).
 */
const occurrenceLock: ItemLock = async (trx, input, ctx) => {
  const series = await postLock('events')(trx, input, ctx)
  if (!series) return undefined
  const key = String(input.key)
  const exception = await findException(trx, series.id, key)
  return { ...series, path: { id: String(series.id), key }, ...(exception ? { modifiedUtc: wallFromDb(exception.modified_utc) } : {}) }
}

/** Changing one occurrence is guarded by the occurrence's tag and answers its new one. */
function occurrenceWrite(read: ItemWrite['read']): ItemWrite {
  return {
    write: 'update',
    read,
    lock: occurrenceLock,
    answerPath: (body) => (typeof body.occurrence === 'string' ? { id: String(body.id), key: body.occurrence } : undefined),
  }
}

/** Event routes in registration order (CONTRACT 14.1). */
export function eventRoutes(ops: ReturnType<typeof eventOperations>, ns: string): RouteDef[] {
  return postRoutes(`${ns}/events`, ops, 'events')
}

const OCCURRENCE_DOC: EndpointDoc = {
  operationId: 'getEventOccurrence',
  summary: 'One occurrence of a recurring event',
  description:
    'Extension (issue 19): the occurrence of series `id` whose key is `key` (its original start in UTC, `20270105T090000Z`, or its date, ' +
    '`20270105`, in an all-day series), as the event list shows it. Readable exactly when the series is (same errors); a key that is ' +
    'no occurrence of the series, or an event that is no series, is `rest-event-occurrence-not-found`.',
  tags: ['Events'],
  access: 'public',
  errors: ['EVENT_NOT_FOUND', 'INVALID_EVENT_ID', 'EVENT_NO_LONGER_AVAILABLE', 'EVENT_NOT_ACCESSIBLE', 'EVENT_PASSWORD_PROTECTED', 'TOO_MANY_REQUESTS', 'EVENT_OCCURRENCE_NOT_FOUND'],
  success: { status: 200, description: 'The occurrence.', schema: EventSchema },
}

/**
 * The occurrence route (issue 19), after the contract's routes so that their registration order
 * (CONTRACT 14.1) stays a prefix of the table. No earlier pattern matches it.
 */
export function occurrenceRoutes(ops: ReturnType<typeof eventOperations>, ns: string): RouteDef[] {
  return [
    {
      pattern: `${ns}/events/(?P<id>\\d+)/occurrences/(?P<key>[^/]+)`,
      path: `${ns}/events/:id/occurrences/:key`,
      endpoints: [
        { methods: ['GET'], operation: ops.getOccurrence, doc: OCCURRENCE_DOC },
        // An edit of the series (an EXDATE): guarded by the series' tag and answering its new one.
        { methods: ['DELETE'], operation: ops.deleteOccurrence, doc: DELETE_OCCURRENCE_DOC, item: itemWrites(ops.get, postLock('events')).update },
        // One operation id per method, as the document's linters want; the body schema is shared.
        { methods: ['POST'], operation: ops.updateOccurrence, doc: UPDATE_OCCURRENCE_DOC, item: occurrenceWrite(ops.getOccurrence) },
        { methods: ['PUT'], operation: ops.updateOccurrence, doc: { ...UPDATE_OCCURRENCE_DOC, operationId: 'putEventOccurrence' }, item: occurrenceWrite(ops.getOccurrence) },
        { methods: ['PATCH'], operation: ops.updateOccurrence, doc: { ...UPDATE_OCCURRENCE_DOC, operationId: 'patchEventOccurrence' }, item: occurrenceWrite(ops.getOccurrence) },
      ],
    },
    {
      pattern: `${ns}/events/(?P<id>\\d+)/occurrences/(?P<key>[^/]+)/following`,
      path: `${ns}/events/:id/occurrences/:key/following`,
      // A series write: guarded by the series' tag; the new tag is of the series answered.
      endpoints: [
        { methods: ['POST'], operation: ops.updateFollowing, doc: FOLLOWING_DOC, item: itemWrites(ops.get, postLock('events')).update },
        { methods: ['PUT'], operation: ops.updateFollowing, doc: { ...FOLLOWING_DOC, operationId: 'putEventFollowing' }, item: itemWrites(ops.get, postLock('events')).update },
        { methods: ['PATCH'], operation: ops.updateFollowing, doc: { ...FOLLOWING_DOC, operationId: 'patchEventFollowing' }, item: itemWrites(ops.get, postLock('events')).update },
      ],
    },
  ]
}
