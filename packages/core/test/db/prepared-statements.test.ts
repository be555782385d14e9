import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { createCalendar, type Calendar } from '@cal-events/core'
import { PLAN_EACH_TIME, preparingPool, SCHEMA_QUALIFIED } from '../../src/db/prepared-statements.js'
import { BACKEND, freshCalendar, workerDatabaseUrl } from '../../../../test-support/test-db.js'

// Named prepared statements are a pg-pool feature; PGlite runs statements unnamed.
describe.skipIf(BACKEND !== 'postgres')('prepared statements (postgres)', () => {
  let raw: pg.Pool
  let calendar: Calendar

  beforeAll(async () => {
    calendar = await freshCalendar()
    // One connection, so the statements it prepared are visible to the session that checks them.
    raw = new pg.Pool({ connectionString: await workerDatabaseUrl(), max: 1 })
  })
  afterAll(async () => {
    await raw.end()
    await calendar.close()
  })

  async function withClient<T>(use: (query: (text: string, values?: unknown[]) => Promise<pg.QueryResult>) => Promise<T>) {
    const pool = preparingPool(raw)
    const client = await pool.connect()
    try {
      return await use((text, values = []) => client.query(text, values) as Promise<pg.QueryResult>)
    } finally {
      client.release()
    }
  }

  const prepared = (query: (text: string) => Promise<pg.QueryResult>) =>
    query('select name, statement, (generic_plans + custom_plans)::int as runs from pg_prepared_statements').then((r) => r.rows)

  it('names a statement once it has run three times, and PostgreSQL keeps it for the connection', async () => {
    await withClient(async (query) => {
      const text = 'select count(*)::int as n from events where id > $1 and status = $2'
      await query(text, [0, 'publish'])
      await query(text, [0, 'publish'])
      expect((await prepared(query)).filter((r) => r.statement === text)).toEqual([])
      for (let i = 0; i < 5; i++) expect((await query(text, [i, 'publish'])).rows).toEqual([{ n: 0 }])
      const [row] = (await prepared(query)).filter((r) => r.statement === text)
      expect(row).toMatchObject({ name: expect.stringMatching(/^cal_[\w-]{24}$/), runs: 5 })
    })
  })

  it("leaves plan choice to PostgreSQL's plan cache, and refuses a pattern given as a parameter", async () => {
    await withClient(async (query) => {
      // Forced generic plans sorted a whole default window for a deep page (bench --sweep).
      expect((await query('show plan_cache_mode')).rows).toEqual([{ plan_cache_mode: 'auto' }])
      expect(() => query(`select id from events where title ilike $1`, ['%jazz%'])).toThrow(/must be a literal/)
      expect(() => query(`select id from events where slug like $1 or id = $2`, ['a-%', 1])).toThrow(/must be a literal/)
      // Inside a literal, the same words are just text.
      expect((await query(`select id from events where title ilike E'%like $1%' and id > $1`, [0])).rows).toEqual([])
      // As a literal it runs, and once hot it is named like any other statement.
      const text = `select id from events where title ilike E'%jazz%'`
      for (let i = 0; i < 4; i++) expect((await query(text)).rows).toEqual([])
      expect((await prepared(query)).filter((r) => r.statement === text)).toHaveLength(1)
    })
  })

  it('names at most 100 statements per pool, then runs the rest unnamed', async () => {
    await withClient(async (query) => {
      for (let k = 0; k < 120; k++) {
        for (let i = 0; i < 3; i++) await query(`select ${k} as k, $1::int as v`, [i])
      }
      const names = (await prepared(query)).filter((r) => /as k, \$1::int as v$/.test(r.statement))
      expect(names.length).toBe(100)
      // Still correct beyond the cap.
      expect((await query('select 119 as k, $1::int as v', [7])).rows).toEqual([{ k: 119, v: 7 }])
    })
  })

  // Issue 32: behind a pooler the change check names its calendar's schema, one text per schema; a
  // calendar set's calendars share one namer, and their checks must not take the list's names.
  it('names at most 16 schema-qualified texts, apart from the 100 others', async () => {
    await withClient(async (query) => {
      for (let k = 0; k < 30; k++) {
        for (let i = 0; i < 3; i++) await query(`select ${k} as q, $1::int as v ${SCHEMA_QUALIFIED}`, [i])
      }
      for (let k = 0; k < 100; k++) {
        for (let i = 0; i < 3; i++) await query(`select ${k} as shared, $1::int as v`, [i])
      }
      const statements = (await prepared(query)).map((r) => r.statement as string)
      expect(statements.filter((text) => /as q, \$1::int as v \/\* schema-qualified \*\/$/.test(text))).toHaveLength(16)
      expect(statements.filter((text) => /as shared, \$1::int as v$/.test(text))).toHaveLength(100)
      // Unnamed past the cap, still answered.
      expect((await query(`select 29 as q, $1::int as v ${SCHEMA_QUALIFIED}`, [7])).rows).toEqual([{ q: 29, v: 7 }])
    })
  })

  it('never names a statement PostgreSQL does not plan (DDL, DO blocks, transaction control)', async () => {
    await withClient(async (query) => {
      await query('begin')
      const texts = ['create temporary table if not exists h_named (id int)', 'truncate h_named', 'savepoint s', 'release savepoint s', `do $$ begin perform 1; end $$`]
      for (let i = 0; i < 4; i++) for (const text of texts) await query(text)
      await query('rollback')
      expect((await prepared(query)).filter((r) => texts.includes(r.statement))).toEqual([])
    })
  })

  /** The list five times on `cal`, with the statement name each list statement went out under. */
  async function listFiveTimes(cal: Calendar, query: Record<string, unknown> = { start_date: '2027-05-01' }) {
    const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }
    const original = proto.query
    const names: (string | undefined)[] = []
    proto.query = function (this: unknown, ...args: unknown[]) {
      const config = args[0] as { name?: string; text?: string } | string
      const text = typeof config === 'string' ? config : config?.text
      if (text?.includes('pg_current_snapshot')) names.push(typeof config === 'string' ? undefined : config.name)
      return original.apply(this, args)
    }
    const pages: unknown[] = []
    try {
      for (let i = 0; i < 5; i++) pages.push(await cal.events.list(query, { as: null }))
    } finally {
      proto.query = original
    }
    return { names, pages }
  }

  it('the calendar runs its hot list statement prepared and gets the same page as unprepared', async () => {
    await calendar.events.create({ title: 'Prepared', start_date: '2027-06-01 10:00:00', end_date: '2027-06-01 11:00:00' })
    const { names, pages } = await listFiveTimes(calendar)
    expect(names).toHaveLength(5)
    expect(names.slice(0, 2)).toEqual([undefined, undefined])
    expect(names.slice(2).every((n) => n !== undefined && /^cal_[\w-]{24}$/.test(n))).toBe(true)
    for (const page of pages) expect(page).toEqual(pages[0])
    expect((pages[0] as { events: { title: string }[] }).events.map((e) => e.title)).toEqual(['Prepared'])
  })

  it('plans a search within a category for its own values every time, and a plain search once', async () => {
    await calendar.events.create({ title: 'Jazz Night', start_date: '2027-04-02 20:00:00', end_date: '2027-04-02 23:00:00', categories: ['Music'] })
    const within = await listFiveTimes(calendar, { search: 'jazz', categories: 'music' })
    expect(within.names).toEqual([undefined, undefined, undefined, undefined, undefined])
    expect((within.pages[4] as { events: { title: string }[] }).events.map((e) => e.title)).toEqual(['Jazz Night'])
    const plain = await listFiveTimes(calendar, { search: 'jazz' })
    expect(plain.names.slice(2).every((n) => n !== undefined)).toBe(true)
    await withClient(async (query) => {
      for (let i = 0; i < 5; i++) expect((await query(`select $1::int as v ${PLAN_EACH_TIME}`, [i])).rows).toEqual([{ v: i }])
      expect((await prepared(query)).filter((r) => r.statement.includes(PLAN_EACH_TIME))).toEqual([])
    })
  })

  it('with preparedStatements: false every statement goes out unnamed', async () => {
    const unprepared = await createCalendar({ database: { url: await workerDatabaseUrl(), poolSize: 1, preparedStatements: false }, migrate: false })
    try {
      const { names, pages } = await listFiveTimes(unprepared)
      expect(names).toEqual([undefined, undefined, undefined, undefined, undefined])
      expect((pages[4] as { events: { title: string }[] }).events.map((e) => e.title)).toEqual(['Prepared'])
    } finally {
      await unprepared.close()
    }
  })
})
