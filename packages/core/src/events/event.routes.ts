import type { VariantConfig } from '../config/variants.js'
import { collectionRoute, type RouteDef } from '../http/routes.js'
import { eventListOperation } from './event-list.js'
import {
  eventByOriginOperation,
  eventCreateOperation,
  eventDeleteOperation,
  eventReadOperation,
  eventUpdateOperation,
} from './event.operations.js'

/** The event operations, by name, for routes and the script API alike. */
export function eventOperations(variant: VariantConfig) {
  return {
    list: eventListOperation(variant),
    create: eventCreateOperation(),
    get: eventReadOperation('id', variant),
    getBySlug: eventReadOperation('slug', variant),
    update: eventUpdateOperation('id', variant),
    updateBySlug: eventUpdateOperation('slug', variant),
    delete: eventDeleteOperation('id', variant),
    deleteBySlug: eventDeleteOperation('slug', variant),
    /** Script API only; no route serves it. */
    getByOrigin: eventByOriginOperation(),
  }
}

/** Event routes in registration order (CONTRACT 14.1). */
export function eventRoutes(ops: ReturnType<typeof eventOperations>, ns: string): RouteDef[] {
  return [
    collectionRoute(`${ns}/events`, ops.list, ops.create),
    {
      pattern: `${ns}/events/(?P<id>\\d+)`,
      path: `${ns}/events/:id`,
      endpoints: [
        { methods: ['GET'], operation: ops.get },
        { methods: ['DELETE'], operation: ops.delete },
        { methods: ['POST', 'PUT', 'PATCH'], operation: ops.update },
      ],
    },
    {
      pattern: `${ns}/events/by-slug/(?P<slug>[^/]+)`,
      path: `${ns}/events/by-slug/:slug`,
      endpoints: [
        { methods: ['GET'], operation: ops.getBySlug },
        { methods: ['DELETE'], operation: ops.deleteBySlug },
        { methods: ['POST', 'PUT', 'PATCH'], operation: ops.updateBySlug },
      ],
    },
  ]
}
