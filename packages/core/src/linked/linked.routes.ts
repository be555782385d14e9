import type { VariantConfig } from '../config/variants.js'
import { postRoutes, type PostOperations, type RouteDef } from '../http/routes.js'
import type { ArgsRecord } from '../api/operation.js'
import type { LinkedKind } from './kinds.js'
import { syncOperation } from '../sync/sync-route.js'
import { linkedListOperation } from './linked-list.js'
import {
  linkedCreateOperation,
  linkedDeleteOperation,
  linkedReadOperation,
  linkedUpdateOperation,
} from './linked.operations.js'

/** The venue or organizer operations, by name, for routes and the script API alike. */
export function linkedOperations<N extends LinkedKind['type'], D extends ArgsRecord>(kind: LinkedKind<N, D>, variant: VariantConfig) {
  const list = linkedListOperation(kind, variant)
  return {
    list,
    /** `GET /venues/sync` or `/organizers/sync`: the list's sync walk on its own path. */
    sync: syncOperation(list, `${kind.plural}/sync`),
    create: linkedCreateOperation(kind),
    get: linkedReadOperation(kind, 'id'),
    getBySlug: linkedReadOperation(kind, 'slug'),
    update: linkedUpdateOperation(kind, 'id'),
    updateBySlug: linkedUpdateOperation(kind, 'slug'),
    delete: linkedDeleteOperation(kind, 'id'),
    deleteBySlug: linkedDeleteOperation(kind, 'slug'),
  }
}

/** Venue or organizer routes in registration order (CONTRACT 14.1). */
export function linkedRoutes(kind: LinkedKind, ops: PostOperations, ns: string): RouteDef[] {
  const collection = `${ns}/${kind.plural}`
  return postRoutes(collection, ops, kind.table)
}
