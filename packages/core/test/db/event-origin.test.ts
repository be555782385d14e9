import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, Principal } from '@cal-events/core'
import { BACKEND, freshCalendar, querySql } from '../../../../test-support/test-db.js'

// The `origin_uid` extension: events remember the external id they were imported from, the id
// shows in `global_id_lineage`, and `calendar.events.getByOrigin()` finds the event again.

const NOW = new Date('2026-11-21T03:39:06Z')
const when = { start_date: '2027-03-01 18:00:00', end_date: '2027-03-01 20:00:00' }
const gid = (id: number) => `cal.example.org?id=${id}`

async function eventCount(): Promise<number> {
  const [row] = await querySql<{ n: number | string }>('select count(*) as n from events')
  return Number(row!.n)
}

describe(`events: origin_uid and getByOrigin (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: 'https://cal.example.org' })
  })
  afterAll(() => calendar.close())

  it('adds a partial unique index on (language, origin_uid)', async () => {
    const [index] = await querySql<{ indexdef: string }>(`select indexdef from pg_indexes where indexname = 'events_origin_uid'`)
    expect(index?.indexdef).toMatch(/^CREATE UNIQUE INDEX events_origin_uid ON (public\.|cal_events\.)?events USING btree \(language, origin_uid\) WHERE \(origin_uid IS NOT NULL\)$/)
  })

  it('stores the origin, shows it after the global id in global_id_lineage and finds the event by it', async () => {
    const imported = await calendar.events.create({ title: 'Imported', ...when, origin_uid: 'abc-123@feed.example.com' })
    const native = await calendar.events.create({ title: 'Native', ...when })
    expect(imported.global_id_lineage).toEqual([gid(imported.id), 'abc-123@feed.example.com'])
    expect(native.global_id_lineage).toEqual([gid(native.id)])
    expect((await calendar.events.get(imported.id)).global_id_lineage).toEqual([gid(imported.id), 'abc-123@feed.example.com'])
    const listed = await calendar.events.list({ include: [imported.id] })
    expect(listed.events[0]?.global_id_lineage).toEqual([gid(imported.id), 'abc-123@feed.example.com'])

    const found = await calendar.events.getByOrigin('abc-123@feed.example.com')
    expect(found).toMatchObject({ id: imported.id, title: 'Imported' })
    // Exact match only: case and surrounding text matter, as UIDs are opaque.
    expect(await calendar.events.getByOrigin('ABC-123@feed.example.com')).toBeUndefined()
    expect(await calendar.events.getByOrigin('abc-123')).toBeUndefined()
    expect(await calendar.events.getByOrigin('unknown')).toBeUndefined()
    await expect(calendar.events.getByOrigin('')).rejects.toMatchObject({ code: 'INVALID_PARAM' })
  })

  it('refuses a second event with the same origin and writes nothing', async () => {
    await calendar.events.create({ title: 'First', ...when, origin_uid: 'dup-1' })
    const before = await eventCount()
    await expect(
      calendar.events.create({ title: 'Second', ...when, origin_uid: 'dup-1', venue: { venue: 'Should Not Exist' } }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAM', data: { params: { origin_uid: expect.any(String) } } })
    expect(await eventCount()).toBe(before)
    expect((await calendar.venues.list({ search: 'Should Not Exist' })).total).toBe(0)
  })

  it('lets exactly one of several concurrent creates with one origin win; the others get a 400, not a 500', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => calendar.events.create({ title: `Race ${i}`, ...when, origin_uid: 'race-uid' })),
    )
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'INVALID_PARAM', data: { params: { origin_uid: expect.any(String) } } })
    }
    const [row] = await querySql<{ n: number | string }>(`select count(*) as n from events where origin_uid = 'race-uid'`)
    expect(Number(row!.n)).toBe(1)
  })

  it('sets, keeps, moves and clears the origin on update', async () => {
    const event = await calendar.events.create({ title: 'Updatable', ...when })
    const other = await calendar.events.create({ title: 'Other', ...when, origin_uid: 'taken' })
    expect((await calendar.events.update(event.id, { origin_uid: 'later' })).global_id_lineage).toEqual([gid(event.id), 'later'])
    // Absent: unchanged; its own origin again: fine.
    expect((await calendar.events.update(event.id, { title: 'Still' })).global_id_lineage).toEqual([gid(event.id), 'later'])
    expect((await calendar.events.update(event.id, { origin_uid: 'later' })).global_id_lineage).toEqual([gid(event.id), 'later'])
    await expect(calendar.events.update(event.id, { origin_uid: 'taken', title: 'Not applied' })).rejects.toMatchObject({
      code: 'INVALID_PARAM',
      data: { params: { origin_uid: expect.any(String) } },
    })
    expect(await calendar.events.get(event.id)).toMatchObject({ title: 'Still', global_id_lineage: [gid(event.id), 'later'] })
    expect((await calendar.events.getByOrigin('taken'))?.id).toBe(other.id)
    // A cleared origin is free again.
    expect((await calendar.events.update(other.id, { origin_uid: '' })).global_id_lineage).toEqual([gid(other.id)])
    expect(await calendar.events.getByOrigin('taken')).toBeUndefined()
    expect((await calendar.events.update(event.id, { origin_uid: 'taken' })).global_id_lineage).toEqual([gid(event.id), 'taken'])
    expect((await calendar.events.update(event.id, { origin_uid: null })).global_id_lineage).toEqual([gid(event.id)])
    const [row] = await querySql<{ origin_uid: string | null }>(`select origin_uid from events where id = ${event.id}`)
    expect(row?.origin_uid).toBeNull()
  })

  it('applies read rights: drafts only to those who may edit them, trashed events to editors, and a trashed origin stays taken', async () => {
    const subscriber: Principal = { id: 9001, role: 'subscriber' }
    const published = await calendar.events.create({ title: 'Public', ...when, origin_uid: 'pub' })
    await calendar.events.create({ title: 'Draft', ...when, status: 'draft', origin_uid: 'draft' })
    expect((await calendar.events.getByOrigin('pub', { as: null }))?.id).toBe(published.id)
    expect(await calendar.events.getByOrigin('draft', { as: null })).toBeUndefined()
    expect(await calendar.events.getByOrigin('draft', { as: subscriber })).toBeUndefined()
    expect(await calendar.events.getByOrigin('draft')).toMatchObject({ title: 'Draft', status: 'draft' })

    await calendar.events.delete(published.id)
    expect(await calendar.events.getByOrigin('pub', { as: null })).toBeUndefined()
    expect(await calendar.events.getByOrigin('pub')).toMatchObject({ id: published.id, status: 'trash' })
    await expect(calendar.events.create({ title: 'Again', ...when, origin_uid: 'pub' })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
  })

  it('declares origin_uid on event writes in the OpenAPI document and the root descriptor', async () => {
    const doc = await calendar.discovery.openapi()
    for (const [path, method] of [['/events', 'post'], ['/events/{id}', 'patch'], ['/events/by-slug/{slug}', 'put']] as const) {
      const body = doc.paths[path]![method]!.requestBody as { content: Record<string, { schema: { $ref: string } }> }
      const ref = body.content['application/json']!.schema.$ref
      expect(doc.components.schemas[ref.split('/').pop()!]!.properties, `${method} ${path}`).toHaveProperty('origin_uid')
    }
    const root = await calendar.discovery.describe()
    const create = root.routes['/cal/events/v1/events']!.endpoints.find((e) => e.methods.includes('POST'))
    expect(create?.args).toMatchObject({ origin_uid: { type: 'string', required: false } })
  })
})

describe(`events: origin_uid per language in variant B (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ variant: 'B', now: () => NOW, publicBaseUrl: 'https://cal.example.org' })
  })
  afterAll(() => calendar.close())

  it('allows one event per language with an origin and looks it up in the active language', async () => {
    const en = await calendar.events.create({ title: 'Concert', ...when, origin_uid: 'uid-1' })
    const es = await calendar.events.create({ title: 'Concierto', ...when, origin_uid: 'uid-1' }, { language: 'es' })
    expect(es.id).not.toBe(en.id)
    expect((await calendar.events.getByOrigin('uid-1'))?.id).toBe(en.id)
    expect((await calendar.events.getByOrigin('uid-1', { language: 'en' }))?.id).toBe(en.id)
    expect((await calendar.events.getByOrigin('uid-1', { language: 'es' }))?.id).toBe(es.id)
    await expect(calendar.events.create({ title: 'Again', ...when, origin_uid: 'uid-1' }, { language: 'es' })).rejects.toMatchObject({
      code: 'INVALID_PARAM',
    })
    // Language is fixed at creation: an update through `es` checks against the event's own language.
    expect((await calendar.events.update(en.id, { origin_uid: 'uid-1' }, { language: 'es' })).global_id_lineage).toEqual([gid(en.id), 'uid-1'])
  })

  it('shows a password-protected event only to callers who may edit it', async () => {
    const created = await calendar.events.create({ title: 'Locked', ...when, origin_uid: 'locked' })
    // Variant B takes `password` on update by id (O-23).
    const locked = await calendar.events.update(created.id, { password: 'secret' })
    expect(await calendar.events.get(locked.id, { as: null }).catch((e) => e.code)).toBe('EVENT_PASSWORD_PROTECTED')
    expect(await calendar.events.getByOrigin('locked', { as: null })).toBeUndefined()
    expect(await calendar.events.getByOrigin('locked', { as: { id: 9001, role: 'subscriber' } })).toBeUndefined()
    expect((await calendar.events.getByOrigin('locked'))?.id).toBe(locked.id)
  })
})
