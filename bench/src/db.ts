import { mkdirSync, rmSync } from 'node:fs'
import pg from 'pg'
import type { PGlite } from '@electric-sql/pglite'

/** One SQL session the seeder talks through: a pg client, or the PGlite instance. */
export interface SqlSession {
  /** Runs one or more statements (no parameters). */
  exec(sql: string): Promise<void>
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>
  close(): Promise<void>
}

/** The URL of database `name` on the server of `adminUrl`. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.href
}

/** Drops and creates `name` on the server; returns its URL. */
export async function freshDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(`drop database if exists "${name}" with (force)`)
    await admin.query(`create database "${name}"`)
  } finally {
    await admin.end()
  }
  return databaseUrl(adminUrl, name)
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(`drop database if exists "${name}" with (force)`)
  } finally {
    await admin.end()
  }
}

/** Startup option that puts a raw session in the calendar's schema, where its tables are. */
export const CALENDAR_SCHEMA_OPTION = '-c search_path=cal_events'

/** A session on PostgreSQL. */
export async function pgSession(url: string): Promise<SqlSession> {
  const client = new pg.Client({ connectionString: url, options: CALENDAR_SCHEMA_OPTION })
  await client.connect()
  return {
    async exec(sql) {
      await client.query(sql)
    },
    async query<R>(sql: string, params?: unknown[]) {
      return (await client.query(sql, params)).rows as R[]
    },
    close: () => client.end(),
  }
}

/** A PGlite instance with pg_trgm on `dataDir` (recreated empty). */
export async function openPglite(dataDir: string): Promise<PGlite> {
  const [{ PGlite }, { pg_trgm }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite/contrib/pg_trgm')])
  rmSync(dataDir, { recursive: true, force: true })
  mkdirSync(dataDir, { recursive: true })
  return PGlite.create({ dataDir, extensions: { pg_trgm } })
}

/**
 * A session on a PGlite instance (which serialises everything: one session is all it takes). The
 * calendar that migrated it left the session's search_path in its schema.
 */
export function pgliteSession(pglite: PGlite): SqlSession {
  return {
    async exec(sql) {
      await pglite.exec(sql)
    },
    async query<R>(sql: string, params?: unknown[]) {
      return (await pglite.query<R>(sql, params)).rows
    },
    close: async () => {},
  }
}
