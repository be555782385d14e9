import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { changeCheckText } from '../../src/changes/change-log.js'
import { BACKEND, execSql, freshCalendar, querySql } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const GROWN = 100_000

// Issue 34: the hot-read cache asks `cal_changed_since` on every answer it serves. It must cost the
// same whether the log holds a handful of rows or a week of writes: what it reads is counted in
// shared buffers (deterministic, unlike a timing), taken in one run before and after the log grows.
describe(`change check cost on a grown log (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
    await calendar.events.create({ title: 'Logged', start_date: '2027-01-15 18:00:00', end_date: '2027-01-15 20:00:00', categories: ['Talks'] })
  })
  afterAll(async () => {
    await execSql(`delete from cal_changes where tbl like 'grown.%'`)
    await calendar.close()
  })

  /** Buffers the check reads for a point taken now (nothing changed since), best of a few runs (catalog reads vary). */
  async function checkBuffers(kinds?: string): Promise<number> {
    const { point } = (await querySql<{ point: string }>(`select pg_current_snapshot()::text as point`))[0]!
    const call = kinds ? `cal_changed_since('${point}', ${kinds})` : `cal_changed_since('${point}')`
    let best = Infinity
    for (let i = 0; i < 6; i++) {
      const rows = await querySql<Record<string, unknown>>(`explain (analyze, buffers, format json) select ${call}`)
      const raw = Object.values(rows[0]!)[0]
      const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: Record<string, number> }[]
      const node = plan[0]!.Plan
      best = Math.min(best, node['Shared Hit Blocks']! + node['Shared Read Blocks']!)
    }
    expect((await querySql<{ changed: boolean }>(`select ${call} as changed`))[0]!.changed).toBe(false)
    return best
  }

  /**
   * The hot-read cache's check (`checkChanges`: which kinds changed) for `point`, with its parameter
   * written in; `call`: as the call of `cal_check_changes` (connections without named statements).
   */
  const kindsSince = (point: string, call = false) => changeCheckText(undefined, false, call).replaceAll('$1', `'${point}'`)

  /** Buffers the cache's check reads for a point taken now (nothing changed since), best of a few runs. */
  async function kindsBuffers(call = false): Promise<number> {
    const { point } = (await querySql<{ point: string }>(`select pg_current_snapshot()::text as point`))[0]!
    let best = Infinity
    for (let i = 0; i < 6; i++) {
      const rows = await querySql<Record<string, unknown>>(`explain (analyze, buffers, format json) ${kindsSince(point, call)}`)
      const raw = Object.values(rows[0]!)[0]
      const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: Record<string, number> }[]
      const node = plan[0]!.Plan
      best = Math.min(best, node['Shared Hit Blocks']! + node['Shared Read Blocks']!)
    }
    expect((await querySql<{ missed: boolean; later: string[]; running: string[] }>(kindsSince(point, call)))[0]).toMatchObject({ missed: false, later: [], running: [] })
    return best
  }

  it('names the kinds of change since a point, for the hot-read cache', async () => {
    const { point } = (await querySql<{ point: string }>(`select pg_current_snapshot()::text as point`))[0]!
    await calendar.venues.create({ venue: 'Named Hall' })
    await execSql(`update terms set name = name || '!'`)
    for (const call of [false, true]) {
      const found = (await querySql<{ missed: boolean; later: string[]; running: string[] }>(kindsSince(point, call)))[0]!
      expect(found.missed).toBe(false)
      expect([...new Set([...found.later, ...found.running])].sort()).toEqual(['terms', 'venues'])
    }
  })

  it('reads as much with 100,000 older log rows as with a handful', async () => {
    const small = await checkBuffers()
    const smallKinds = await checkBuffers(`array['events']`)
    const smallNamed = await kindsBuffers()
    const smallCall = await kindsBuffers(true)
    // A week of writes, all committed before the point: xids below the current snapshot's xmin,
    // under as many names as it takes (a young test cluster has used few xids).
    const { xmin } = (await querySql<{ xmin: string }>(`select pg_snapshot_xmin(pg_current_snapshot())::text as xmin`))[0]!
    const top = Number(xmin) - 1
    const xids = Math.min(top - 3, 1000)
    const names = Math.ceil(GROWN / xids)
    await execSql(`insert into cal_changes (xid, tbl)
      select x::text::xid8, 'grown.' || n from generate_series(${top - xids + 1}, ${top}) x, generate_series(1, ${names}) n
      on conflict do nothing`)
    const { rows } = (await querySql<{ rows: number }>(`select count(*)::int as rows from cal_changes`))[0]!
    expect(rows).toBeGreaterThanOrEqual(GROWN)
    const grown = await checkBuffers()
    const grownKinds = await checkBuffers(`array['events']`)
    const grownNamed = await kindsBuffers()
    const grownCall = await kindsBuffers(true)
    // A few pages of slack for catalog reads (the body is planned on every call); before
    // migration 0018 the grown log cost about 730 pages.
    expect(grown, `pages read: ${small} with a handful of rows, ${grown} with ${rows}`).toBeLessThanOrEqual(small + 8)
    expect(grownKinds, `pages read with kinds: ${smallKinds}, then ${grownKinds}`).toBeLessThanOrEqual(smallKinds + 8)
    expect(grownNamed, `pages read naming kinds: ${smallNamed}, then ${grownNamed}`).toBeLessThanOrEqual(smallNamed + 8)
    expect(grownCall, `pages read by cal_check_changes: ${smallCall}, then ${grownCall}`).toBeLessThanOrEqual(smallCall + 8)
    // Still exact: a change is seen when its writer was in progress at the point or began after it.
    const since = async (point: string) =>
      (await querySql<{ c: boolean }>(`select cal_changed_since('${point}', array['grown.1']) as c`))[0]!.c
    expect(await since(`${top}:${top + 1}:${top}`)).toBe(true)
    expect(await since(`${top}:${top}:`)).toBe(true)
    // Past every writer: the current snapshot's xmax (top is the cluster's oldest running xid less
    // one; under load it lags, and a prune's horizon committed since would count as a miss).
    const { xmax } = (await querySql<{ xmax: string }>(`select pg_snapshot_xmax(pg_current_snapshot())::text as xmax`))[0]!
    expect(await since(`${xmax}:${xmax}:`)).toBe(false)
  })
})
