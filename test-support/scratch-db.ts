import { inject } from 'vitest'
import pg from 'pg'
import './vitest-context.js'
import { ADMIN_URL } from './global-setup.js'

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

/**
 * A named PostgreSQL database of this run, for tests that start a whole server or process on
 * their own database. The name carries the run id, so the global teardown drops it as well.
 */
export function scratchDatabase(suffix: string) {
  const name = `cal_t_${inject('calRunId')}_${suffix}`
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  const drop = () => admin(`drop database if exists "${name}" with (force)`)
  return {
    name,
    url: url.href,
    /** Creates it empty (dropping a leftover of the same name first). */
    async create() {
      await drop()
      await admin(`create database "${name}"`)
    },
    drop,
  }
}
