import ICAL from 'ical.js'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { freshCalendar, workerDatabaseUrl } from '../../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'

// Feeds bounded (issue 28 items 4 and 5): a bound on uncached feed builds, one shared answer per
// change-log point and query, identical ETags for identical data and a per-feed event cap (the
// event loop's delay in /healthz is the Express ops router's: packages/http-express/test/healthz.http.test.ts).

const NOW = new Date('2026-03-01T12:00:00Z')

const summaries = (text: string) =>
  new ICAL.Component(ICAL.parse(text)).getAllSubcomponents('vevent').map((v) => String(v.getFirstPropertyValue('summary')))

async function get(server: TestServer, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.base}${path}`, { headers })
  return { status: res.status, headers: res.headers, text: await res.text() }
}

/** Runs `statement` in a session of its own (closed after). */
async function session<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: await workerDatabaseUrl() })
  await client.connect()
  try {
    return await run(client)
  } finally {
    await client.end()
  }
}

/** Resolves with `promise`'s value, or with 'pending' when it has not settled within `ms`. */
const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))])

describe('feed builds bounded, answers shared', () => {
  let calendar: Calendar
  let server: TestServer
  let reads = 0

  beforeAll(async () => {
    calendar = await freshCalendar({
      now: () => NOW,
      publicBaseUrl: 'https://cal.example.org',
      feeds: { concurrency: 2, queue: 1, queueWaitMs: 400, maxEvents: 3 },
      onQuery: () => void reads++,
    })
    server = await startServer(calendar)
    for (let day = 1; day <= 5; day++) {
      await calendar.events.create({ title: `Concert ${day}`, status: 'publish', start_date: `2026-04-0${day} 10:00:00`, end_date: `2026-04-0${day} 11:00:00` })
    }
  })
  afterAll(async () => {
    await server.close()
    await calendar.close()
  })

  it('answers builds beyond the bound and its queue with 503 and Retry-After in the error shape; the others complete', async () => {
    await session(async (locker) => {
      // Every build waits for the events table while this transaction holds it: the builds are
      // in flight for as long as the test wants.
      await locker.query('begin')
      await locker.query('lock table events in access exclusive mode')
      const waiting = ['/events/ical?search=concert', '/events/ical?search=Concert%201'].map((path) => get(server, path))
      // Both builds wait on the lock before the next request is sent.
      for (let i = 0; i < 100; i++) {
        const { rows } = await locker.query<{ n: number }>(
          // This database's locks only: other test files lock their own `events` side by side.
          "select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation where c.relname = 'events' and not l.granted and l.database = (select oid from pg_database where datname = current_database())",
        )
        if (rows[0]!.n >= 2) break
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      // The third waits in the queue, then gives up; a fourth finds the queue full.
      const started = Date.now()
      const queued = get(server, '/events/ical?search=Concert%202')
      await new Promise((resolve) => setTimeout(resolve, 100))
      const refused = await within(get(server, '/events/ical?search=Concert%203'), 3000)
      const late = await within(queued, 3000)
      const waited = Date.now() - started
      await locker.query('rollback')
      for (const res of [refused, late]) {
        expect(res).not.toBe('pending')
        if (res === 'pending') return
        expect(res.status).toBe(503)
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
        const body = JSON.parse(res.text)
        expect(body.code).toBe('rest_feed_busy')
        expect(body.data.status).toBe(503)
        expect(typeof body.message).toBe('string')
      }
      expect(waited).toBeGreaterThanOrEqual(350)
      const done = await Promise.all(waiting)
      expect(done.map((r) => r.status)).toEqual([200, 200])
      expect(summaries(done[0]!.text)).toEqual(['Concert 1', 'Concert 2', 'Concert 3'])
    })
    // Slots are free again.
    expect((await get(server, '/events/ical?search=Concert%204')).status).toBe(200)
  })

  it('gives identical fetches the same ETag and builds the second from the shared answer; a write changes both', async () => {
    const first = await get(server, '/events/ical')
    expect(first.status).toBe(200)
    // Transaction ids move on elsewhere (another table, as any host's writes would): no calendar change.
    await session((client) => client.query('select pg_current_xact_id()'))
    const before = reads
    const second = await get(server, '/events/ical')
    const statements = reads - before
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'))
    expect(second.text).toBe(first.text)
    // At most the shared change check: the feed is not read again.
    expect(statements).toBeLessThanOrEqual(1)
    // The tag shows no transaction id or snapshot.
    expect(first.headers.get('etag')).not.toMatch(/\d+:\d+:/)
    expect((await get(server, '/events/ical', { 'if-none-match': first.headers.get('etag')! })).status).toBe(304)

    await calendar.events.create({ title: 'Concert 0', status: 'publish', start_date: '2026-03-30 10:00:00', end_date: '2026-03-30 11:00:00' })
    const third = await get(server, '/events/ical', { 'if-none-match': first.headers.get('etag')! })
    expect(third.status).toBe(200)
    expect(third.headers.get('etag')).not.toBe(first.headers.get('etag'))
    expect(summaries(third.text)).toEqual(['Concert 0', 'Concert 1', 'Concert 2'])
  })

  it('caps a feed at the configured number of events, the first ones in list order', async () => {
    const feed = await get(server, '/events/ical?start_date=2026-04-01')
    expect(summaries(feed.text)).toEqual(['Concert 1', 'Concert 2', 'Concert 3'])
    expect(calendar.options.feeds.maxEvents).toBe(3)
  })
})
