import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import pg from 'pg'
import { createCalendars, type Calendar, type CalendarRequest, type Calendars, type CalendarsOptions } from '@cal-events/core'
import { scratchDatabase } from '../../../../test-support/scratch-db.js'
import { BACKEND } from '../../../../test-support/test-db.js'

// Many calendars on one pool (docs/multi-calendar.md): each piece of one calendar means nothing in
// another, every calendar runs on the set's one pool (or one PGlite session), and a named prepared
// statement is planned again for each calendar's schema.

const NS = '/cal/events/v1'
const ROLES_OF: Record<string, Record<string, 'editor' | 'subscriber'>> = { alice: { a: 'editor', b: 'subscriber' } }

let calendars: Calendars
let a: Calendar
let b: Calendar
let dropScratch = async () => {}
let scratchUrl = ''
let pglite: { close(): Promise<void> } | undefined

// A second set on the same database sees the same calendars (on PGlite: the same instance, used by one set at a time).
async function openSet(extra: Partial<CalendarsOptions> = {}): Promise<Calendars> {
  if (pglite) return createCalendars({ database: { pglite: pglite as never }, ...extra })
  return createCalendars({ database: { url: scratchUrl, poolSize: 2 }, ...extra })
}

beforeAll(async () => {
  if (BACKEND === 'postgres') {
    const scratch = scratchDatabase(`set${process.env.VITEST_POOL_ID ?? 0}`)
    await scratch.create()
    scratchUrl = scratch.url
    dropScratch = scratch.drop
  } else {
    const [{ PGlite }, { pg_trgm }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite/contrib/pg_trgm')])
    const instance = await PGlite.create({ extensions: { pg_trgm } })
    pglite = instance
    dropScratch = () => instance.close()
  }
  calendars = await openSet({
    // A user header stands for the host's session; the role depends on the calendar.
    authenticate: (request, calendar) => {
      const user = request.headers['x-user']
      if (typeof user !== 'string') return null
      const role = ROLES_OF[user]?.[calendar.key]
      return role ? { id: 7, role } : null
    },
  })
  a = await calendars.create('a')
  b = await calendars.create('b', { siteTimezone: 'Europe/Paris' })
})

afterAll(async () => {
  await calendars?.close()
  await dropScratch()
})

/** What these tests read of a body: a refusal's code, or a list page. */
type Body = { code?: string; next_sync_token?: string; events: { title: string }[] }

function request(calendar: Calendar, method: string, path: string, init: { query?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const req: CalendarRequest = {
    method,
    path: `${NS}${path}`,
    query: init.query ?? '',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : new TextEncoder().encode(JSON.stringify(init.body)),
    origin: 'http://cal.test',
  }
  return calendar.handle(req) as Promise<{ status: number; headers: Record<string, string>; body: Body }>
}

const EVENT = { title: 'Chess night', start_date: '2027-03-01 19:00:00', end_date: '2027-03-01 22:00:00', status: 'publish' as const }

describe('the set', () => {
  it('creates, gets, lists and deletes calendars, each with its own settings', async () => {
    expect(await calendars.get('a')).toBe(a)
    expect(await calendars.get('nope')).toBeUndefined()
    await expect(calendars.get('Not A Key')).rejects.toMatchObject({ code: 'INVALID_CALENDAR_KEY' })
    await expect(calendars.resolve('nope')).rejects.toMatchObject({ code: 'CALENDAR_NOT_FOUND' })
    await expect(calendars.create('a')).rejects.toThrow(/exists already/)
    expect(b.options.siteTimezone).toBe('Europe/Paris')
    expect(a.options.siteTimezone).toBe('UTC')
    const temp = await calendars.create('temp-1')
    await temp.events.create(EVENT)
    const keys = (await calendars.list()).map((c) => [c.key, c.schema])
    expect(keys).toEqual([['a', 'cal_c_a'], ['b', 'cal_c_b'], ['temp-1', 'cal_c_temp_1']])
    expect((await calendars.list()).find((c) => c.key === 'b')!.settings).toEqual({ siteTimezone: 'Europe/Paris' })
    expect(await calendars.delete('temp-1')).toBe(true)
    expect(await calendars.delete('temp-1')).toBe(false)
    expect(await calendars.get('temp-1')).toBeUndefined()
    // Created again under the same key: empty, nothing of the deleted one left.
    const again = await calendars.create('temp-1')
    expect((await again.events.list()).events).toEqual([])
    await calendars.delete('temp-1')
  })

  it('reopens a calendar it let go of, with its data and settings', async () => {
    const small = await openSet({ maxOpen: 1 })
    try {
      const first = await small.get('b')
      expect(small.openCount()).toBe(1)
      await small.get('a')
      expect(small.openCount()).toBe(1)
      const reopened = await small.get('b')
      expect(reopened).not.toBe(first)
      expect(reopened!.options.siteTimezone).toBe('Europe/Paris')
      // The evicted object still answers (a request running on it must finish).
      expect((await first!.events.list()).events).toBeDefined()
    } finally {
      await small.close()
    }
  })
})

describe('isolation', () => {
  it('slugs, ids, venues, organizers and terms of one calendar mean nothing in another', async () => {
    const inA = await a.events.create({ ...EVENT, slug: 'chess', venue: { venue: 'Hall A' }, organizer: { organizer: 'Club A' }, categories: ['Games'], tags: ['night'] })
    const inB = await b.events.create({ ...EVENT, title: 'Go night', slug: 'chess' })
    // Each calendar numbers its own records; the same slug is free in each.
    expect(inB.slug).toBe('chess')
    expect((await a.events.getBySlug('chess')).title).toBe('Chess night')
    expect((await b.events.getBySlug('chess')).title).toBe('Go night')
    expect((await b.venues.list()).venues).toEqual([])
    expect((await b.organizers.list()).organizers).toEqual([])
    expect((await b.categories.list()).categories).toEqual([])
    expect((await b.tags.list()).tags).toEqual([])
    const venueOfA = (await a.venues.list()).venues[0]!.id
    const r = await request(b, 'GET', `/venues/${venueOfA}`)
    // Either no such record or another calendar's own: never Hall A.
    expect(JSON.stringify(r.body)).not.toContain('Hall A')
    expect(JSON.stringify((await request(b, 'GET', '/events', { query: 'search=Chess' })).body)).not.toContain('Chess night')
    expect((await request(b, 'GET', '/events', { query: 'search=Chess' })).headers['X-Cal-Total']).toBe('0')
    expect((await request(a, 'GET', '/events', { query: 'search=Chess' })).headers['X-Cal-Total']).toBe('1')
    expect(inA.id).toBeGreaterThan(0)
  })

  it('a token of one calendar is a 401 on another', async () => {
    const { token } = await a.tokens.create({ role: 'editor', login: 'ed' })
    const auth = { authorization: `Bearer ${token}` }
    const set = await openSet()
    try {
      // Through the default authenticator (no hook): a set without one.
      const a2 = (await set.get('a'))!
      const b2 = (await set.get('b'))!
      expect((await request(a2, 'POST', '/events', { body: EVENT, headers: auth })).status).toBe(201)
      const onB = await request(b2, 'POST', '/events', { body: EVENT, headers: auth })
      expect(onB.status).toBe(401)
      expect(onB.body.code).toBe('rest_invalid_token')
    } finally {
      await set.close()
    }
  })

  it('one user holds different roles in different calendars through the authenticate hook', async () => {
    const alice = { 'x-user': 'alice' }
    expect((await request(a, 'POST', '/events', { body: EVENT, headers: alice })).status).toBe(201)
    const onB = await request(b, 'POST', '/events', { body: EVENT, headers: alice })
    expect(onB.status).toBe(403)
    expect(onB.body.code).toBe('rest_forbidden')
  })

  it('feed keys, sync tokens and idempotency keys are per calendar', async () => {
    await a.tokens.create({ role: 'subscriber', login: 'reader' })
    const { key } = await a.feedKeys.create({ login: 'reader' })
    expect((await request(a, 'GET', '/events/ical', { query: `key=${key}` })).status).toBe(200)
    expect((await request(b, 'GET', '/events/ical', { query: `key=${key}` })).status).toBe(401)

    const walk = await request(a, 'GET', '/events', { query: 'sync=1' })
    const token = walk.body.next_sync_token as string
    expect(typeof token).toBe('string')
    expect((await request(a, 'GET', '/events', { query: `sync_token=${encodeURIComponent(token)}` })).status).toBe(200)
    const foreign = await request(b, 'GET', '/events', { query: `sync_token=${encodeURIComponent(token)}` })
    expect(foreign.status).toBe(410)
    expect(foreign.body.code).toBe('rest_sync_token_invalid')

    const idem = { 'idempotency-key': 'same-key-1' }
    const one = await request(a, 'POST', '/events', { body: EVENT, headers: { ...idem, 'x-user': 'alice' } })
    // The same key with another body elsewhere is no reuse: a create of its own.
    const other = await a.events.create({ ...EVENT, title: 'Other' }, { idempotencyKey: 'same-key-1', as: { id: 7, role: 'editor' } }).catch((err) => err)
    expect(other).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' })
    expect(one.status).toBe(201)
    const inB = await b.events.create({ ...EVENT, title: 'Other' }, { idempotencyKey: 'same-key-1', as: { id: 7, role: 'editor' } })
    expect(inB.title).toBe('Other')
  })

  it('cached answers and change tracking of one calendar are untouched by another', async () => {
    const first = await request(a, 'GET', '/events', { query: 'per_page=50' })
    const tag = first.headers.ETag
    expect(tag).toBeTruthy()
    const ofB = await request(b, 'GET', '/events', { query: 'per_page=50' })
    expect(ofB.body.events.map((e: { title: string }) => e.title)).not.toContain('Chess night')
    // A kept answer of A is never one of B's, and a write in B leaves A's tag valid.
    const kept = await a.cachedAnswer({ method: 'GET', path: `${NS}/events`, query: 'per_page=50', headers: {}, origin: 'http://cal.test' })
    await b.events.create({ ...EVENT, title: 'Write in B' })
    const again = await request(a, 'GET', '/events', { query: 'per_page=50', headers: { 'if-none-match': tag! } })
    expect(again.status).toBe(304)
    const cachedB = await b.cachedAnswer({ method: 'GET', path: `${NS}/events`, query: 'per_page=50', headers: {}, origin: 'http://cal.test' })
    if (cachedB) expect(Buffer.from(cachedB.body!).toString()).toContain('Write in B')
    if (kept) expect(Buffer.from(kept.body!).toString()).not.toContain('Write in B')
  })

  it('occurrence windows: a series of one calendar has no occurrences in another', async () => {
    const series = await a.events.create({ ...EVENT, title: 'Weekly', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'] })
    const inA = await a.events.list({ search: 'Weekly', per_page: 50 })
    expect(inA.events.length).toBe(5)
    const inB = await b.events.list({ search: 'Weekly', per_page: 50 })
    expect(inB.events).toEqual([])
    const r = await request(b, 'GET', `/events/${series.id}/occurrences/20270308`)
    expect(JSON.stringify(r.body)).not.toContain('Weekly')
  })
})

describe('one pool', () => {
  it('named prepared statements answer for the calendar they run in', async () => {
    await a.categories.create({ name: 'Only in A' })
    await b.categories.create({ name: 'Only in B' })
    // Alternating on a pool of two: the same texts become named statements, run under both schemas.
    for (let i = 0; i < 8; i++) {
      const [ofA, ofB] = await Promise.all([a.categories.list({ search: 'Only', hide_empty: false }), b.categories.list({ search: 'Only', hide_empty: false })])
      expect(ofA.categories.map((c) => c.name)).toEqual(['Only in A'])
      expect(ofB.categories.map((c) => c.name)).toEqual(['Only in B'])
    }
  })

  it('never opens more connections than the pool size, however many calendars', async () => {
    const many = await Promise.all(['p1', 'p2', 'p3', 'p4', 'p5'].map((key) => calendars.create(key)))
    await Promise.all(many.flatMap((calendar, i) => Array.from({ length: 4 }, () => calendar.events.create({ ...EVENT, title: `E${i}` }))))
    const counts = await Promise.all(many.map(async (calendar) => (await calendar.events.list({ per_page: 50 })).events.length))
    expect(counts).toEqual([4, 4, 4, 4, 4])
    if (BACKEND === 'postgres') {
      expect(calendars.poolStats()!.total).toBeLessThanOrEqual(2)
      const admin = new pg.Client({ connectionString: scratchUrl })
      await admin.connect()
      const { rows } = await admin.query(`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`)
      await admin.end()
      expect(rows[0].n).toBeLessThanOrEqual(2)
    }
    for (const key of ['p1', 'p2', 'p3', 'p4', 'p5']) await calendars.delete(key)
  })
})

describe('the other databases of a set', () => {
  it('two calendars of one embedded database write at once without waiting on each other forever', async () => {
    if (BACKEND !== 'pglite') return
    const set = await createCalendars({ database: { memory: true } })
    try {
      const [x, y] = [await set.create('x'), await set.create('y')]
      await Promise.all([...Array.from({ length: 5 }, () => x.events.create(EVENT)), ...Array.from({ length: 3 }, () => y.events.create(EVENT))])
      expect([(await x.events.list()).total, (await y.events.list()).total]).toEqual([5, 3])
    } finally {
      await set.close()
    }
  })

  it('gives a connection of its own pool another search path only when a checkout is for another calendar', async () => {
    if (BACKEND !== 'postgres') return
    // One connection: every checkout is the same one, so each switch shows as one set_config.
    const set = await createCalendars({ database: { url: scratchUrl, poolSize: 1 } })
    const switches: string[] = []
    const query = pg.Client.prototype.query
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      if (typeof args[0] === 'string' && args[0].startsWith("select set_config('search_path'")) switches.push(String((args[1] as unknown[])[0]))
      // After a calendar's first switch, its path as PostgreSQL wrote it, in one simple-protocol SET.
      else if (typeof args[0] === 'string' && args[0].startsWith('set search_path = ')) switches.push(`${/^set search_path = ([^,\s]+)/.exec(args[0])![1]} (set)`)
      return (query as (...a: unknown[]) => unknown).apply(this, args) as never
    })
    try {
      const [a4, b4] = [(await set.get('a'))!, (await set.get('b'))!]
      switches.length = 0
      for (let i = 0; i < 3; i++) await a4.events.list()
      for (let i = 0; i < 2; i++) await b4.events.list()
      await a4.events.list()
      // Each calendar's first switch (when it opened) asked PostgreSQL for its path; these reuse it.
      expect(switches).toEqual(['cal_c_a (set)', 'cal_c_b (set)', 'cal_c_a (set)'])
      const ofB = await b4.events.list({ per_page: 50 })
      expect(switches).toEqual(['cal_c_a (set)', 'cal_c_b (set)', 'cal_c_a (set)', 'cal_c_b (set)'])
      expect(ofB.events.every((e) => e.title !== 'Chess night')).toBe(true)
    } finally {
      spy.mockRestore()
      await set.close()
    }
  })

  it('keeps its named statements for texts every calendar runs: a list is named however many calendars were migrated before it', async () => {
    if (BACKEND !== 'postgres') return
    // The names of a set are shared and capped (100): texts of one calendar (its schema in the text)
    // or DDL that took them left the list of every calendar parsed and planned on each request.
    const set = await createCalendars({ database: { url: scratchUrl, poolSize: 1 }, spareSchemas: 0 })
    const named = new Map<string, string>()
    const lists: (string | undefined)[] = []
    const query = pg.Client.prototype.query
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as { name?: string; text?: string } | string
      if (typeof config === 'object' && config?.name && config.text) named.set(config.name, config.text)
      const text = typeof config === 'string' ? config : config?.text
      // A list statement's own column (known-total.ts): the cache's change check and sync also read
      // the snapshot, and a check sent meanwhile had made 14 of 12 on a loaded run.
      if (text?.includes('pg_current_snapshot()::text as "snapshot"')) lists.push(typeof config === 'string' ? undefined : config.name)
      return (query as (...a: unknown[]) => unknown).apply(this, args) as never
    })
    try {
      // Every create runs every migration on the set's pool (no spares).
      const made = []
      for (const key of ['m1', 'm2', 'm3', 'm4', 'm5', 'm6']) made.push(await set.create(key))
      for (const calendar of made) await calendar.events.create(EVENT)
      lists.length = 0
      for (const calendar of [...made, ...made]) await calendar.events.list()
      expect(lists).toHaveLength(12)
      // Hot after three runs, then named in every calendar (each plans it under its own search path).
      expect(lists.slice(3).every((name) => name !== undefined)).toBe(true)
      const texts = [...named.values()]
      expect(texts.filter((text) => /cal_c_m\d/.test(text))).toEqual([])
      expect(texts.filter((text) => !/^\s*(select|with|insert|update|delete)\b/i.test(text))).toEqual([])
    } finally {
      spy.mockRestore()
      for (const key of ['m1', 'm2', 'm3', 'm4', 'm5', 'm6']) await set.delete(key)
      await set.close()
    }
  })

  it("runs every calendar on a host's pool, which it leaves open", async () => {
    if (BACKEND !== 'postgres') return
    const pool = new pg.Pool({ connectionString: scratchUrl, max: 2 })
    try {
      const set = await createCalendars({ database: { pool } })
      const [a3, b3] = [(await set.get('a'))!, (await set.get('b'))!]
      const [ofA, ofB] = await Promise.all([a3.events.getBySlug('chess'), b3.events.getBySlug('chess')])
      expect([ofA.title, ofB.title]).toEqual(['Chess night', 'Go night'])
      await set.close()
      // The host's session settings are untouched, and its pool still serves it.
      const { rows } = await pool.query('show search_path')
      expect(rows[0].search_path).toBe('"$user", public')
    } finally {
      await pool.end()
    }
  })
})
