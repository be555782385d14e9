import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCalendar, type Calendar } from '@cal-events/core'
import { BACKEND, execSql, freshCalendar, workerDatabaseUrl } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')

// The list reuses an earlier count while the database snapshot is unchanged; every write, through
// this calendar or not, must show in the very next list's total.
describe(`event list total after writes (${BACKEND})`, () => {
  let calendar: Calendar
  let statements: string[] = []
  const total = async (query: Record<string, unknown> = {}) => {
    statements = []
    const list = await calendar.events.list(query, { as: null })
    // One list statement, after the one that resolves a category filter (and its descendants) to term ids.
    expect(statements).toHaveLength(query.categories ? 2 : 1)
    return Number(list.total)
  }
  const create = (title: string, day: string, extra: Record<string, unknown> = {}) =>
    calendar.events.create({ title, start_date: `2026-12-${day} 10:00:00`, end_date: `2026-12-${day} 11:00:00`, ...extra })

  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, onQuery: (sql) => statements.push(sql) })
    for (let i = 1; i <= 7; i++) await create(`Event ${i}`, String(i).padStart(2, '0'), { categories: ['Talks'] })
  })
  afterAll(() => calendar.close())

  it('sees creates, updates and deletes through the calendar at once', async () => {
    expect(await total()).toBe(7)
    expect(await total()).toBe(7)
    const added = await create('Added', '10', { categories: ['Talks'] })
    expect(await total()).toBe(8)
    expect(await total({ categories: 'talks' })).toBe(8)
    await calendar.events.update(added.id, { hide_from_listings: true })
    expect(await total()).toBe(7)
    await calendar.events.update(added.id, { hide_from_listings: false, status: 'draft' })
    expect(await total()).toBe(7)
    await calendar.events.update(added.id, { status: 'publish' })
    expect(await total()).toBe(8)
    await calendar.events.update(added.id, { start_date: '2031-01-01 10:00:00', end_date: '2031-01-01 11:00:00' })
    expect(await total()).toBe(7)
    await calendar.events.update(added.id, { start_date: '2026-12-11 10:00:00', end_date: '2026-12-11 11:00:00', categories: [] })
    expect(await total()).toBe(8)
    expect(await total({ categories: 'talks' })).toBe(7)
    await calendar.events.delete(added.id)
    expect(await total()).toBe(7)
  })

  it('sees writes made outside the calendar (raw SQL, another process)', async () => {
    expect(await total()).toBe(7)
    await execSql(`update events set hide_from_listings = true where title = 'Event 1'`)
    expect(await total()).toBe(6)
    await execSql(`update events set hide_from_listings = false where title = 'Event 1'`)
    expect(await total()).toBe(7)
    if (BACKEND === 'postgres') {
      const other = await createCalendar({ database: { url: await workerDatabaseUrl(), poolSize: 1 }, migrate: false, now: () => NOW })
      try {
        await other.events.create({ title: 'Elsewhere', start_date: '2026-12-20 10:00:00', end_date: '2026-12-20 11:00:00' })
        expect(await total()).toBe(8)
        const elsewhere = (await other.events.list({ search: 'Elsewhere' })).events[0]!
        await other.events.delete(elsewhere.id)
        expect(await total()).toBe(7)
      } finally {
        await other.close()
      }
    }
  })

  it('keeps totals, pages and page errors consistent', async () => {
    const list = await calendar.events.list({ per_page: 3, page: 3 }, { as: null })
    expect(list.total).toBe(7)
    expect(list.total_pages).toBe(3)
    expect(list.events.map((e) => e.title)).toEqual(['Event 7'])
    await expect(calendar.events.list({ per_page: 3, page: 4 }, { as: null })).rejects.toMatchObject({ code: 'EVENT_ARCHIVE_PAGE_NOT_FOUND' })
    const none = await calendar.events.list({ search: 'nothing-matches-this' }, { as: null })
    expect(none).toMatchObject({ events: [], total: 0, total_pages: 0 })
    await expect(calendar.events.list({ search: 'nothing-matches-this', page: 2 }, { as: null })).rejects.toMatchObject({
      code: 'EVENT_ARCHIVE_PAGE_NOT_FOUND',
    })
  })
})

// Issue 33 item 3: a count grows with the rows that match, so callers that find no total known for
// their filters (a server just started, new filters) must not each count them at once.
describe(`event list totals counted once by concurrent first requests (${BACKEND})`, () => {
  let calendar: Calendar
  /** The known point each list statement was sent with (`1:1:`: no total known). */
  let sentWith: unknown[] = []
  beforeAll(async () => {
    calendar = await freshCalendar({
      now: () => NOW,
      onQuery: (sql, _ms, parameters) => {
        if (/^with "c"/.test(sql)) sentWith.push(parameters[0])
      },
    })
    for (let i = 1; i <= 3; i++) await calendar.events.create({ title: `Jazz ${i}`, start_date: `2026-12-0${i} 10:00:00`, end_date: `2026-12-0${i} 11:00:00` })
  })
  afterAll(() => calendar.close())

  it('counts the filters of requests that arrive together once; the others reuse its total', async () => {
    sentWith = []
    const lists = await Promise.all(Array.from({ length: 8 }, () => calendar.events.list({ search: 'jazz' }, { as: null })))
    expect(lists.map((l) => l.total)).toEqual(Array(8).fill(3))
    expect(sentWith).toHaveLength(8)
    expect(sentWith.filter((point) => point === '1:1:')).toHaveLength(1)
  })
})
