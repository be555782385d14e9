import type { VariantConfig } from '../config/variants.js'
import { postRoutes, type RouteDef } from '../http/routes.js'
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
  return postRoutes(`${ns}/events`, ops, 'events')
}
