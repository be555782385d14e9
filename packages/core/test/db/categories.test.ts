import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, EventInput, TermInput, Principal } from '@cal-events/core'
import { BACKEND, freshCalendar } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const SITE = 'http://127.0.0.1:3000'
const AUTHOR: Principal = { id: 5, role: 'author' }
const CONTRIBUTOR: Principal = { id: 6, role: 'contributor' }
const invalid = (param: string) => ({ code: 'INVALID_PARAM', data: { params: { [param]: expect.any(String) } } })

describe(`categories: writes (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: SITE })
  })
  afterAll(() => calendar.close())

  const event = (title: string, categories: EventInput['categories'], extra: EventInput = {}) =>
    calendar.events.create({ title, start_date: '2027-01-15 18:00:00', end_date: '2027-01-15 20:00:00', categories, ...extra })

  it('creates a category in the reference shape, count 0', async () => {
    const created = await calendar.categories.create({ name: 'Sample Category', description: 'Cat desc', slug: 'sample-category' })
    expect(created).toEqual({
      id: created.id,
      count: 0,
      description: 'Cat desc',
      name: 'Sample Category',
      slug: 'sample-category',
      taxonomy: 'cal_events_cat',
      parent: 0,
      meta: [],
      url: `${SITE}/events/category/sample-category/`,
      urls: { self: `${SITE}/cal/events/v1/categories/${created.id}`, collection: `${SITE}/cal/events/v1/categories` },
    })
    expect(Object.keys(created)).toEqual(['id', 'count', 'description', 'name', 'slug', 'taxonomy', 'parent', 'meta', 'url', 'urls'])
    expect(await calendar.categories.get(created.id, { as: null })).toEqual(created)
  })

  it('derives and normalises slugs, and makes taken ones unique with -2, -3', async () => {
    expect((await calendar.categories.create({ name: 'Rock & Roll Nights' })).slug).toBe('rock-roll-nights')
    expect((await calendar.categories.create({ name: 'One', slug: 'Shared Slug' })).slug).toBe('shared-slug')
    expect((await calendar.categories.create({ name: 'Two', slug: 'shared-slug' })).slug).toBe('shared-slug-2')
    expect((await calendar.categories.create({ name: 'Three', slug: 'shared-slug' })).slug).toBe('shared-slug-3')
  })

  it('refuses a name already used at the same level, case-insensitively, with term_exists and the id', async () => {
    const first = await calendar.categories.create({ name: 'Concerts' })
    await expect(calendar.categories.create({ name: '  concerts ' })).rejects.toMatchObject({
      code: 'TERM_EXISTS',
      data: { term_id: first.id },
    })
    // Another level is another namespace for names.
    const child = await calendar.categories.create({ name: 'CONCERTS', parent: first.id })
    expect(child).toMatchObject({ parent: first.id, slug: 'concerts-2' })
    await expect(calendar.categories.create({ name: 'Concerts', parent: first.id })).rejects.toMatchObject({
      code: 'TERM_EXISTS',
      data: { term_id: child.id },
    })
  })

  it('rejects "" for every field and a missing name', async () => {
    for (const field of ['name', 'description', 'slug']) {
      await expect(calendar.categories.create({ name: 'Empty test', [field]: '' })).rejects.toMatchObject(invalid(field))
    }
    await expect(calendar.categories.create({ name: '   ' })).rejects.toMatchObject(invalid('name'))
    await expect(calendar.categories.create({ description: 'no name' })).rejects.toMatchObject({
      code: 'MISSING_PARAM',
      data: { params: ['name'] },
    })
    const made = await calendar.categories.create({ name: 'Keeps description', description: 'Kept' })
    for (const field of ['name', 'description', 'slug']) {
      await expect(calendar.categories.update(made.id, { [field]: '' })).rejects.toMatchObject(invalid(field))
    }
    expect(await calendar.categories.get(made.id)).toMatchObject({ name: 'Keeps description', description: 'Kept' })
  })

  it('takes an existing parent or 0, and refuses unknown parents and tags as parents', async () => {
    const parent = await calendar.categories.create({ name: 'Parent P' })
    const child = await calendar.categories.create({ name: 'Child P', parent: parent.id })
    expect(child.parent).toBe(parent.id)
    expect(child.urls.up).toBe(`${SITE}/cal/events/v1/categories/${parent.id}`)
    expect(await calendar.categories.create({ name: 'Top P', parent: 0 })).toMatchObject({ parent: 0 })
    await expect(calendar.categories.create({ name: 'Orphan', parent: 999999 })).rejects.toMatchObject(invalid('parent'))
    const tag = await calendar.tags.create({ name: 'Not a category' })
    await expect(calendar.categories.create({ name: 'Orphan', parent: tag.id })).rejects.toMatchObject(invalid('parent'))
    await expect(calendar.categories.create({ name: 'Orphan', parent: 'abc' })).rejects.toMatchObject(invalid('parent'))
  })

  it('updates partially, moves between levels and back to the top with parent=0', async () => {
    const a = await calendar.categories.create({ name: 'Move A', description: 'desc A' })
    const b = await calendar.categories.create({ name: 'Move B' })
    const renamed = await calendar.categories.update(a.id, { name: 'Moved A' })
    expect(renamed).toMatchObject({ name: 'Moved A', slug: 'move-a', description: 'desc A', parent: 0 })
    expect(await calendar.categories.update(a.id, { parent: b.id })).toMatchObject({ parent: b.id, name: 'Moved A' })
    const top = await calendar.categories.update(a.id, { parent: 0, description: 'new' })
    expect(top).toMatchObject({ parent: 0, description: 'new' })
    expect(top.urls).not.toHaveProperty('up')
    expect(await calendar.categories.update(a.id, { slug: 'Brand New Slug' })).toMatchObject({ slug: 'brand-new-slug' })
    expect(await calendar.categories.update(a.id, { slug: 'brand-new-slug' })).toMatchObject({ slug: 'brand-new-slug' })
  })

  it('refuses a slug another category has with duplicate_term_slug and changes nothing', async () => {
    const a = await calendar.categories.create({ name: 'Slug A' })
    const b = await calendar.categories.create({ name: 'Slug B' })
    await expect(calendar.categories.update(b.id, { slug: 'slug-a', name: 'Slug B2' })).rejects.toMatchObject({ code: 'DUPLICATE_TERM_SLUG' })
    expect(await calendar.categories.get(b.id)).toMatchObject({ slug: 'slug-b', name: 'Slug B' })
    // A tag holding the slug does not count: slugs are unique per taxonomy.
    await calendar.tags.create({ name: 'Tag slug', slug: 'tag-held' })
    expect(await calendar.categories.update(a.id, { slug: 'tag-held' })).toMatchObject({ slug: 'tag-held' })
  })

  it('refuses cycles: a category cannot become its own parent or its descendant’s child', async () => {
    const root = await calendar.categories.create({ name: 'Cycle root' })
    const mid = await calendar.categories.create({ name: 'Cycle mid', parent: root.id })
    const leaf = await calendar.categories.create({ name: 'Cycle leaf', parent: mid.id })
    await expect(calendar.categories.update(root.id, { parent: root.id })).rejects.toMatchObject(invalid('parent'))
    await expect(calendar.categories.update(root.id, { parent: mid.id })).rejects.toMatchObject(invalid('parent'))
    await expect(calendar.categories.update(root.id, { parent: leaf.id })).rejects.toMatchObject(invalid('parent'))
    expect(await calendar.categories.get(root.id)).toMatchObject({ parent: 0 })
    // Moving a subtree sideways is fine.
    expect(await calendar.categories.update(leaf.id, { parent: root.id })).toMatchObject({ parent: root.id })
  })

  it('stays consistent under concurrent writes: one term per name, no cycle between two moves', async () => {
    const creates = await Promise.allSettled(Array.from({ length: 8 }, () => calendar.categories.create({ name: 'Racer' })))
    expect(creates.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    for (const r of creates) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'TERM_EXISTS' })
    // Implicit creation through events takes the same name lock: one tag, counted by every event.
    await Promise.all(Array.from({ length: 8 }, (_, i) => event(`Race ${i}`, undefined, { tags: ['Race tag', 'race TAG'] })))
    const tags = await calendar.tags.list({ search: 'race tag', hide_empty: false })
    expect(tags.tags).toEqual([expect.objectContaining({ name: 'Race tag', count: 8 })])
    const a = await calendar.categories.create({ name: 'Swing A' })
    const b = await calendar.categories.create({ name: 'Swing B' })
    const moves = await Promise.allSettled([calendar.categories.update(a.id, { parent: b.id }), calendar.categories.update(b.id, { parent: a.id })])
    expect(moves.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    const parents = [(await calendar.categories.get(a.id)).parent, (await calendar.categories.get(b.id)).parent]
    expect(parents.filter((p) => p === 0)).toHaveLength(1)
  })

  it('answers an unknown id with 400 on id, before the permission check', async () => {
    const tag = await calendar.tags.create({ name: 'Wrong taxonomy' })
    for (const id of [999999, tag.id]) {
      await expect(calendar.categories.get(id)).rejects.toMatchObject(invalid('id'))
      await expect(calendar.categories.update(id, { name: 'x' }, { as: null })).rejects.toMatchObject(invalid('id'))
      await expect(calendar.categories.delete(id, { as: null })).rejects.toMatchObject(invalid('id'))
    }
  })

  it('lets authors and up write categories; others get 401/403 after the parameter rules', async () => {
    const made = await calendar.categories.create({ name: 'By author' }, { as: AUTHOR })
    expect(await calendar.categories.update(made.id, { description: 'd' }, { as: AUTHOR })).toMatchObject({ description: 'd' })
    await expect(calendar.categories.create({ name: 'Anon' }, { as: null })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' })
    await expect(calendar.categories.create({ name: 'Contrib' }, { as: CONTRIBUTOR })).rejects.toMatchObject({ code: 'FORBIDDEN' })
    await expect(calendar.categories.update(made.id, { name: 'x' }, { as: null })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' })
    await expect(calendar.categories.delete(made.id, { as: CONTRIBUTOR })).rejects.toMatchObject({ code: 'FORBIDDEN' })
    // CONTRACT 2.2: missing and invalid parameters are answered before the permission check.
    await expect(calendar.categories.create({}, { as: null })).rejects.toMatchObject({ code: 'MISSING_PARAM' })
    await expect(calendar.categories.create({ name: 'x', parent: 999999 }, { as: null })).rejects.toMatchObject(invalid('parent'))
    // The name clash is a handler error, so the permission check comes first.
    await expect(calendar.categories.create({ name: 'By author' }, { as: null })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' })
    expect(await calendar.categories.delete(made.id, { as: AUTHOR })).toMatchObject({ id: made.id })
  })

  it('deletes for good: returns the term as it was, events lose it, children move up, a second delete is 400', async () => {
    const grand = await calendar.categories.create({ name: 'Del grand' })
    const doomed = await calendar.categories.create({ name: 'Del doomed', parent: grand.id })
    const child = await calendar.categories.create({ name: 'Del child', parent: doomed.id })
    const ev = await event('Loses category', [doomed.id, child.id])
    const deleted = await calendar.categories.delete(doomed.id)
    expect(deleted).toMatchObject({ id: doomed.id, name: 'Del doomed', count: 1, parent: grand.id })
    await expect(calendar.categories.get(doomed.id)).rejects.toMatchObject(invalid('id'))
    await expect(calendar.categories.delete(doomed.id)).rejects.toMatchObject(invalid('id'))
    expect(await calendar.categories.get(child.id)).toMatchObject({ parent: grand.id, count: 1 })
    expect((await calendar.events.get(ev.id)).categories.map((c: { id: number }) => c.id)).toEqual([child.id])
    // Deleting a top-level category puts its children at the top level.
    await calendar.categories.delete(grand.id)
    expect(await calendar.categories.get(child.id)).toMatchObject({ parent: 0 })
  })

  it('matches descendants in the event list categories filter', async () => {
    const top = await calendar.categories.create({ name: 'Tree top' })
    const mid = await calendar.categories.create({ name: 'Tree mid', parent: top.id })
    const leaf = await calendar.categories.create({ name: 'Tree leaf', parent: mid.id })
    const other = await calendar.categories.create({ name: 'Tree other' })
    const inLeaf = await event('In leaf', [leaf.id])
    const inTop = await event('In top', [top.id])
    await event('In other', [other.id])
    const ids = (list: { events: { id: number }[] }) => list.events.map((e) => e.id).sort((x, y) => x - y)
    expect(ids(await calendar.events.list({ categories: [top.id], per_page: 50 }))).toEqual([inLeaf.id, inTop.id])
    expect(ids(await calendar.events.list({ categories: [mid.id], per_page: 50 }))).toEqual([inLeaf.id])
    expect(ids(await calendar.events.list({ categories: 'tree-top', per_page: 50 }))).toEqual([inLeaf.id, inTop.id])
    // An empty list names no category: a 400, not a query the database cannot parse.
    await expect(calendar.events.list({ categories: ',' })).rejects.toMatchObject(invalid('categories'))
    await expect(calendar.events.list({ tags: [] })).rejects.toMatchObject(invalid('tags'))
  })
})

describe(`categories: GET /categories (${BACKEND})`, () => {
  let calendar: Calendar
  const id = {} as Record<'apple' | 'Banana' | 'Cherry' | 'date' | 'Empty', number>
  let eventA: number
  let eventB: number
  const names = (list: { categories: { name: string }[] }) => list.categories.map((c) => c.name)

  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: SITE })
    const cat = async (name: keyof typeof id, extra: TermInput = {}) => (id[name] = (await calendar.categories.create({ name, ...extra })).id)
    await cat('Banana', { description: 'b-desc', slug: 'yellow-fruit' })
    await cat('apple', { description: 'z-desc' })
    await cat('Cherry', { description: 'a-desc', parent: id.Banana })
    await cat('date', { description: 'm-desc' })
    await cat('Empty')
    const ev = (title: string, categories: number[], status: EventInput['status'] = 'publish') =>
      calendar.events.create({ title, status, start_date: '2027-01-15 18:00:00', end_date: '2027-01-15 20:00:00', categories })
    eventA = (await ev('A', [id.Banana!, id.Cherry!])).id
    eventB = (await ev('B', [id.Banana!, id.Cherry!, id.apple!])).id
    await ev('C', [id.Cherry!, id.date!])
    await ev('Draft', [id.Empty!], 'draft')
  })
  afterAll(() => calendar.close())

  it('returns the envelope in the contract key order; hide_empty defaults to true', async () => {
    const list = await calendar.categories.list({}, { as: null })
    expect(Object.keys(list)).toEqual(['rest_url', 'total', 'total_pages', 'categories'])
    expect(list).toMatchObject({ rest_url: `${SITE}/cal/events/v1/categories/?page=1&per_page=5`, total: 4, total_pages: 1 })
    expect(names(list)).toEqual(['apple', 'Banana', 'Cherry', 'date'])
    expect(list.categories.map((c: { count: number }) => c.count)).toEqual([1, 2, 3, 1])
    expect(names(await calendar.categories.list({ hide_empty: false }))).toEqual(['apple', 'Banana', 'Cherry', 'date', 'Empty'])
    expect(names(await calendar.categories.list({ hide_empty: '0' }))).toContain('Empty')
    await expect(calendar.categories.list({ hide_empty: 'maybe' })).rejects.toMatchObject(invalid('hide_empty'))
  })

  it('pages with next/previous URLs that echo the filters; past the end is an empty 200', async () => {
    const first = await calendar.categories.list({ per_page: 2, search: 'a' })
    expect(Object.keys(first)).toEqual(['rest_url', 'total', 'total_pages', 'categories', 'next_rest_url'])
    expect(first).toMatchObject({
      rest_url: `${SITE}/cal/events/v1/categories/?page=1&per_page=2&search=a`,
      next_rest_url: `${SITE}/cal/events/v1/categories/?page=2&per_page=2&search=a`,
      total: 3,
      total_pages: 2,
    })
    expect(names(first)).toEqual(['apple', 'Banana'])
    const second = await calendar.categories.list({ per_page: 2, page: 2, search: 'a' })
    expect(names(second)).toEqual(['date'])
    expect(second.previous_rest_url).toBe(`${SITE}/cal/events/v1/categories/?per_page=2&search=a`)
    expect(second).not.toHaveProperty('next_rest_url')
    const past = await calendar.categories.list({ per_page: 2, page: 5 })
    expect(past).toEqual({
      rest_url: `${SITE}/cal/events/v1/categories/?page=5&per_page=2`,
      total: 4,
      total_pages: 2,
      categories: [],
      previous_rest_url: `${SITE}/cal/events/v1/categories/?page=4&per_page=2`,
    })
    const none = await calendar.categories.list({ slug: 'no-such-slug' })
    expect(none).toMatchObject({ total: 0, total_pages: 0, categories: [] })
    expect(none).not.toHaveProperty('previous_rest_url')
  })

  it('searches name or slug, case-insensitively, and treats LIKE wildcards literally', async () => {
    expect(names(await calendar.categories.list({ search: 'BAN' }))).toEqual(['Banana'])
    expect(names(await calendar.categories.list({ search: 'yellow' }))).toEqual(['Banana'])
    expect(names(await calendar.categories.list({ search: '%' }))).toEqual([])
    await expect(calendar.categories.list({ search: '' })).rejects.toMatchObject(invalid('search'))
  })

  it('includes and excludes existing ids only', async () => {
    expect(names(await calendar.categories.list({ include: [id.date, id.Banana] }))).toEqual(['Banana', 'date'])
    expect(names(await calendar.categories.list({ include: `${id.date},${id.Banana}`, orderby: 'include' }))).toEqual(['date', 'Banana'])
    expect(names(await calendar.categories.list({ exclude: [id.apple, id.Cherry] }))).toEqual(['Banana', 'date'])
    const tag = await calendar.tags.create({ name: 'a tag' })
    await expect(calendar.categories.list({ include: [id.apple, 999999] })).rejects.toMatchObject(invalid('include'))
    await expect(calendar.categories.list({ exclude: [tag.id] })).rejects.toMatchObject(invalid('exclude'))
    await expect(calendar.categories.list({ include: 'x' })).rejects.toMatchObject(invalid('include'))
    // An empty list is no filter, as in the reference.
    expect((await calendar.categories.list({ include: '', exclude: ',' })).total).toBe(4)
  })

  it('orders by every documented key, ties by id ascending; unknown order/orderby are 400', async () => {
    const by = async (orderby: string, order = 'asc') => names(await calendar.categories.list({ orderby, order }))
    expect(await by('name', 'desc')).toEqual(['date', 'Cherry', 'Banana', 'apple'])
    expect(await by('id')).toEqual(['Banana', 'apple', 'Cherry', 'date'])
    expect(await by('id', 'DESC')).toEqual(['date', 'Cherry', 'apple', 'Banana'])
    expect(await by('slug')).toEqual(['apple', 'Cherry', 'date', 'Banana'])
    expect(await by('count')).toEqual(['apple', 'date', 'Banana', 'Cherry'])
    expect(await by('count', 'desc')).toEqual(['Cherry', 'Banana', 'apple', 'date'])
    expect(await by('description')).toEqual(['Cherry', 'Banana', 'date', 'apple'])
    expect(await by('term_group', 'desc')).toEqual(['Banana', 'apple', 'Cherry', 'date'])
    expect(await by('include')).toEqual(['apple', 'Banana', 'Cherry', 'date'])
    expect(await by('include_slugs')).toEqual(['apple', 'Banana', 'Cherry', 'date'])
    await expect(calendar.categories.list({ order: 'sideways' })).rejects.toMatchObject(invalid('order'))
    await expect(calendar.categories.list({ orderby: 'popularity' })).rejects.toMatchObject(invalid('orderby'))
    await expect(calendar.categories.list({ orderby: '' })).rejects.toMatchObject(invalid('orderby'))
  })

  it('filters by parent: an existing category, or 0 for the top level', async () => {
    expect(names(await calendar.categories.list({ parent: id.Banana }))).toEqual(['Cherry'])
    expect(names(await calendar.categories.list({ parent: 0 }))).toEqual(['apple', 'Banana', 'date'])
    expect(names(await calendar.categories.list({ parent: id.apple }))).toEqual([])
    await expect(calendar.categories.list({ parent: 999999 })).rejects.toMatchObject(invalid('parent'))
  })

  it('filters by the event via post or event (event wins); unknown events are 400', async () => {
    expect(names(await calendar.categories.list({ post: eventA }))).toEqual(['Banana', 'Cherry'])
    expect(names(await calendar.categories.list({ event: eventB }))).toEqual(['apple', 'Banana', 'Cherry'])
    expect(names(await calendar.categories.list({ post: eventA, event: eventB }))).toEqual(['apple', 'Banana', 'Cherry'])
    await expect(calendar.categories.list({ post: 999999 })).rejects.toMatchObject(invalid('post'))
    await expect(calendar.categories.list({ event: 999999, post: eventA })).rejects.toMatchObject(invalid('event'))
    // The unused `post` is not checked when `event` decides.
    expect(names(await calendar.categories.list({ event: eventA, post: 999999 }))).toEqual(['Banana', 'Cherry'])
  })

  it('finds the category with exactly a slug', async () => {
    expect(names(await calendar.categories.list({ slug: 'yellow-fruit' }))).toEqual(['Banana'])
    expect(names(await calendar.categories.list({ slug: 'yellow' }))).toEqual([])
  })

  it('combines filters and caps per_page at 50', async () => {
    const list = await calendar.categories.list({ search: 'e', exclude: [id.date], per_page: 500, orderby: 'count', order: 'desc' })
    // Banana matches through its slug `yellow-fruit`.
    expect(names(list)).toEqual(['Cherry', 'Banana', 'apple'])
    expect(list.rest_url).toContain('per_page=50')
  })
})
