import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCalendar, type Calendar } from '@cal-events/core'
import { BACKEND, execSql, freshCalendar, querySql, workerDatabaseUrl } from '../../../../test-support/test-db.js'

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
    // Deltas a long history left for the first fold, so the burst folds and vacuums a table that
    // then ends in empty pages: a VACUUM that truncated them took an exclusive lock every writer
    // queued behind (the bench's history crawled at 5 writes a second).
    await watcher.query(`insert into cal_term_count_deltas (term_id, delta) select ${popular.id}, 0 from generate_series(1, 20000)`)
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
    // A relation's extension lock (locktype 'extend') is the disk growing the change log, not one
    // create waiting on another's row: on CI's slow disk it took 50-160 ms for every writer alike.
    expect(waits.filter((w) => w.wait_ms > 10 && w.locktype !== 'extend')).toEqual([])
    expect((await calendar.categories.get(popular.id)).count).toBe(CREATES)
  })
})

// The deltas' table is a queue: folded rows are deleted. Left to an autovacuum that is off (as on
// the bench machines), its dead rows stayed and every count read walked them. A fold that moved
// anything vacuums it, so a count read costs a few pages however many writes came before.
describe(`term count reads after many folded writes (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
  })
  afterAll(() => calendar.close())

  it('reads few pages for a count once 20,000 deltas were folded', async () => {
    const cat = await calendar.categories.create({ name: 'Folded' })
    // 20,000 deltas of +0 (counts unchanged), as a long history of writes would leave behind.
    await execSql(`insert into cal_term_count_deltas (term_id, delta) select ${cat.id}, 0 from generate_series(1, 20000)`)
    // Sixteen writes: a fold.
    for (let i = 0; i < 16; i++) {
      await calendar.events.create({ title: `Folding ${i}`, start_date: '2027-03-01 10:00:00', end_date: '2027-03-01 11:00:00', categories: [cat.id] })
    }
    const rows = await querySql<Record<string, unknown>>(`explain (analyze, buffers, format json)
      select (t.count + coalesce((select sum(d.delta) from cal_term_count_deltas d where d.term_id = t.id), 0))::int from terms t where t.id = ${cat.id}`)
    const raw = Object.values(rows[0]!)[0]
    const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: Record<string, number> }[]
    const pages = plan[0]!.Plan['Shared Hit Blocks']! + plan[0]!.Plan['Shared Read Blocks']!
    expect(pages, `pages read for one count: ${pages}`).toBeLessThan(20)
    expect((await calendar.categories.get(cat.id)).count).toBe(16)
  })
})
