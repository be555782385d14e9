import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCalendar, type Calendar } from '@cal-events/core'
import { BACKEND, freshCalendar, workerDatabaseUrl } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const CREATES = 32

// Issue 34: every create updated the count row of each of its terms, so creates into one popular
// category queued on that row's lock (and left a dead row version each). A watcher samples
// pg_locks while 32 creates run side by side: no lock may be waited on for more than 10 ms.
// PostgreSQL only: PGlite has one session, nothing runs side by side there.
describe.runIf(BACKEND === 'postgres')('creates into one category do not wait on each other', () => {
  let calendar: Calendar
  let watcher: pg.Client
  beforeAll(async () => {
    const fresh = await freshCalendar({ now: () => NOW })
    await fresh.close()
    const url = await workerDatabaseUrl()
    calendar = await createCalendar({ database: { url, poolSize: 16 }, migrate: false, now: () => NOW })
    watcher = new pg.Client({ connectionString: url })
    await watcher.connect()
  })
  afterAll(async () => {
    await watcher?.end()
    await calendar?.close()
  })

  it(`${CREATES} concurrent creates: no lock wait over 10 ms, the count exact`, async () => {
    const popular = await calendar.categories.create({ name: 'Popular' })
    // Warm every connection of the pool, so the burst is writes, not connects.
    await Promise.all(Array.from({ length: 16 }, () => calendar.categories.list({ per_page: 1 })))
    let done = false
    const waits: { wait_ms: number; locktype: string; relation: string | null; mode: string }[] = []
    const watch = (async () => {
      while (!done) {
        const { rows } = await watcher.query(`
          select extract(epoch from (clock_timestamp() - l.waitstart)) * 1000 as wait_ms, l.locktype, l.relation::regclass::text as relation, l.mode
            from pg_locks l join pg_stat_activity a on a.pid = l.pid
           where not l.granted and a.datname = current_database()`)
        waits.push(...rows.map((r) => ({ ...r, wait_ms: Number(r.wait_ms) })))
      }
    })()
    const created = await Promise.all(
      Array.from({ length: CREATES }, (_, i) =>
        calendar.events.create({ title: `Crowd ${i}`, start_date: '2027-03-01 10:00:00', end_date: '2027-03-01 11:00:00', categories: [popular.id] }),
      ),
    )
    done = true
    await watch
    expect(created).toHaveLength(CREATES)
    expect(waits.filter((w) => w.wait_ms > 10)).toEqual([])
    expect((await calendar.categories.get(popular.id)).count).toBe(CREATES)
  })
})
