import type { TestProject } from 'vitest/node'
import pg from 'pg'

import './vitest-context.js'

/** The PostgreSQL server tests use: `DATABASE_URL`, else the machine's local server. */
export const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

// One id per `vitest run`: every database this run creates carries it, so runs can go side
// by side and the teardown drops exactly its own.
export default function setup(project: TestProject) {
  const runId = `${process.pid.toString(36)}${Date.now().toString(36)}`
  project.provide('calRunId', runId)
  return async () => {
    const client = new pg.Client({ connectionString: ADMIN_URL })
    try {
      await client.connect()
      const { rows } = await client.query<{ datname: string }>(
        `select datname from pg_database where datname like $1`,
        [`cal_t_${runId}_%`],
      )
      for (const { datname } of rows) await client.query(`drop database if exists "${datname}" with (force)`)
    } catch {
      // No server: the PGlite-only runs have nothing to drop.
    } finally {
      await client.end().catch(() => {})
    }
  }
}
