import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { createCalendar, createCalendars, type Calendar } from '@cal-events/core'
import { BACKEND } from '../../../../test-support/test-db.js'
import { scratchDatabase } from '../../../../test-support/scratch-db.js'
import { startPgBouncer, type PgBouncer } from '../../../../test-support/pgbouncer.js'
import { sql } from 'kysely'
import { openDatabase } from '../../src/db/create-db.js'

// Issue 32 item 1: behind Debian's PgBouncer in transaction pooling mode. With one server
// connection per database, a raw session through PgBouncer gets the very connection the calendar's
// transactions ran on, so whatever they left in the session (search path, timeout, named prepared
// statements, session advisory locks) shows.
describe.skipIf(BACKEND !== 'postgres')('behind PgBouncer in transaction mode (postgres)', () => {
  const scratch = scratchDatabase(`pooler${process.env.VITEST_POOL_ID ?? 0}`)
  let bouncer: PgBouncer
  let calendar: Calendar
  let url: string

  beforeAll(async () => {
    await scratch.create()
    bouncer = await startPgBouncer({ poolSize: 1 })
    url = bouncer.through(scratch.url)
    calendar = await createCalendar({ database: { url, pooler: 'transaction', poolSize: 3, statementTimeoutMs: 7000 } })
  })
  afterAll(async () => {
    await calendar?.close()
    await bouncer?.stop()
    await scratch.drop()
  })

  async function rawSession<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return await use(client)
    } finally {
      await client.end()
    }
  }

  it('without pooler: transaction the pooler refuses the connection (why the option exists)', async () => {
    await expect(createCalendar({ database: { url, poolSize: 1 }, migrate: false })).rejects.toThrow(/unsupported startup parameter: statement_timeout/)
  })

  it('migrates, writes and reads through the pooler, leaving nothing in the server session', async () => {
    const { token } = await calendar.tokens.create({ role: 'administrator', login: 'admin' })
    expect(token).toBeTruthy()
    // Creates take transaction-scoped advisory locks (slugs, terms).
    for (let i = 0; i < 8; i++) {
      await calendar.events.create({ title: `Pooled ${i}`, start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 11:00:00', categories: ['Talks'] })
    }
    // Hot statements run many times: on a direct URL they would be named after three runs.
    for (let i = 0; i < 6; i++) expect((await calendar.events.list({ per_page: 5 }, { as: null })).events).toHaveLength(5)
    const session = await rawSession(async (client) => {
      const settings = await client.query(`select current_setting('search_path') as search_path, current_setting('statement_timeout') as statement_timeout`)
      const prepared = await client.query('select count(*)::int as n from pg_prepared_statements')
      // This session's server connection only (pg_locks shows every session of the server).
      const locks = await client.query(`select count(*)::int as n from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()`)
      return { ...settings.rows[0], prepared: prepared.rows[0].n, locks: locks.rows[0].n }
    })
    expect(session).toEqual({ search_path: '"$user", public', statement_timeout: '0', prepared: 0, locks: 0 })
  })
  // Named statements kept by PgBouncer (1.21 or later, max_prepared_statements): a named statement is
  // pipelined with its BEGIN, settings and COMMIT, so it must still run under the calendar's
  // search path and timeout, in its transaction, on whichever server connection PgBouncer picks.
  it('preparedStatements: true: hot statements are named, kept by PgBouncer, and run under the calendar\'s settings', async () => {
    const handle = await openDatabase({ url, pooler: 'transaction', preparedStatements: true, poolSize: 2, statementTimeoutMs: 700 }, undefined, 'cal_events')
    try {
      // SET LOCAL takes effect in a transaction only: the settings show that BEGIN came first.
      // Longer than host-pool.ts's ONE_MESSAGE_MAX (400), as a list is: a shorter one is sent unnamed, in one message.
      const long = sql.raw(`/* ${'long '.repeat(80)}*/`)
      const settings = sql<{ path: string; timeout: string; events: number }>`select current_setting('search_path') as path,
        current_setting('statement_timeout') as timeout, (select count(*)::int from events) as events ${long}`
      for (let i = 0; i < 5; i++) expect((await settings.execute(handle.db)).rows).toMatchObject([{ path: 'cal_events', timeout: '700ms' }])
      // The timeout bounds a named statement too (each run of the same text, named from the third).
      for (let i = 0; i < 4; i++) await expect(sql`select pg_sleep(2) ${long}`.execute(handle.db)).rejects.toThrow(/statement timeout/)
      const list = await calendar.events.list({ per_page: 5 }, { as: null })
      expect(list.events).toHaveLength(5)
    } finally {
      await handle.close()
    }
    const session = await rawSession(async (client) => {
      const settings = await client.query(`select current_setting('search_path') as search_path, current_setting('statement_timeout') as statement_timeout`)
      const prepared = await client.query(`select count(*)::int as n from pg_prepared_statements where statement like '%as path,%'`)
      return { ...settings.rows[0], prepared: prepared.rows[0].n }
    })
    // PgBouncer's one server connection holds the statement (under its own name) and nothing else of ours.
    expect(session).toEqual({ search_path: '"$user", public', statement_timeout: '0', prepared: 1 })
  })

  it.each([false, true])('a calendar set behind the pooler (preparedStatements: %s): two calendars keep apart, nothing left in the server session', async (prepared) => {
    const set = await createCalendars({ database: { url, pooler: 'transaction', poolSize: 2, preparedStatements: prepared }, registrySchema: 'cal_pooled_registry' })
    try {
      const one = await set.create(`pooled-one-${prepared}`)
      const two = await set.create(`pooled-two-${prepared}`)
      for (const [calendar, title] of [[one, 'In one'], [two, 'In two']] as const) {
        await calendar.events.create({ title, start_date: '2026-12-02 10:00:00', end_date: '2026-12-02 11:00:00' })
      }
      // Each calendar's reads, many times over (a direct URL would name them), see its own event only.
      for (let i = 0; i < 4; i++) {
        expect((await one.events.list({}, { as: null })).events.map((e) => e.title)).toEqual(['In one'])
        expect((await two.events.list({}, { as: null })).events.map((e) => e.title)).toEqual(['In two'])
      }
    } finally {
      await set.close()
    }
    const session = await rawSession(async (client) => {
      const settings = await client.query(`select current_setting('search_path') as search_path`)
      return settings.rows[0]
    })
    expect(session).toEqual({ search_path: '"$user", public' })
  })
})
