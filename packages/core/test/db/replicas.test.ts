import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCalendar, type Calendar, type CalendarResponse } from '@cal-events/core'
import { parseLsn } from '../../src/db/replicas.js'
import { BACKEND } from '../../../../test-support/test-db.js'
import { startReplicatedPair, type ReplicatedPair } from '../../../../test-support/replication.js'

// Issue 32 item 2: anonymous reads on a streaming replica whose replay is held back by
// `recovery_min_apply_delay`, so that a read the replica served shows as stale data unless the
// caller's position (`Cal-Read-After`) sent it to the primary.
const DELAY_MS = 1500
const PATH = '/cal/events/v1'

describe.skipIf(BACKEND !== 'postgres')('read replicas (postgres)', () => {
  let pair: ReplicatedPair
  let calendar: Calendar
  let admin: string

  beforeAll(async () => {
    pair = await startReplicatedPair({ applyDelayMs: DELAY_MS })
    calendar = await createCalendar({ database: { url: pair.primary.url, replicas: [pair.replica.url], poolSize: 4 } })
    admin = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
    await pair.caughtUp()
  }, 120_000)
  afterAll(async () => {
    await calendar?.close()
    await pair?.destroy()
  })

  // A query string of its own per request: a repeated read would be answered by the hot-read cache.
  let n = 0
  const request = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<CalendarResponse> =>
    calendar.handle({
      method,
      path: `${PATH}${path}`,
      query: `n=${++n}`,
      headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
      origin: 'http://cal.test',
    })
  const create = (title: string) =>
    request('POST', '/events', { authorization: `Bearer ${admin}` }, { title, start_date: '2027-03-01 10:00:00', end_date: '2027-03-01 11:00:00' })
  const reads = async () => (await calendar.health()).reads!

  async function until(what: () => Promise<boolean>, timeoutMs: number): Promise<number> {
    const start = Date.now()
    while (!(await what())) {
      if (Date.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    return Date.now() - start
  }

  it('answers a write with its position, and a read that sends it back sees the write though the replica lags', async () => {
    const created = await create('Read after write')
    expect(created.status).toBe(201)
    const position = created.headers['Cal-Read-After']
    expect(position).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/)
    const id = (created.body as { id: number }).id
    const before = await reads()
    const read = await request('GET', `/events/${id}`, { 'cal-read-after': position! })
    expect(read.status).toBe(200)
    expect((await reads()).primaryReads).toBe(before.primaryReads + 1)
    // The same read without the position goes to the replica, which has not replayed the write yet:
    // what a caller that does not send its position may see (anonymous reads may be slightly behind).
    await until(async () => (await reads()).replicas[0]!.up, 5000)
    const stale = await request('GET', `/events/${id}`)
    expect(stale.status).toBe(404)
    expect((await reads()).replicaReads).toBeGreaterThan(before.replicaReads)
  })

  it('serves older data from the replica, and its answer carries a position at least that of the data', async () => {
    const created = await create('Older data')
    const id = (created.body as { id: number }).id
    await pair.caughtUp()
    const before = await reads()
    const read = await request('GET', `/events/${id}`)
    expect(read.status).toBe(200)
    expect((await reads()).replicaReads).toBe(before.replicaReads + 1)
    expect(parseLsn(read.headers['Cal-Read-After'])).toBeGreaterThanOrEqual(parseLsn(created.headers['Cal-Read-After'])!)
  })

  it('keeps sync walks on the primary', async () => {
    for (const [path, query] of [['/events/sync', ''], ['/events', 'sync=1']] as const) {
      const before = await reads()
      const res = await calendar.handle({ method: 'GET', path: `${PATH}${path}`, query, headers: {}, origin: 'http://cal.test' })
      expect(res.status).toBe(200)
      // Not routed at all: no replica read, and no position (a walk carries its own, the sync token).
      expect(await reads()).toMatchObject({ primaryReads: before.primaryReads, replicaReads: before.replicaReads })
      expect(res.headers['Cal-Read-After']).toBeUndefined()
    }
  })

  it('falls back to the primary while the replica is stopped (no 5xx) and uses it again once it is back', async () => {
    const created = await create('Through an outage')
    const id = (created.body as { id: number }).id
    await pair.caughtUp()
    await pair.replica.stop('fast')
    for (let i = 0; i < 20; i++) {
      const read = await request('GET', `/events/${id}`)
      expect(read.status).toBe(200)
    }
    expect((await reads()).replicas[0]!.up).toBe(false)
    await pair.replica.start()
    const before = (await reads()).replicaReads
    const tookMs = await until(async () => {
      expect((await request('GET', `/events/${id}`)).status).toBe(200)
      return (await reads()).replicaReads > before
    }, 10_000)
    expect(tookMs).toBeLessThan(10_000)
  })

  it('never keeps a replica answer older than the hot-read cache\'s point: once the replica caught up, the list shows the write', async () => {
    await pair.caughtUp()
    const list = () => calendar.handle({ method: 'GET', path: `${PATH}/events`, query: 'per_page=50', headers: {}, origin: 'http://cal.test' })
    const titles = (res: CalendarResponse) => (res.body as { events: { title: string }[] }).events.map((e) => e.title)
    await list()
    const created = await create('Kept coherent')
    expect(created.status).toBe(201)
    // Read at once, on the lagging replica: it may not show the write yet (allowed), but must not be
    // kept, so each of these reads is a read of the database, never of a kept stale answer.
    const before = (await reads()).replicaReads + (await reads()).primaryReads
    const early = [await list(), await list(), await list()]
    expect(early.every((res) => res.status === 200)).toBe(true)
    expect((await reads()).replicaReads + (await reads()).primaryReads - before).toBe(early.length)
    await pair.caughtUp()
    expect(titles(await list())).toContain('Kept coherent')
  })
})
