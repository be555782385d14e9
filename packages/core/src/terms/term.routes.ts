import type { VariantConfig } from '../config/variants.js'
import type { RouteDef } from '../http/routes.js'

/** The category or tag operations, by name (filled in by the taxonomy work). */
export function termOperations(_taxonomy: 'category' | 'tag', _variant: VariantConfig) {
  return {} as Record<string, never>
}

/** Category or tag routes in registration order (CONTRACT 14.1). */
export function termRoutes(_taxonomy: 'category' | 'tag', _ops: ReturnType<typeof termOperations>, _ns: string): RouteDef[] {
  return []
}
