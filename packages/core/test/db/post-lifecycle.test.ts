import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { BACKEND, freshCalendar } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const anonymous = { as: null }
const contributor = { as: { id: 201, role: 'contributor' as const } }
// The three resources through one shape, to run the same steps on each.
type Post = { id: number; slug?: string; status: string; date_utc: string }
type ScriptApi = { create(i: object, o?: object): Promise<Post>; update(id: number, i: object): Promise<Post>; delete(id: number): Promise<Post> }
const WHEN = { start_date: '2027-01-15 18:00:00', end_date: '2027-01-15 21:30:00' }

// One post lifecycle serves events, venues and organizers (issue 14 item 1): what one of them
// does from the trash and back, all of them do.
describe(`post lifecycle shared by events, venues and organizers (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: 'http://127.0.0.1:3000' })
  })
  afterAll(() => calendar.close())

  const kinds = () =>
    [
      { name: 'event', api: calendar.events, body: (title: string) => ({ title, ...WHEN }) },
      { name: 'venue', api: calendar.venues, body: (title: string) => ({ venue: title }) },
      { name: 'organizer', api: calendar.organizers, body: (title: string) => ({ organizer: title }) },
    ] as const

  it('gives the slug back when a trashed item is restored, for every post type', async () => {
    for (const kind of kinds()) {
      const api: ScriptApi = kind.api
      const created = await api.create(kind.body(`Restore me ${kind.name}`))
      expect(created.slug).toBe(`restore-me-${kind.name}`)
      const trashed = await api.delete(created.id)
      expect([trashed.status, trashed.slug]).toEqual(['trash', `restore-me-${kind.name}__trashed`])
      const restored = await api.update(created.id, { status: 'publish' })
      expect([kind.name, restored.status, restored.slug]).toEqual([kind.name, 'publish', `restore-me-${kind.name}`])
    }
  })

  it('makes the given-back slug unique when another item took it meanwhile, for every post type', async () => {
    for (const kind of kinds()) {
      const api: ScriptApi = kind.api
      const first = await api.create(kind.body(`Taken ${kind.name}`))
      await api.delete(first.id)
      // A venue/organizer create reuses a same-named record; only a trashed one does not block.
      const second = await api.create(kind.body(`Taken ${kind.name}`))
      expect(second.id).not.toBe(first.id)
      expect(second.slug).toBe(`taken-${kind.name}`)
      const restored = await api.update(first.id, { status: 'publish' })
      expect([kind.name, restored.slug]).toEqual([kind.name, `taken-${kind.name}-2`])
    }
  })

  it('scales the status back the same way for every post type', async () => {
    for (const kind of kinds()) {
      const api: ScriptApi = kind.api
      const pending = await api.create({ ...kind.body(`Pending ${kind.name}`), status: 'publish' }, contributor)
      expect([kind.name, pending.status, pending.slug ?? '', pending.date_utc]).toEqual([kind.name, 'pending', '', '0000-00-00 00:00:00'])
      const future = await api.create({ ...kind.body(`Future ${kind.name}`), status: 'publish', date_utc: '2027-02-01 00:00:00' })
      expect([kind.name, future.status, future.slug]).toEqual([kind.name, 'future', `future-${kind.name}`])
      // An undated draft takes the moment it goes public as its date.
      const published = await api.update(pending.id, { status: 'publish' })
      expect([kind.name, published.status, published.slug, published.date_utc]).toEqual([
        kind.name, 'publish', `pending-${kind.name}`, '2026-11-21 03:39:06',
      ])
    }
  })
})

describe(`inline venues and organizers are checked like POST /venues, before the permission check (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
  })
  afterAll(() => calendar.close())

  async function counts() {
    const [events, venues, organizers] = await Promise.all([
      calendar.events.list({ status: 'publish,draft,pending,private,future,trash', start_date: '1970-01-01', per_page: 1 }),
      calendar.venues.list({ per_page: 1 }),
      calendar.organizers.list({ per_page: 1 }),
    ])
    return [events.total, venues.total, organizers.total]
  }

  it('answers a lone geo_lat with 400 like POST /venues, for anonymous and contributors alike', async () => {
    const before = await counts()
    await expect(calendar.venues.create({ venue: 'Half Place', geo_lat: 10 }, anonymous)).rejects.toMatchObject({
      code: 'INVALID_PARAM',
      data: { params: { geo_lng: 'geo_lng must come with geo_lat.' } },
    })
    for (const who of [anonymous, contributor]) {
      await expect(calendar.events.create({ title: 'Half', ...WHEN, venue: { venue: 'Half Place', geo_lat: 10 } }, who)).rejects.toMatchObject({
        code: 'INVALID_PARAM',
        data: {
          params: { venue: 'geo_lng: geo_lng must come with geo_lat.' },
          details: { venue: { code: 'rest_invalid_param', data: { status: 400, params: { geo_lng: 'geo_lng must come with geo_lat.' } } } },
        },
      })
    }
    expect(await counts()).toEqual(before)
  })

  it('reports an unknown image id inside an inline venue or organizer under venue/organizer', async () => {
    const before = await counts()
    await expect(calendar.events.create({ title: 'Pic', ...WHEN, venue: { venue: 'Pic Place', image: 987654 } }, anonymous)).rejects.toMatchObject({
      code: 'INVALID_PARAM',
      data: { params: { venue: 'image: Invalid parameter.' } },
    })
    const error = await calendar.events.create({ title: 'Pic', ...WHEN, organizer: [{ organizer: 'Pic Org', image: 987654 }] }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'INVALID_PARAM', data: { params: { organizer: 'image: Invalid parameter.' } } })
    expect(Object.keys((error as { data: { params: object } }).data.params)).toEqual(['organizer'])
    await expect(calendar.events.create({ title: 'Who', ...WHEN, venue: { venue: 'Who Place', author: 424242 } })).rejects.toMatchObject({
      code: 'INVALID_PARAM',
      data: { params: { venue: 'author: Invalid parameter.' } },
    })
    expect(await counts()).toEqual(before)
  })

  it('still creates valid inline records', async () => {
    const event = await calendar.events.create({ title: 'Fine', ...WHEN, venue: { venue: 'Fine Place', geo_lat: 1, geo_lng: 2 } })
    expect(event.venue).toMatchObject({ venue: 'Fine Place', geo_lat: 1, geo_lng: 2 })
  })
})
