// Regenerates src/db/generated.ts from a real, freshly migrated PostgreSQL database.
// Usage: pnpm db:codegen            (writes the file)
//        pnpm db:codegen --verify   (fails when the committed file is stale)
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { migrateToLatest } from '../src/db/migrate.js'
import { DEFAULT_SCHEMA } from '../src/db/schema.js'

const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const dbName = `cal_codegen_${process.pid}`
const admin = new pg.Client({ connectionString: adminUrl })
await admin.connect()
await admin.query(`create database ${dbName}`)
const url = new URL(adminUrl)
url.pathname = `/${dbName}`
try {
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.href }) }) })
  await migrateToLatest(db)
  await db.destroy()
  const outFile = fileURLToPath(new URL('../src/db/generated.ts', import.meta.url))
  execFileSync(
    'kysely-codegen',
    [
      '--dialect', 'postgres',
      '--url', url.href,
      '--out-file', outFile,
      '--default-schema', DEFAULT_SCHEMA,
      '--exclude-pattern', 'cal_migration*',
      // Matches src/db/pg-types.ts: timestamps arrive as text, int8 as numbers.
      '--type-mapping', JSON.stringify({ timestamp: 'string', timestamptz: 'string', int8: 'number' }),
      ...process.argv.slice(2),
    ],
    { stdio: 'inherit' },
  )
} finally {
  await admin.query(`drop database if exists ${dbName} with (force)`)
  await admin.end()
}
