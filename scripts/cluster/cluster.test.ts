import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { startCluster, type Cluster } from './cluster.js'

/** An event as these tests read it. */
type Ev = { id: number; title: string }

// Issue 32 item 3, over the whole cluster of `pnpm cluster`: HAProxy in front of 3 example servers
// (CAL_DB_POOLER=transaction through PgBouncer, anonymous reads on a streaming replica that replays
// 1 s late), a private primary. Clients keep the largest `Cal-Read-After` they were answered and
// send it with every read, as docs/production.md "Read replicas" asks.

const API = '/cal/events/v1'
const DELAY_MS = 1000

interface Client {
  position: string | undefined
  statuses: number[]
}

/** An LSN's text as a number, to keep the largest. */
const lsn = (text: string) => {
  const [high, low] = text.split('/')
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`)
}

describe('the cluster: HAProxy, 3 instances, PgBouncer, a primary and a lagging replica', () => {
  let cluster: Cluster

  beforeAll(async () => {
    cluster = await startCluster({ instances: 3, applyDelayMs: DELAY_MS })
  }, 240_000)
  afterAll(async () => {
    await cluster?.stop()
  })

  async function call<B = unknown>(client: Client, method: string, path: string, body?: unknown, base = cluster.url): Promise<{ status: number; body: B }> {
    const headers: Record<string, string> = {}
    if (body !== undefined) {
      headers['content-type'] = 'application/json'
      headers.authorization = `Bearer ${cluster.adminToken}`
    }
    if (client.position) headers['cal-read-after'] = client.position
    const res = await fetch(`${base}${API}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    client.statuses.push(res.status)
    const answered = res.headers.get('cal-read-after')
    if (answered && (!client.position || lsn(answered) > lsn(client.position))) client.position = answered
    const text = await res.text()
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as B }
  }
  const newClient = (): Client => ({ position: undefined, statuses: [] })
  const event = (title: string) => ({ title, start_date: '2027-05-01 10:00:00', end_date: '2027-05-01 11:00:00' })
  const readsOf = async (base: string) => ((await (await fetch(`${base}/readyz`)).json()) as { reads: { replicaReads: number; primaryReads: number; replicas: { up: boolean }[] } }).reads

  it('reads every write back through the balancer: 0 stale reads in 150 write-then-read pairs', async () => {
    let stale = 0
    const clients = Array.from({ length: 3 }, newClient)
    await Promise.all(
      clients.map(async (client, c) => {
        for (let i = 0; i < 50; i++) {
          const created = await call<Ev>(client, 'POST', '/events', event(`Pair ${c}-${i}`))
          expect(created.status).toBe(201)
          const read = await call<Ev>(client, 'GET', `/events/${created.body.id}`)
          if (read.status !== 200 || read.body.title !== `Pair ${c}-${i}`) stale++
        }
      }),
    )
    expect(stale).toBe(0)
    expect(clients.flatMap((c) => c.statuses).filter((s) => s >= 500)).toEqual([])
  })

  it('serves older data from the replica, and the instances\' hot-read caches agree after a write', async () => {
    const writer = newClient()
    // Every instance keeps the list (asked twice, so kept).
    const list = async (client: Client, base: string): Promise<string[]> =>
      (await call<{ events: Ev[] }>(client, 'GET', '/events?per_page=50', undefined, base)).body.events.map((e) => e.title)
    for (const i of cluster.instances) for (let n = 0; n < 2; n++) await list(newClient(), i.url)
    // Earlier than every other event: first in the list.
    const created = await call<Ev>(writer, 'POST', '/events', { ...event('Coherent one'), start_date: '2026-12-05 10:00:00', end_date: '2026-12-05 11:00:00' })
    expect(created.status).toBe(201)
    // A reader that was handed the writer's position, on each instance: the write shows everywhere.
    for (const i of cluster.instances) {
      const reader: Client = { position: writer.position, statuses: [] }
      expect(await list(reader, i.url)).toContain('Coherent one')
    }
    // Older data: once the replica replayed, an anonymous reader without a position is served by it.
    await new Promise((resolve) => setTimeout(resolve, DELAY_MS + 1000))
    const before = await Promise.all(cluster.instances.map((i) => readsOf(i.url)))
    for (let n = 0; n < 30; n++) expect((await call(newClient(), 'GET', `/events/${created.body.id}?n=${n}`)).status).toBe(200)
    const after = await Promise.all(cluster.instances.map((i) => readsOf(i.url)))
    const replicaReads = after.reduce((sum, r, i) => sum + r.replicaReads - before[i]!.replicaReads, 0)
    expect(replicaReads).toBeGreaterThanOrEqual(24)
  })

  it('keeps answering while the replica is stopped and started under load: no 5xx, back in use within 10 s', async () => {
    const seed = newClient()
    const { body } = await call<Ev>(seed, 'POST', '/events', event('Under load'))
    let running = true
    const statuses: number[] = []
    const load = Array.from({ length: 4 }, async (_, w) => {
      const client = newClient()
      for (let n = 0; running; n++) {
        if (w === 0 && n % 5 === 0) await call(client, 'POST', '/events', event(`Load ${n}`))
        await call(client, 'GET', `/events/${body.id}?w=${w}&n=${n}`)
        await call(newClient(), 'GET', `/events?per_page=5&w=${w}&n=${n}`)
        statuses.push(...client.statuses.splice(0))
      }
    })
    await new Promise((resolve) => setTimeout(resolve, 1000))
    await cluster.pair.replica.stop('fast')
    await new Promise((resolve) => setTimeout(resolve, 3000))
    const whileDown = await Promise.all(cluster.instances.map((i) => readsOf(i.url)))
    expect(whileDown.every((r) => r.replicas[0]!.up === false)).toBe(true)
    await cluster.pair.replica.start()
    const started = Date.now()
    const base = whileDown.map((r) => r.replicaReads)
    let backAfterMs: number | undefined
    while (Date.now() - started < 15_000) {
      const now = await Promise.all(cluster.instances.map((i) => readsOf(i.url)))
      if (now.every((r, i) => r.replicaReads > base[i]!)) {
        backAfterMs = Date.now() - started
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    running = false
    await Promise.all(load)
    expect(statuses.length).toBeGreaterThan(50)
    expect(statuses.filter((s) => s >= 500)).toEqual([])
    expect(backAfterMs).toBeDefined()
    expect(backAfterMs!).toBeLessThan(10_000)
  })

  it('loses no acknowledged write when an instance is killed', async () => {
    const acknowledged: number[] = []
    let running = true
    const writers = Array.from({ length: 3 }, async (_, w) => {
      const client = newClient()
      for (let n = 0; running; n++) {
        const res = await call<Ev>(client, 'POST', '/events', event(`Kill ${w}-${n}`)).catch(() => undefined)
        if (res?.status === 201) acknowledged.push(res.body.id)
      }
    })
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const victim = cluster.instances[1]!
    await victim.kill()
    await new Promise((resolve) => setTimeout(resolve, 2000))
    running = false
    await Promise.all(writers)
    await victim.start()
    expect(acknowledged.length).toBeGreaterThan(10)
    const db = new pg.Client({ connectionString: cluster.primaryDatabaseUrl })
    await db.connect()
    try {
      const { rows } = await db.query<{ id: number }>('select id from cal_events.events where id = any($1::int[])', [acknowledged])
      expect(rows.length).toBe(acknowledged.length)
    } finally {
      await db.end()
    }
  })
})
