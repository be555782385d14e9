import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import type { Calendar } from '@cal-events/core'
import { openDatabase, type DatabaseHandle } from '../../src/db/create-db.js'
import { createChangeValidator } from '../../src/http/response-cache.js'
import { BACKEND, freshCalendar, querySql, workerDatabaseUrl } from '../../../../test-support/test-db.js'

// Issue 32: a kept answer costs one change check, and checks ran one at a time, so behind a pooler
// each check's extra round trip was on every hit's path. Two run at once now: a check is sent while
// the one before is still in flight, asking since the latest check whose result was taken, and
// results are taken in the order the checks were sent (docs/response-cache.md gives the argument).
describe.skipIf(BACKEND !== 'postgres')('change checks in flight (postgres)', () => {
  let calendar: Calendar
  let handle: DatabaseHandle
  let blocker: pg.Client

  beforeAll(async () => {
    calendar = await freshCalendar()
    handle = await openDatabase({ url: await workerDatabaseUrl(), poolSize: 4 })
    blocker = new pg.Client({ connectionString: await workerDatabaseUrl(), application_name: 'test-blocker' })
    await blocker.connect()
  })
  afterAll(async () => {
    await blocker?.end()
    await handle?.close()
    await calendar?.close()
  })

  /** Checks of this database waiting for the blocker's lock. */
  const waiting = async () =>
    (await querySql<{ n: number }>(`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and query like '%cal_change_horizon%'`))[0]!.n

  async function until(condition: () => Promise<boolean>, ms = 5000): Promise<boolean> {
    const deadline = Date.now() + ms
    while (Date.now() < deadline) {
      if (await condition()) return true
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    return false
  }

  it('sends a second check while the first is in flight, takes their results in order, and asks since the latest taken', async () => {
    const validator = createChangeValidator(handle.db)
    const first = await validator.next()
    await blocker.query('begin; lock table cal_events.cal_change_horizon in access exclusive mode')
    let second: ReturnType<typeof validator.next> | undefined
    let third: ReturnType<typeof validator.next> | undefined
    try {
      second = validator.next()
      expect(await until(async () => (await waiting()) === 1)).toBe(true)
      // Arrives while the second is in flight: its statement goes out at once.
      third = validator.next()
      expect(await until(async () => (await waiting()) === 2), 'two checks waiting on the lock at once').toBe(true)
    } finally {
      await blocker.query('rollback')
    }
    const [two, three] = await Promise.all([second!, third!])
    expect([first.seq, two.seq, three.seq]).toEqual([1, 2, 3])
    // The third was sent before the second's result: it asked since the first, and found nothing.
    expect(validator.staleThrough(['venues'])).toBe(0)
    // A write committed now is found by the next check, whichever point it asks since.
    await calendar.venues.create({ venue: 'In flight' })
    const four = await validator.next()
    expect(four.seq).toBe(4)
    expect(validator.staleThrough(['venues'])).toBe(3)
  })

})
