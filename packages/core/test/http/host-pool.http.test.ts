import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { createCalendar, type Calendar, type EventList, type EventResource } from '@cal-events/core'
import { scratchDatabase } from '../../../../test-support/scratch-db.js'
import { hostPool, settingsOfEveryConnection } from '../../../../test-support/host-pool.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'

// Issue 29 item 9 over HTTP: a calendar built on the host's own pg.Pool, mounted in the host's app.
// Requests (cached reads, conditional writes) leave the host's connections as the host set them,
// and a write in the host's transaction shows in the hot-read cache after a commit, never after a
// rollback.

const MAX = 2
const HOST_SETTINGS = { search_path: 'host_app, public', statement_timeout: '9s' }
const NOW = new Date('2026-11-21T00:00:00Z')
const event = (title: string) => ({ title, start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 12:00:00' })

describe('a calendar on the host pool, over HTTP', () => {
  const scratch = scratchDatabase(`hostpool${process.env.VITEST_POOL_ID ?? 0}`)
  let pool: pg.Pool
  let calendar: Calendar
  let server: TestServer
  let admin: string

  beforeAll(async () => {
    await scratch.create()
    pool = hostPool(scratch.url, MAX, HOST_SETTINGS)
    await pool.query('create schema host_app; create table host_app.orders (id serial primary key, event_id int not null)')
    calendar = await createCalendar({ database: { pool }, now: () => NOW, publicBaseUrl: 'http://cal.test' })
    server = await startServer(calendar, '/api')
    admin = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
  })
  afterAll(async () => {
    await server?.close()
    await calendar?.close()
    await pool?.end()
    await scratch.drop()
  })

  /** The titles of the anonymous list, read until the hot-read cache keeps it. */
  async function listed(): Promise<string[]> {
    const res = await server.request<EventList>('GET', '/events')
    expect(res.status).toBe(200)
    return res.body.events.map((e: { title: string }) => e.title)
  }

  it('serves and writes through the host pool, leaving its connections as they were', async () => {
    const created = await server.request<EventResource>('POST', '/events', { token: admin, body: event('Mounted') })
    expect(created.status).toBe(201)
    const path = `/events/${created.body.id}`
    // The tag as the writer sees the event (a tag names who reads it too).
    const read = await server.request('GET', path, { token: admin })
    expect(read.status).toBe(200)
    const updated = await server.request('PUT', path, { token: admin, headers: { 'if-match': read.headers.get('etag')! }, body: { title: 'Mounted, renamed' } })
    expect(updated.status).toBe(200)
    for (let i = 0; i < 3; i++) expect(await listed()).toEqual(['Mounted, renamed'])
    expect((await server.request('GET', '/venues')).status).toBe(200)
    expect(await settingsOfEveryConnection(pool, MAX, HOST_SETTINGS)).toEqual([HOST_SETTINGS, HOST_SETTINGS])
    expect(pool.totalCount).toBeLessThanOrEqual(MAX)
  })

  it('shows a write of the host transaction in the cached list after commit, never after rollback', async () => {
    for (let i = 0; i < 3; i++) await listed()
    const before = await listed()

    const client = await pool.connect()
    try {
      await client.query('begin')
      const made = await calendar.withTransaction(client, (cal) => cal.events.create(event('Rolled back over HTTP')))
      await client.query('insert into orders (event_id) values ($1)', [made.id])
      // The open transaction's write is nobody else's yet.
      expect(await listed()).toEqual(before)
      await client.query('rollback')
    } finally {
      client.release()
    }
    expect(await listed()).toEqual(before)

    const other = await pool.connect()
    try {
      await other.query('begin')
      const made = await calendar.withTransaction(other, (cal) => cal.events.create(event('Committed over HTTP')))
      await other.query('insert into orders (event_id) values ($1)', [made.id])
      await other.query('commit')
    } finally {
      other.release()
    }
    expect(await listed()).toEqual([...before, 'Committed over HTTP'])
    expect((await pool.query('select count(*)::int as n from orders')).rows[0].n).toBe(1)
    expect(await settingsOfEveryConnection(pool, MAX, HOST_SETTINGS)).toEqual([HOST_SETTINGS, HOST_SETTINGS])
  })
})
