import { Migrator, type Kysely } from 'kysely'
import { migrationProvider } from './migrations/index.js'

/** Applies every pending migration; throws with the failing migration's error. */
export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  // Numbers are handed out ahead of time to work landing in any order: a database that already ran
  // 0010 must still accept a later-landed 0007 instead of calling its history corrupted.
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
    migrationTableName: 'cal_migrations',
    migrationLockTableName: 'cal_migrations_lock',
    allowUnorderedMigrations: true,
  })
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String(error instanceof Error ? error.message : error)}`, { cause: error })
  }
}
