import type { VariantConfig } from '../config/variants.js'
import { byIdRoute, collectionRoute, itemWrites, type RouteDef } from '../http/routes.js'
import { lockTermForWrite } from './term-write.js'
import type { Taxonomy } from './taxonomies.js'
import { termListOperation } from './term-list.js'
import { termCreateOperation, termDeleteOperation, termReadOperation, termUpdateOperation } from './term.operations.js'

/** The category or tag operations, by name, for routes and the script API alike. */
export function termOperations(taxonomy: Taxonomy, variant: VariantConfig) {
  return {
    list: termListOperation(taxonomy, variant),
    create: termCreateOperation(taxonomy),
    get: termReadOperation(taxonomy),
    update: termUpdateOperation(taxonomy),
    delete: termDeleteOperation(taxonomy),
  }
}

/** Category or tag routes in registration order (CONTRACT 14.1); by-id handlers answer `GET, POST, PUT, PATCH, DELETE`. */
export function termRoutes(taxonomy: Taxonomy, ops: ReturnType<typeof termOperations>, ns: string): RouteDef[] {
  const collection = `${ns}/${taxonomy.plural}`
  const item = itemWrites(ops.get, async (trx, input) => {
    const id = input.id as number
    return (await lockTermForWrite(trx, taxonomy, id)) ? { id } : undefined
  })
  return [
    collectionRoute(collection, ops.list, ops.create, ops.get),
    byIdRoute(collection, [
      { methods: ['GET'], operation: ops.get },
      { methods: ['POST', 'PUT', 'PATCH'], operation: ops.update, item: item.update },
      { methods: ['DELETE'], operation: ops.delete, item: item.delete },
    ]),
  ]
}
