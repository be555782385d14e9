import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { createCalendar, type Calendar, type CalendarRequest, type CalendarResponse } from '@cal-events/core'
import { scratchDatabase } from '../../../../test-support/scratch-db.js'
import { hostPool, settingsOfEveryConnection, settingsSql } from '../../../../test-support/host-pool.js'
import { BACKEND } from '../../../../test-support/test-db.js'

// Issue 29 item 9: the host's own pg.Pool (`database: { pool }`) and script calls inside the
// host's transaction (`calendar.withTransaction`). The host's connections keep their session
// settings, the pool stays the host's (never closed, never exceeded), and a calendar write made in
// the host's transaction commits or rolls back with it: data, change log and Idempotency-Key.

const MAX = 3
/** What the host sets on each of its connections; the calendar must leave all of it as it was. */
const HOST_SETTINGS = { search_path: 'host_app, public', statement_timeout: '7s', application_name: 'host-app', TimeZone: 'Asia/Tokyo' }

const event = (title: string) => ({ title, start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 12:00:00' })
const NOW = new Date('2026-11-21T00:00:00Z')

describe.skipIf(BACKEND !== 'postgres')('host resources on PostgreSQL', () => {
  const scratch = scratchDatabase(`host${process.env.VITEST_POOL_ID ?? 0}`)
  let pool: pg.Pool
  let admin: pg.Client
  let calendar: Calendar
  /** Most backends seen on the database at once, besides the admin session and the test's blocker. */
  let peak = 0
  let watching: NodeJS.Timeout | undefined

  async function backends(): Promise<number> {
    const { rows } = await admin.query<{ n: number }>(
      "select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and application_name <> 'test-blocker'",
    )
    return rows[0]!.n
  }

  beforeAll(async () => {
    await scratch.create()
    admin = new pg.Client({ connectionString: scratch.url })
    await admin.connect()
    await admin.query('create schema host_app; create table host_app.orders (id serial primary key, event_id int not null, note text)')
    pool = hostPool(scratch.url, MAX, HOST_SETTINGS)
    watching = setInterval(() => {
      backends().then((n) => (peak = Math.max(peak, n)), () => {})
    }, 5)
    calendar = await createCalendar({ database: { pool }, now: () => NOW })
  })
  afterAll(async () => {
    clearInterval(watching)
    await calendar?.close()
    await pool?.end()
    await admin?.end()
    await scratch.drop()
  })

  it('works in its schema on the host pool and leaves every connection as the host set it', async () => {
    const created = await calendar.events.create(event('On the host pool'))
    await calendar.events.update(created.id, { title: 'Renamed on the host pool' })
    const lists = await Promise.all(Array.from({ length: 12 }, () => calendar.events.list({ search: 'renamed' })))
    for (const list of lists) expect(list.events.map((e) => e.id)).toEqual([created.id])
    await calendar.venues.create({ venue: 'Host Hall' })
    await calendar.tokens.create({ role: 'administrator', login: 'admin' })
    // In the host's database, through the host's pool.
    expect((await admin.query('select title from cal_events.events')).rows).toEqual([{ title: 'Renamed on the host pool' }])
    expect(await calendar.health()).toMatchObject({ ready: true })
    expect(await settingsOfEveryConnection(pool, MAX, HOST_SETTINGS)).toEqual(Array.from({ length: MAX }, () => HOST_SETTINGS))
    // The host's unqualified names still reach its own tables.
    expect((await pool.query('select count(*)::int as n from orders')).rows[0].n).toBe(0)
    expect(peak).toBeGreaterThan(0)
    expect(peak).toBeLessThanOrEqual(MAX)
    expect(pool.totalCount).toBeLessThanOrEqual(MAX)
  })

  /** The host's pool, telling `seen` the text of each message a client of it sends. */
  function watchedPool(seen: (text: string) => void) {
    return {
      async connect() {
        const client = await pool.connect()
        return new Proxy(client, {
          get(target, name) {
            if (name === 'query') {
              return (...args: Parameters<typeof client.query>) => {
                const config = args[0] as unknown as string | { text: string }
                seen(typeof config === 'string' ? config : config.text)
                return target.query(...args)
              }
            }
            const value = Reflect.get(target, name) as unknown
            return typeof value === 'function' ? value.bind(target) : value
          },
        })
      },
      get totalCount() { return pool.totalCount },
      get idleCount() { return pool.idleCount },
      get waitingCount() { return pool.waitingCount },
    }
  }

  it('sends a short statement in one message with its transaction and settings', async () => {
    let messages = 0
    const counted = await createCalendar({ database: { pool: watchedPool(() => messages++) }, migrate: false, now: () => NOW })
    try {
      await counted.tokens.hasAdmin()
      messages = 0
      await counted.tokens.hasAdmin()
      // A read's transaction may end after its answer: count once it has.
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(messages).toBe(1)
    } finally {
      await counted.close()
    }
    expect(await settingsOfEveryConnection(pool, MAX, HOST_SETTINGS)).toEqual(Array.from({ length: MAX }, () => HOST_SETTINGS))
  })

  // Issue 32: the hot-read cache's check is the whole cost of a kept answer. On a connection with
  // the host's search path (host_app first) it names the calendar's schema itself, so it is sent
  // alone: no BEGIN, settings and COMMIT around it (half its extra time behind PgBouncer).
  it("serves a kept answer after one statement naming the calendar's schema, outside a transaction, and sees a write", async () => {
    const texts: string[] = []
    const cached = await createCalendar({ database: { pool: watchedPool((text) => texts.push(text)) }, migrate: false, now: () => NOW })
    const request: CalendarRequest = { method: 'GET', path: '/cal/events/v1/events', query: 'per_page=100', headers: {}, origin: 'http://host.test' }
    const total = (response: CalendarResponse) => (response.body as { total: number }).total
    try {
      // Kept from its second request on; the third is served from the cache.
      for (let i = 0; i < 3; i++) expect((await cached.handle(request)).status).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 50))
      texts.length = 0
      const kept = await cached.handle(request)
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(kept.status).toBe(200)
      expect(texts).toHaveLength(1)
      expect(texts[0]).not.toMatch(/^\s*(begin|start)/i)
      expect(texts[0]).toContain('"cal_events".cal_changes')
      // Another process's write shows at once: the check read the calendar's log, not one the
      // host's search path leads to.
      await calendar.events.create(event('Seen by the kept list'))
      const after = await cached.handle(request)
      expect(after.status).toBe(200)
      expect(total(after)).toBe(total(kept) + 1)
    } finally {
      await cached.close()
    }
    expect(await settingsOfEveryConnection(pool, MAX, HOST_SETTINGS)).toEqual(Array.from({ length: MAX }, () => HOST_SETTINGS))
  })

  it("applies the calendar's statement timeout to its statements on the host's connections", async () => {
    const timed = await createCalendar({ database: { pool, statementTimeoutMs: 300 }, migrate: false, now: () => NOW })
    const blocker = new pg.Client({ connectionString: scratch.url, application_name: 'test-blocker' })
    await blocker.connect()
    try {
      await blocker.query('begin; lock table cal_events.events in access exclusive mode')
      const started = Date.now()
      await expect(timed.events.list()).rejects.toThrow(/statement timeout/)
      expect(Date.now() - started).toBeLessThan(5000)
    } finally {
      await blocker.query('rollback')
      await blocker.end()
      await timed.close()
    }
    expect(await settingsOfEveryConnection(pool, MAX, HOST_SETTINGS)).toEqual(Array.from({ length: MAX }, () => HOST_SETTINGS))
  })

  it('survives the server dropping a connection the calendar holds: the call fails, the broken connection is not handed back', async () => {
    const blocker = new pg.Client({ connectionString: scratch.url, application_name: 'test-blocker' })
    await blocker.connect()
    try {
      await blocker.query('begin; lock table cal_events.events in access exclusive mode')
      const waiting = calendar.events.list()
      waiting.catch(() => {})
      // The calendar's statement, waiting for the lock on a connection of the host's pool.
      let pid: number | undefined
      for (let i = 0; i < 200 && pid === undefined; i++) {
        const { rows } = await admin.query<{ pid: number }>(
          `select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and application_name = 'host-app'`,
        )
        pid = rows[0]?.pid
        if (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 10))
      }
      expect(pid).toBeDefined()
      await admin.query('select pg_terminate_backend($1)', [pid])
      await expect(waiting).rejects.toThrow(/terminat/i)
    } finally {
      await blocker.query('rollback')
      await blocker.end()
    }
    // Every connection the host gets now works and is as the host set it.
    expect(await settingsOfEveryConnection(pool, MAX, HOST_SETTINGS)).toEqual(Array.from({ length: MAX }, () => HOST_SETTINGS))
    expect((await calendar.events.list()).events.length).toBeGreaterThan(0)
  })

  it('commits a calendar write and a host row together', async () => {
    // Counted now, so the list's known total (events/known-total.ts) must be counted again after the commit.
    const before = await calendar.events.list()
    const client = await pool.connect()
    let id: number
    try {
      await client.query('begin')
      const created = await calendar.withTransaction(client, (cal) => cal.events.create(event('Committed together'), { idempotencyKey: 'commit-key' }))
      id = created.id
      // The host's own statements in the same transaction still see the host's search path.
      expect((await client.query(settingsSql(HOST_SETTINGS))).rows[0]).toEqual(HOST_SETTINGS)
      await client.query('insert into orders (event_id, note) values ($1, $2)', [id, 'paid'])
      // Not visible to anyone else before the commit.
      await expect(calendar.events.get(id)).rejects.toMatchObject({ code: 'EVENT_NOT_FOUND' })
      await client.query('commit')
    } finally {
      client.release()
    }
    expect((await calendar.events.get(id)).title).toBe('Committed together')
    const after = await calendar.events.list()
    expect(after.total).toBe(before.total + 1)
    expect(after.events.map((e) => e.id)).toContain(id)
    expect((await pool.query('select note from orders where event_id = $1', [id])).rows).toEqual([{ note: 'paid' }])
    // The key's answer was stored with the write: a retry replays it.
    const again = await calendar.events.create(event('Committed together'), { idempotencyKey: 'commit-key' })
    expect(again.id).toBe(id)
  })

  it('rolls a calendar write back with the host: no event, no host row, the Idempotency-Key free again', async () => {
    const before = await calendar.events.list()
    const client = await pool.connect()
    let id: number
    try {
      await client.query('begin')
      const created = await calendar.withTransaction(client, async (cal) => {
        const made = await cal.events.create(event('Rolled back'), { idempotencyKey: 'rollback-key' })
        // Inside the transaction the calendar reads its own write.
        expect((await cal.events.list()).events.map((e) => e.id)).toContain(made.id)
        // A window past the stored occurrence horizon computes its occurrences, here in the host's transaction.
        expect((await cal.events.list({ start_date: '2033-01-01', end_date: '2033-12-31' })).events).toEqual([])
        return made
      })
      id = created.id
      await client.query('insert into orders (event_id, note) values ($1, $2)', [id, 'unpaid'])
      await client.query('rollback')
    } finally {
      client.release()
    }
    await expect(calendar.events.get(id)).rejects.toMatchObject({ code: 'EVENT_NOT_FOUND' })
    expect((await pool.query('select count(*)::int as n from orders where event_id = $1', [id])).rows[0].n).toBe(0)
    const after = await calendar.events.list()
    expect(after.events.map((e) => e.id)).toEqual(before.events.map((e) => e.id))
    expect(after.total).toBe(before.total)
    expect((await admin.query("select count(*)::int as n from cal_events.event_occurrences where start_utc >= '2033-01-01'")).rows[0].n).toBe(0)
    expect((await calendar.events.list({ start_date: '2033-01-01', end_date: '2033-12-31' })).events).toEqual([])
    const retried = await calendar.events.create(event('Rolled back'), { idempotencyKey: 'rollback-key' })
    expect(retried.id).not.toBe(id)
    expect((await calendar.events.get(retried.id)).title).toBe('Rolled back')
  })

  it('keeps a deleted event after the host rolls the delete back, and shows an update once committed', async () => {
    const kept = await calendar.events.create(event('Kept after a rolled-back delete'))
    const before = await calendar.events.list()
    const client = await pool.connect()
    try {
      await client.query('begin')
      await calendar.withTransaction(client, (cal) => cal.events.delete(kept.id))
      await client.query('rollback')
      await client.query('begin')
      await calendar.withTransaction(client, (cal) => cal.events.update(kept.id, { title: 'Renamed in the host transaction' }))
      await client.query('commit')
    } finally {
      client.release()
    }
    const after = await calendar.events.list()
    expect(after.total).toBe(before.total)
    expect(after.events.find((e) => e.id === kept.id)?.title).toBe('Renamed in the host transaction')
  })

  it('builds feeds in the host transaction from what it sees, and never keeps them for others', async () => {
    const before = await calendar.events.feed()
    expect(before).not.toContain('Feed ghost')
    const client = await pool.connect()
    try {
      await client.query('begin')
      await calendar.withTransaction(client, async (cal) => {
        await cal.events.create(event('Feed ghost'))
        // The transaction's own write, not the feed kept from before it.
        expect(await cal.events.feed()).toContain('Feed ghost')
      })
      await client.query('rollback')
    } finally {
      client.release()
    }
    // Nothing of the rolled-back transaction is served from the kept feeds.
    expect(await calendar.events.feed()).not.toContain('Feed ghost')
  })

  it('leaves the host transaction usable after a calendar call fails in it', async () => {
    const client = await pool.connect()
    try {
      await client.query('begin')
      await calendar.withTransaction(client, async (cal) => {
        await expect(cal.events.update(999_999, { title: 'Nobody' })).rejects.toMatchObject({ code: 'EVENT_NOT_FOUND' })
        await expect(cal.events.create({ title: 'No dates' } as never)).rejects.toMatchObject({ code: 'MISSING_PARAM' })
      })
      await client.query('insert into orders (event_id, note) values (0, $1)', ['after a failed call'])
      await client.query('commit')
    } finally {
      client.release()
    }
    expect((await pool.query(`select count(*)::int as n from orders where note = 'after a failed call'`)).rows[0].n).toBe(1)
  })

  it('refuses a client outside a transaction, and a scoped calendar used after its callback', async () => {
    const client = await pool.connect()
    try {
      await expect(calendar.withTransaction(client, (cal) => cal.events.list())).rejects.toThrow(/transaction/)
      await client.query('begin')
      let kept: Parameters<Parameters<Calendar['withTransaction']>[1]>[0] | undefined
      await calendar.withTransaction(client, async (cal) => void (kept = cal))
      await expect(kept!.events.list()).rejects.toThrow(/withTransaction/)
      await client.query('rollback')
    } finally {
      client.release()
    }
  })

  it('refuses a database.pool that is not a pool, naming the option', async () => {
    await expect(createCalendar({ database: { pool: {} as never } })).rejects.toThrow(/database\.pool: expected a pg\.Pool/)
  })

  it('never closes the host pool', async () => {
    const other = await createCalendar({ database: { pool }, migrate: false })
    await other.events.list()
    await other.close()
    await calendar.close()
    expect(pool.ended).toBe(false)
    expect((await pool.query('select 1 as one')).rows).toEqual([{ one: 1 }])
    calendar = await createCalendar({ database: { pool }, migrate: false, now: () => NOW })
    expect(peak).toBeLessThanOrEqual(MAX)
  })
})
