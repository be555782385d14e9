import type { Migration, MigrationProvider } from 'kysely'
import { initialSchema } from './0001-initial-schema.js'

// Listed in code, not read from a folder, so the migrations survive bundling.
const MIGRATIONS: Record<string, Migration> = {
  '0001-initial-schema': initialSchema,
}

/** Kysely migration provider over the ordered, in-code migration list. */
export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return MIGRATIONS
  },
}
