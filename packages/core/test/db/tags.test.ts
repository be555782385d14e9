import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, Principal } from '@cal-events/core'
import { BACKEND, freshCalendar } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const SITE = 'http://127.0.0.1:3000'
const AUTHOR: Principal = { id: 5, role: 'author' }
const EDITOR: Principal = { id: 7, role: 'editor' }
const invalid = (param: string) => ({ code: 'INVALID_PARAM', data: { params: { [param]: expect.any(String) } } })
const eventDates = { start_date: '2027-01-15 18:00:00', end_date: '2027-01-15 20:00:00' }

describe(`tags: writes and list (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: SITE })
  })
  afterAll(() => calendar.close())

  it('creates a tag in the reference shape: no parent key, post_tag, /tag/ url', async () => {
    const tag = await calendar.tags.create({ name: 'Sample Tag', description: 'Tag desc' }, { as: EDITOR })
    expect(tag).toEqual({
      id: tag.id,
      count: 0,
      description: 'Tag desc',
      name: 'Sample Tag',
      slug: 'sample-tag',
      taxonomy: 'post_tag',
      meta: [],
      url: `${SITE}/tag/sample-tag/`,
      urls: { self: `${SITE}/cal/events/v1/tags/${tag.id}`, collection: `${SITE}/cal/events/v1/tags` },
    })
    expect(await calendar.tags.get(tag.id, { as: null })).toEqual(tag)
  })

  it('needs an editor: authors get 403, anonymous callers 401', async () => {
    await expect(calendar.tags.create({ name: 'By author' }, { as: AUTHOR })).rejects.toMatchObject({ code: 'FORBIDDEN' })
    await expect(calendar.tags.create({ name: 'By nobody' }, { as: null })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' })
    const tag = await calendar.tags.create({ name: 'Editor tag' }, { as: EDITOR })
    await expect(calendar.tags.update(tag.id, { name: 'x' }, { as: AUTHOR })).rejects.toMatchObject({ code: 'FORBIDDEN' })
    await expect(calendar.tags.delete(tag.id, { as: AUTHOR })).rejects.toMatchObject({ code: 'FORBIDDEN' })
    expect(await calendar.tags.update(tag.id, { name: 'Editor tag 2' }, { as: EDITOR })).toMatchObject({ name: 'Editor tag 2' })
    expect(await calendar.tags.delete(tag.id, { as: EDITOR })).toMatchObject({ id: tag.id, name: 'Editor tag 2' })
  })

  it('refuses parent with rest_taxonomy_not_hierarchical, even 0, after the permission check', async () => {
    await expect(calendar.tags.create({ name: 'Child tag', parent: 0 })).rejects.toMatchObject({ code: 'TAXONOMY_NOT_HIERARCHICAL' })
    await expect(calendar.tags.create({ name: 'Child tag', parent: 'abc' })).rejects.toMatchObject({ code: 'TAXONOMY_NOT_HIERARCHICAL' })
    await expect(calendar.tags.create({ name: 'Child tag', parent: 3 }, { as: null })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' })
    const tag = await calendar.tags.create({ name: 'Flat tag' })
    await expect(calendar.tags.update(tag.id, { parent: tag.id, name: 'Renamed' })).rejects.toMatchObject({ code: 'TAXONOMY_NOT_HIERARCHICAL' })
    expect(await calendar.tags.get(tag.id)).toMatchObject({ name: 'Flat tag' })
    expect((await calendar.tags.list({ search: 'Child tag', hide_empty: false })).total).toBe(0)
  })

  it('refuses a name any tag has, case-insensitively, and keeps slugs unique', async () => {
    const first = await calendar.tags.create({ name: 'Outdoor' })
    await expect(calendar.tags.create({ name: 'OUTDOOR' })).rejects.toMatchObject({ code: 'TERM_EXISTS', data: { term_id: first.id } })
    // A category of that name is no clash.
    await calendar.categories.create({ name: 'Outdoor' })
    expect((await calendar.tags.create({ name: 'Outdoors', slug: 'outdoor' })).slug).toBe('outdoor-2')
    const other = await calendar.tags.create({ name: 'Indoor' })
    await expect(calendar.tags.update(other.id, { slug: 'outdoor' })).rejects.toMatchObject({ code: 'DUPLICATE_TERM_SLUG' })
  })

  it('answers unknown ids and category ids with 400 on id; a second delete too', async () => {
    const category = await calendar.categories.create({ name: 'Cat not tag' })
    await expect(calendar.tags.get(category.id)).rejects.toMatchObject(invalid('id'))
    await expect(calendar.tags.delete(category.id, { as: null })).rejects.toMatchObject(invalid('id'))
    const tag = await calendar.tags.create({ name: 'Twice deleted' })
    await calendar.tags.delete(tag.id)
    await expect(calendar.tags.delete(tag.id)).rejects.toMatchObject(invalid('id'))
    await expect(calendar.tags.update(tag.id, { name: 'gone' })).rejects.toMatchObject(invalid('id'))
  })

  it('lists tags with the tags envelope; parent is not a tag parameter', async () => {
    const used = await calendar.tags.create({ name: 'zz used' })
    const ev = await calendar.events.create({ title: 'Tagged', ...eventDates, tags: [used.id, 'zz implicit'] })
    const list = await calendar.tags.list({ search: 'zz', parent: 999999 })
    expect(Object.keys(list)).toEqual(['rest_url', 'total', 'total_pages', 'tags'])
    expect(list.tags.map((t: { name: string }) => t.name)).toEqual(['zz implicit', 'zz used'])
    expect(list.tags[0]).not.toHaveProperty('parent')
    // Undeclared parameters are not echoed (issue 15 item 12).
    expect(list.rest_url).toBe(`${SITE}/cal/events/v1/tags/?page=1&per_page=5&search=zz`)
    expect((await calendar.tags.list({ event: ev.id })).total).toBe(2)
    // A deleted tag disappears from the event.
    await calendar.tags.delete(used.id)
    expect((await calendar.events.get(ev.id)).tags.map((t: { name: string }) => t.name)).toEqual(['zz implicit'])
  })
})

describe(`terms in variant B (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ variant: 'B', now: () => NOW, publicBaseUrl: SITE })
  })
  afterAll(() => calendar.close())

  const names = (list: object, key: 'categories' | 'tags') => (list as Record<string, { name: string }[]>)[key]!.map((t) => t.name)

  it('lists only terms of the active language; reads by id are not filtered', async () => {
    const en = await calendar.categories.create({ name: 'Music' })
    const es = await calendar.categories.create({ name: 'Música', slug: 'music' }, { language: 'es' })
    // Same slug in another language is no clash (CONTRACT 15.4).
    expect(es.slug).toBe('music')
    const esTag = await calendar.tags.create({ name: 'Gratis' }, { language: 'es' })
    await calendar.tags.create({ name: 'Free' })
    expect(names(await calendar.categories.list({ hide_empty: false }), 'categories')).toEqual(['Music'])
    expect(names(await calendar.categories.list({ hide_empty: false }, { language: 'es' }), 'categories')).toEqual(['Música'])
    expect(names(await calendar.tags.list({ hide_empty: false }, { language: 'es' }), 'tags')).toEqual(['Gratis'])
    expect(names(await calendar.tags.list({ hide_empty: false, ml_language: 'en' }), 'tags')).toEqual(['Free'])
    expect(await calendar.categories.get(es.id)).toMatchObject({ name: 'Música' })
    expect(await calendar.tags.get(esTag.id, { language: 'en' })).toMatchObject({ name: 'Gratis' })
    expect(await calendar.categories.get(en.id, { language: 'es' })).toMatchObject({ name: 'Music' })
    await expect(calendar.categories.list({ ml_language: 'fr' })).rejects.toMatchObject(invalid('ml_language'))
    // The default page size of variant B is 10.
    expect((await calendar.categories.list({ hide_empty: false })).rest_url).toContain('per_page=10')
  })

  it('checks name clashes per language and keeps the language on update', async () => {
    await calendar.categories.create({ name: 'Teatro' }, { language: 'es' })
    await expect(calendar.categories.create({ name: 'teatro' }, { language: 'es' })).rejects.toMatchObject({ code: 'TERM_EXISTS' })
    const en = await calendar.categories.create({ name: 'Teatro' }, { language: 'en' })
    expect(en.slug).toBe('teatro')
    await calendar.categories.update(en.id, { description: 'updated in es' }, { language: 'es' })
    const enList = await calendar.categories.list({ hide_empty: false, search: 'teatro' })
    expect(enList.categories).toEqual([expect.objectContaining({ id: en.id, description: 'updated in es' })])
  })

  it('gives terms created through an event the active language and counts them there', async () => {
    await calendar.events.create({ title: 'Concierto', ...eventDates, categories: ['Conciertos'], tags: ['noche'] }, { language: 'es' })
    const es = await calendar.categories.list({ search: 'Conciertos' }, { language: 'es' })
    expect(es.categories).toEqual([expect.objectContaining({ name: 'Conciertos', count: 1 })])
    expect((await calendar.categories.list({ search: 'Conciertos' })).total).toBe(0)
    expect(names(await calendar.tags.list({}, { language: 'es' }), 'tags')).toEqual(['noche'])
  })
})
