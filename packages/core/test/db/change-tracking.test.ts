import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCalendar, type Calendar } from '@cal-events/core'
import { BACKEND, execSql, freshCalendar, querySql, workerDatabaseUrl } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

// A remembered list total is reused until the calendar's change log shows a write since it was
// counted (docs/change-tracking.md). Whether a list recounted or reused is seen through a canary:
// an event whose visibility is flipped with the triggers off (`session_replication_role =
// replica`), a change the log never sees. A reused total does not show the flip; a recount does.
describe(`change tracking and list totals (${BACKEND})`, () => {
  let calendar: Calendar
  let canaryHidden = false
  const total = async (c: Calendar = calendar, query: Record<string, unknown> = {}) => Number((await c.events.list(query, { as: null })).total)
  const event = (title: string, day: string, extra: Record<string, unknown> = {}) =>
    calendar.events.create({ title, start_date: `2026-12-${day} 10:00:00`, end_date: `2026-12-${day} 11:00:00`, ...extra })
  /** An API write to a column list filters read (`featured`), which changes no default-list total. */
  const touchListed = async () => {
    const e = (await calendar.events.list({ search: 'Event 1' })).events[0]!
    await calendar.events.update(e.id, { featured: !e.featured })
  }
  /** The total a calendar without remembered totals counts: the truth. */
  const freshTotal = async (query: Record<string, unknown> = {}) => {
    const database = BACKEND === 'postgres' ? { url: await workerDatabaseUrl(), poolSize: 1 } : calendar.options.database
    const fresh = await createCalendar({ database, migrate: false, now: () => NOW })
    try {
      return await total(fresh, query)
    } finally {
      await fresh.close()
    }
  }
  /** Flips the canary's visibility without the change log seeing it; returns what a recount adds. */
  const flipCanary = async (): Promise<number> => {
    await execSql(`begin; set local session_replication_role = replica;
      update events set hide_from_listings = not hide_from_listings where title = 'Canary event'; commit`)
    canaryHidden = !canaryHidden
    return canaryHidden ? -1 : 1
  }

  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
    for (let i = 1; i <= 6; i++) await event(`Event ${i}`, String(i).padStart(2, '0'), { venue: { venue: 'Main Hall' }, categories: ['Talks'] })
    await event('Canary event', '07', { venue: { venue: 'Main Hall' }, categories: ['Talks'] })
    await execSql(`create table if not exists host_orders (id serial primary key, note text)`)
  })
  afterAll(() => calendar.close())

  it('reuses a total across writes to host tables', async () => {
    const before = await total()
    expect(before).toBe(7)
    const unseen = await flipCanary()
    for (let i = 0; i < 5; i++) await execSql(`insert into host_orders (note) values ('order ${i}')`)
    await execSql(`update host_orders set note = note || '!'`)
    await execSql(`delete from host_orders where id % 2 = 0`)
    // Reused: the canary's untracked flip does not show.
    expect(await total()).toBe(before)
    // The next calendar write makes the list count again, and the count sees everything.
    await touchListed()
    expect(await total()).toBe(before + unseen)
  })

  it.runIf(BACKEND === 'postgres')('reuses a total across commits in another database of the server', async () => {
    const before = await total()
    const unseen = await flipCanary()
    const other = new pg.Client({ connectionString: ADMIN_URL })
    await other.connect()
    try {
      await other.query('create table if not exists cal_test_foreign (id serial primary key, note text)')
      for (let i = 0; i < 5; i++) await other.query(`insert into cal_test_foreign (note) values ('x')`)
    } finally {
      await other.end()
    }
    expect(await total()).toBe(before)
    await touchListed()
    expect(await total()).toBe(before + unseen)
  })

  // Each kind of calendar write that can change which events match invalidates the known total:
  // the recount shows the write's own effect and the canary's flip.
  const writes: [string, () => Promise<number>, Record<string, unknown>?][] = [
    ['create', async () => (await event('Created', '08'), 1)],
    [
      'date change',
      async () => {
        const id = (await calendar.events.list({ search: 'Event 2' })).events[0]!.id
        await calendar.events.update(id, { start_date: '2031-01-01 10:00:00', end_date: '2031-01-01 11:00:00' })
        return -1
      },
    ],
    [
      'status change',
      async () => {
        const id = (await calendar.events.list({ search: 'Event 3' })).events[0]!.id
        await calendar.events.update(id, { status: 'draft' })
        return -1
      },
    ],
    [
      'trash',
      async () => {
        const id = (await calendar.events.list({ search: 'Event 4' })).events[0]!.id
        await calendar.events.delete(id)
        return -1
      },
    ],
    [
      'term link',
      async () => {
        const id = (await calendar.events.list({ search: 'Event 5' })).events[0]!.id
        await calendar.events.update(id, { categories: [] })
        return -1
      },
      { categories: 'talks' },
    ],
    [
      'title change, in a search',
      async () => {
        const id = (await calendar.events.list({ search: 'Event 1' })).events[0]!.id
        await calendar.events.update(id, { title: 'Event 1 renamed' })
        return 0
      },
      { search: 'event' },
    ],
    [
      'venue given coordinates, in a geoloc list',
      async () => {
        const venue = (await calendar.venues.list({ search: 'Main Hall' })).venues[0]!
        await calendar.venues.update(venue.id, { geo_lat: 51.5, geo_lng: -0.12 })
        return 0
      },
      { geoloc: true },
    ],
    [
      'permanent delete',
      async () => {
        const id = (await calendar.events.list({ search: 'Created' })).events[0]!.id
        // The API only trashes; a host's clean-up deletes for good.
        await execSql(`delete from event_terms where event_id = ${id}; delete from events where id = ${id}`)
        return -1
      },
    ],
    [
      'raw SQL outside the calendar',
      async () => {
        await execSql(`update events set hide_from_listings = true where title = 'Event 6'`)
        return -1
      },
    ],
  ]
  for (const [kind, write, query = {}] of writes) {
    it(`recounts after a ${kind}`, async () => {
      // The canary's earlier flips are in the truth; a tracked write brings every total up to it.
      await touchListed()
      const before = await total(calendar, query)
      await flipCanary()
      // Reused: the canary's flip does not show.
      expect(await total(calendar, query)).toBe(before)
      const delta = await write()
      const truth = await freshTotal(query)
      expect(truth).not.toBe(before + delta)
      expect(await total(calendar, query)).toBe(truth)
    })
  }

  // An edit no list filter reads cannot change a total: it is reused, and the page shows the edit.
  const edits: [string, () => Promise<void>][] = [
    [
      'title and description',
      async () => {
        const id = (await calendar.events.list({ search: 'Event 1' })).events[0]!.id
        await calendar.events.update(id, { title: 'Event 1 again', description: 'Edited' })
      },
    ],
    [
      'cost',
      async () => {
        const id = (await calendar.events.list({ search: 'Event 1' })).events[0]!.id
        await calendar.events.update(id, { cost: '12' })
      },
    ],
    [
      'venue name',
      async () => {
        const venue = (await calendar.venues.list({ search: 'Main Hall' })).venues[0]!
        await calendar.venues.update(venue.id, { venue: 'Great Hall' })
      },
    ],
  ]
  for (const [kind, edit] of edits) {
    it(`reuses the default list's total after an edit of the ${kind}`, async () => {
      await touchListed()
      const before = await total()
      const unseen = await flipCanary()
      await edit()
      expect(await total()).toBe(before)
      expect(await freshTotal()).toBe(before + unseen)
      // A write to a column the list reads (even one this list does not filter on) recounts.
      await touchListed()
      expect(await total()).toBe(before + unseen)
    })
  }

  it('shows the renamed venue embedded in the next page', async () => {
    const page = await calendar.events.list({ search: 'Event 1' }, { as: null })
    expect(page.events[0]!.venue).toMatchObject({ venue: 'Great Hall' })
    expect({ title: page.events[0]!.title, cost: page.events[0]!.cost }).toEqual({ title: 'Event 1 again', cost: '$12' })
  })

  it('counts a point older than the pruned log as changed', async () => {
    const before = await total()
    const unseen = await flipCanary()
    expect(await total()).toBe(before)
    // A write after the known point, then a prune that drops its row: the horizon still tells.
    await calendar.events.update((await calendar.events.list({ search: 'Event 1' })).events[0]!.id, { description: 'again' })
    await execSql(`select cal_prune_changes(now() + interval '1 second')`)
    expect(await querySql<{ n: number }>(`select count(*)::int as n from cal_changes`)).toEqual([{ n: 0 }])
    expect(await total()).toBe(before + unseen)
  })

  it('lets two calendars on one database each see the other’s acknowledged writes on the next read', async () => {
    const database = BACKEND === 'postgres' ? { url: await workerDatabaseUrl(), poolSize: 2 } : calendar.options.database
    const other = await createCalendar({ database, migrate: false, now: () => NOW })
    try {
      const start = await total()
      expect(await total(other)).toBe(start)
      let expected = start
      for (let i = 0; i < 3; i++) {
        const created = await other.events.create({ title: `From B ${i}`, start_date: '2026-12-20 10:00:00', end_date: '2026-12-20 11:00:00' })
        expected++
        expect(await total(calendar)).toBe(expected)
        await calendar.events.delete(created.id)
        expected--
        expect(await total(other)).toBe(expected)
        expect(await total(calendar)).toBe(expected)
      }
    } finally {
      await other.close()
    }
  })

  // PostgreSQL commits in any order: a transaction that started writing first can commit after a
  // later one. A list counted between the two commits must not be reused after the first commits.
  it.runIf(BACKEND === 'postgres')('sees a transaction that commits after a later one', async () => {
    const url = await workerDatabaseUrl()
    const early = new pg.Client({ connectionString: url })
    const late = new pg.Client({ connectionString: url })
    await Promise.all([early.connect(), late.connect()])
    try {
      const before = await total()
      await early.query('begin')
      await early.query(`update events set hide_from_listings = true where title like 'Event 1%'`)
      await late.query('begin')
      await late.query(`update events set featured = not featured where title = 'Event 2'`)
      await late.query('commit')
      // Counted with the early transaction still open: its write is not in this total.
      expect(await total()).toBe(before)
      expect(await total()).toBe(before)
      await early.query('commit')
      expect(await total()).toBe(before - 1)
    } finally {
      await early.query('rollback').catch(() => {})
      await Promise.all([early.end(), late.end()])
    }
  })
})
