import type { VariantConfig } from '../config/variants.js'
import type { RouteDef } from '../http/routes.js'
import type { LinkedKind } from './kinds.js'

/** The venue or organizer operations, by name (filled in by the venues/organizers work). */
export function linkedOperations(_kind: LinkedKind, _variant: VariantConfig) {
  return {} as Record<string, never>
}

/** Venue or organizer routes in registration order (CONTRACT 14.1). */
export function linkedRoutes(_kind: LinkedKind, _ops: ReturnType<typeof linkedOperations>, _ns: string): RouteDef[] {
  return []
}
