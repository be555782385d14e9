import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCalendar, type Calendar, type CategoryList, type TagList } from '@cal-events/core'
import { freshCalendar, querySql, workerCalendarDatabase } from '../../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'
import { seededRandom } from '../../../../test-support/seeded-random.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const CLIENTS = 16
const OPS_PER_CLIENT = 12

/** `n` distinct items of `from` in a random order. */
function pick<T>(next: () => number, from: readonly T[], n: number): T[] {
  const copy = [...from]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    ;[copy[i], copy[j]] = [copy[j]!, copy[i]!]
  }
  return copy.slice(0, n)
}

// Issue 34: concurrent writers replacing an event's terms took the term count rows in different
// orders and deadlocked (`deadlock detected` answered 500). Sixteen clients over HTTP update
// (categories and tags replaced, in random orders, status flipped), create and trash events that
// share a few terms; none may get a 5xx and the counts must equal a recount afterwards.
describe('concurrent writes with overlapping terms over HTTP', () => {
  let calendar: Calendar
  let server: TestServer
  let token: string
  let categories: number[]
  let tags: number[]
  const events: number[] = []
  beforeAll(async () => {
    const fresh = await freshCalendar({ now: () => NOW })
    await fresh.close()
    // A pool as wide as the clients, so their transactions really run side by side.
    calendar = await createCalendar({ database: await workerCalendarDatabase(CLIENTS), migrate: false, now: () => NOW })
    server = await startServer(calendar)
    token = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
    categories = []
    tags = []
    for (let i = 0; i < 6; i++) categories.push((await calendar.categories.create({ name: `Shared ${i}` })).id)
    for (let i = 0; i < 6; i++) tags.push((await calendar.tags.create({ name: `shared-${i}` })).id)
    const next = seededRandom(7)
    for (let i = 0; i < 48; i++) {
      const event = await calendar.events.create({
        title: `Contended ${i}`,
        start_date: `2027-02-${String((i % 27) + 1).padStart(2, '0')} 10:00:00`,
        end_date: `2027-02-${String((i % 27) + 1).padStart(2, '0')} 11:00:00`,
        categories: pick(next, categories, 3),
        tags: pick(next, tags, 3),
      })
      events.push(event.id)
    }
  })
  afterAll(async () => {
    await server?.close().catch(() => {})
    await calendar?.close().catch(() => {})
  })

  it('answers no 5xx and leaves term counts equal to a recount', { timeout: 120_000 }, async () => {
    const deadlocks = async () =>
      (await querySql<{ n: number }>(`select deadlocks::int as n from pg_stat_database where datname = current_database()`))[0]!.n
    const deadlocksBefore = await deadlocks()
    const statuses: number[] = []
    const failures: unknown[] = []
    const client = async (n: number) => {
      const next = seededRandom(100 + n)
      for (let op = 0; op < OPS_PER_CLIENT; op++) {
        const roll = next()
        const day = String(Math.floor(next() * 27) + 1).padStart(2, '0')
        let res
        if (roll < 0.7) {
          const id = events[Math.floor(next() * events.length)]!
          res = await server.request('POST', `/events/${id}`, {
            token,
            body: {
              categories: pick(next, categories, 1 + Math.floor(next() * 4)),
              tags: pick(next, tags, Math.floor(next() * 4)),
              ...(next() < 0.2 ? { status: next() < 0.5 ? 'draft' : 'publish' } : {}),
            },
          })
        } else if (roll < 0.9) {
          res = await server.request<{ id: number }>('POST', '/events', {
            token,
            body: {
              title: `Created ${n}.${op}`,
              start_date: `2027-03-${day} 10:00:00`,
              end_date: `2027-03-${day} 11:00:00`,
              categories: pick(next, categories, 2),
              tags: pick(next, tags, 2),
            },
          })
          if (res.status === 201) events.push(res.body.id)
        } else {
          res = await server.request('DELETE', `/events/${events[Math.floor(next() * events.length)]!}`, { token })
        }
        statuses.push(res.status)
        if (res.status >= 500) failures.push(res.body)
      }
    }
    await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)))
    expect(failures).toEqual([])
    expect(statuses).toHaveLength(CLIENTS * OPS_PER_CLIENT)
    const listed = [
      ...(await server.request<CategoryList>('GET', '/categories?hide_empty=0&per_page=100')).body.categories,
      ...(await server.request<TagList>('GET', '/tags?hide_empty=0&per_page=100')).body.tags,
    ] as { id: number; count: number }[]
    const recount = await querySql<{ id: number; n: number }>(`
      select t.id, (select count(*)::int from event_terms et join events e on e.id = et.event_id
                     where et.term_id = t.id and e.status = 'publish') as n
        from terms t`)
    expect(Object.fromEntries(listed.map((t) => [t.id, t.count]))).toEqual(Object.fromEntries(recount.map((t) => [t.id, t.n])))
    // Retried or not, none deadlocked: the pool's sessions report their statistics as they end.
    await server.close()
    await calendar.close()
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(await deadlocks()).toBe(deadlocksBefore)
  })
})
