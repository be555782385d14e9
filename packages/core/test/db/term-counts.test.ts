import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, Principal } from '@cal-events/core'
import { BACKEND, freshCalendar } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const CONTRIBUTOR: Principal = { id: 6, role: 'contributor' }
const eventDates = { start_date: '2027-01-15 18:00:00', end_date: '2027-01-15 20:00:00' }

describe(`term counts: published events carrying the term (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
  })
  afterAll(() => calendar.close())

  const catCount = async (id: number) => (await calendar.categories.get(id)).count as number
  const tagCount = async (id: number) => (await calendar.tags.get(id)).count as number

  it('counts on create, ignores drafts and pending events', async () => {
    const cat = await calendar.categories.create({ name: 'Counted' })
    const tag = await calendar.tags.create({ name: 'counted' })
    await calendar.events.create({ title: 'One', ...eventDates, categories: [cat.id], tags: [tag.id] })
    expect([await catCount(cat.id), await tagCount(tag.id)]).toEqual([1, 1])
    await calendar.events.create({ title: 'Two', ...eventDates, categories: [cat.id], tags: ['counted'] })
    expect([await catCount(cat.id), await tagCount(tag.id)]).toEqual([2, 2])
    await calendar.events.create({ title: 'Draft', status: 'draft', ...eventDates, categories: [cat.id], tags: [tag.id] })
    // A contributor's "publish" is scaled back to pending (CONTRACT 10.1), which does not count.
    await calendar.events.create({ title: 'Pending', status: 'publish', ...eventDates, categories: [cat.id] }, { as: CONTRIBUTOR })
    expect([await catCount(cat.id), await tagCount(tag.id)]).toEqual([2, 2])
    // The embedded term of an event shows the same count.
    const listed = await calendar.events.list({ categories: [cat.id] })
    expect(listed.events[0]?.categories[0]?.count).toBe(2)
  })

  it('follows status changes publish → draft → publish and trashing', async () => {
    const cat = await calendar.categories.create({ name: 'Status' })
    const tag = await calendar.tags.create({ name: 'status' })
    const ev = await calendar.events.create({ title: 'Flip', ...eventDates, categories: [cat.id], tags: [tag.id] })
    await calendar.events.create({ title: 'Stays', ...eventDates, categories: [cat.id] })
    expect([await catCount(cat.id), await tagCount(tag.id)]).toEqual([2, 1])
    await calendar.events.update(ev.id, { status: 'draft' })
    expect([await catCount(cat.id), await tagCount(tag.id)]).toEqual([1, 0])
    // Changing other fields of a draft leaves counts alone.
    await calendar.events.update(ev.id, { title: 'Flip draft' })
    expect([await catCount(cat.id), await tagCount(tag.id)]).toEqual([1, 0])
    await calendar.events.update(ev.id, { status: 'publish' })
    expect([await catCount(cat.id), await tagCount(tag.id)]).toEqual([2, 1])
    await calendar.events.update(ev.id, { status: 'private' })
    expect(await catCount(cat.id)).toBe(1)
    await calendar.events.update(ev.id, { status: 'publish' })
    await calendar.events.delete(ev.id)
    expect([await catCount(cat.id), await tagCount(tag.id)]).toEqual([1, 0])
  })

  it('follows term changes on an event: replace, add, remove all', async () => {
    const a = await calendar.categories.create({ name: 'Swap A' })
    const b = await calendar.categories.create({ name: 'Swap B' })
    const ev = await calendar.events.create({ title: 'Swapper', ...eventDates, categories: [a.id] })
    expect([await catCount(a.id), await catCount(b.id)]).toEqual([1, 0])
    await calendar.events.update(ev.id, { categories: [b.id] })
    expect([await catCount(a.id), await catCount(b.id)]).toEqual([0, 1])
    await calendar.events.update(ev.id, { categories: `${a.id},${b.id}` })
    expect([await catCount(a.id), await catCount(b.id)]).toEqual([1, 1])
    // Sending the same terms again must not count them twice.
    await calendar.events.update(ev.id, { categories: [a.id, b.id, 'swap-a'] })
    expect([await catCount(a.id), await catCount(b.id)]).toEqual([1, 1])
    await calendar.events.update(ev.id, { categories: [] })
    expect([await catCount(a.id), await catCount(b.id)]).toEqual([0, 0])
    // Terms of a draft changing do not count either way.
    await calendar.events.update(ev.id, { status: 'draft', categories: [a.id] })
    expect(await catCount(a.id)).toBe(0)
  })

  it('leaves other terms right when one is deleted, and hide_empty follows the counts', async () => {
    const keep = await calendar.tags.create({ name: 'hide keep' })
    const drop = await calendar.tags.create({ name: 'hide drop' })
    const ev = await calendar.events.create({ title: 'Two tags', ...eventDates, tags: [keep.id, drop.id] })
    expect((await calendar.tags.list({ search: 'hide' })).total).toBe(2)
    const deleted = await calendar.tags.delete(drop.id)
    expect(deleted.count).toBe(1)
    expect(await tagCount(keep.id)).toBe(1)
    await calendar.events.update(ev.id, { status: 'draft' })
    expect((await calendar.tags.list({ search: 'hide' })).total).toBe(0)
    expect((await calendar.tags.list({ search: 'hide', hide_empty: false })).tags).toEqual([expect.objectContaining({ id: keep.id, count: 0 })])
  })
})

describe(`term lists: SQL statements per page (${BACKEND})`, () => {
  let calendar: Calendar
  let statements = 0
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, onQuery: () => statements++ })
    const parent = await calendar.categories.create({ name: 'Parent' })
    for (let i = 0; i < 25; i++) {
      const cat = await calendar.categories.create({ name: `Category ${String(i).padStart(2, '0')}`, parent: parent.id })
      await calendar.events.create({ title: `Event ${i}`, ...eventDates, categories: [cat.id, parent.id], tags: [`tag ${i}`] })
    }
  })
  afterAll(() => calendar.close())

  async function countStatements(run: () => Promise<unknown>): Promise<number> {
    statements = 0
    await run()
    return statements
  }

  it('uses the same number of statements for a page of 1 and of 20', async () => {
    const small = await countStatements(() => calendar.categories.list({ per_page: 1 }))
    const large = await countStatements(() => calendar.categories.list({ per_page: 20 }))
    expect((await calendar.categories.list({ per_page: 20 })).categories).toHaveLength(20)
    expect(large).toBe(small)
    expect(small).toBeLessThanOrEqual(2)
    const tagsSmall = await countStatements(() => calendar.tags.list({ per_page: 1 }))
    const tagsLarge = await countStatements(() => calendar.tags.list({ per_page: 20 }))
    expect(tagsLarge).toBe(tagsSmall)
  })

  it('keeps the count constant with every filter present', async () => {
    const all = await calendar.categories.list({ per_page: 50, hide_empty: false })
    const ids = all.categories.map((c) => c.id)
    const parent = all.categories.find((c) => c.name === 'Parent')!.id
    const ev = (await calendar.events.list({ per_page: 1 })).events[0]!.id
    const query = (perPage: number) => ({
      per_page: perPage,
      include: ids.slice(0, 24),
      exclude: ids.slice(24),
      parent,
      event: ev,
      search: 'category',
      orderby: 'include',
      order: 'desc',
    })
    const small = await countStatements(() => calendar.categories.list(query(1)))
    const large = await countStatements(() => calendar.categories.list(query(20)))
    expect(large).toBe(small)
  })
})
