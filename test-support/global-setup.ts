import type { TestProject } from 'vitest/node'
import pg from 'pg'

import './vitest-context.js'
import { startPgBouncer, type PgBouncer } from './pgbouncer.js'

/** The PostgreSQL server tests use: `DATABASE_URL`, else the machine's local server. */
export const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

// One id per `vitest run`: every database this run creates carries it, so runs can go side
// by side and the teardown drops exactly its own. A project with CAL_TEST_POOLER=pgbouncer gets a
// private PgBouncer in front of that server, which its calendars connect through (test-db.ts).
export default async function setup(project: TestProject) {
  const runId = `${process.pid.toString(36)}${Date.now().toString(36)}`
  project.provide('calRunId', runId)
  let bouncer: PgBouncer | undefined
  if (project.config.env?.CAL_TEST_POOLER === 'pgbouncer') {
    const server = new URL(ADMIN_URL)
    bouncer = await startPgBouncer({ serverHost: server.hostname, serverPort: Number(server.port || 5432) })
  }
  project.provide('calPgBouncerPort', bouncer?.port ?? 0)
  return async () => {
    await bouncer?.stop()
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
