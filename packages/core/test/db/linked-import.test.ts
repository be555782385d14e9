import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, CalendarError, CalendarRequest, OrganizerInput, VenueInput } from '@cal-events/core'
import { BACKEND, execSql, freshCalendar, querySql, whileRefusingTitle } from '../../../../test-support/test-db.js'

/** A page of a sync walk of venues as these tests read it. */
type SyncPage = { venues: { id: number }[]; next_rest_url?: string; next_sync_token?: string }

// calendar.venues.import() / organizers.import() (issue 33): batches in transactions of set-based
// statements, every rule of a single create; checked against the database after the fact.
const NOW = new Date('2026-11-21T03:39:06Z')
const ROOT = '/cal/events/v1'

describe(`venue and organizer import (${BACKEND})`, () => {
  let calendar: Calendar
  let statements = 0
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, onQuery: () => void statements++ })
  })
  afterAll(() => calendar.close())

  const scalar = async (q: string) => Number(Object.values((await querySql(q))[0]!)[0])
  const venue = (i: number, extra: Partial<VenueInput> & { slug?: string } = {}): VenueInput & { slug?: string } => ({
    // Names repeat (as a real site's do); the slug tells the records apart.
    venue: `Hall ${i % 30}`,
    slug: `hall-${i}`,
    city: 'Leeds',
    state: 'WY',
    country: 'United States',
    status: 'publish',
    ...(i % 3 === 0 ? { geo_lat: 53.8, geo_lng: -1.55 } : {}),
    ...extra,
  })
  const N = 1200
  const venues = (n: number, bad = true): (VenueInput & { slug?: string })[] =>
    Array.from({ length: n }, (_, i) => {
      if (bad && i === 301) return venue(i, { geo_lat: 10 })
      if (bad && i === 901) return { ...venue(i), colour: 'red' } as VenueInput
      return venue(i)
    })

  const get = async (path: string, query: string) => {
    const request: CalendarRequest = { method: 'GET', path: `${ROOT}/${path}`, query, headers: {}, origin: 'http://cal.test' }
    const res = await calendar.handle(request)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body as SyncPage
  }

  it('writes every good item in batches, reports the bad ones by index, and sync sees every record', async () => {
    const first = await get('venues', 'sync=1&per_page=50')
    const progress: number[] = []
    statements = 0
    const summary = await calendar.venues.import(venues(N), { batchSize: 500, onProgress: (p) => progress.push(p.done) })
    expect(summary.errors.map((e) => [e.index, e.slug, (e.error as CalendarError).code])).toEqual([
      [301, 'hall-301', 'INVALID_PARAM'],
      [901, undefined, 'INVALID_PARAM'],
    ])
    expect(summary).toMatchObject({ done: N, created: N - 2, updated: 0, unchanged: 0, skipped: 0, failed: 2 })
    expect(progress).toEqual([500, 1000, 1200])
    // A few statements per batch of 500, not several per venue.
    expect(statements).toBeLessThan(40)
    expect(await scalar(`select count(*) from venues`)).toBe(N - 2)
    // Each item's record, by index; the slugs as given, the derived and default columns as a create writes them.
    expect(summary.ids[301]).toBeUndefined()
    const rows = await querySql<{ id: number; slug: string; title: string; stateprovince: string; show_map: boolean; geo_lat: number | null; language: string; author_id: number | null }>(
      `select id, slug, title, stateprovince, show_map, geo_lat, language, author_id, date_floating from venues where id = ${summary.ids[42]}`,
    )
    expect(rows[0]).toMatchObject({ slug: 'hall-42', title: 'Hall 12', stateprovince: 'WY', show_map: true })
    // The post columns as a single create writes them.
    const { slug: _slug, ...fields } = venue(42, { venue: 'Single Hall' })
    const single = await calendar.venues.create(fields)
    const [alone] = await querySql<{ language: string; author_id: number | null; date_floating: boolean }>(`select language, author_id, date_floating from venues where id = ${single.id}`)
    expect(rows[0]).toMatchObject(alone!)
    await calendar.venues.delete(single.id)
    await execSql(`delete from venues where id = ${single.id}`)
    expect(Number(rows[0]!.geo_lat)).toBe(53.8)
    expect(new Set(summary.ids.filter((id) => id !== undefined)).size).toBe(N - 2)
    expect(await scalar(`select count(distinct slug) from venues`)).toBe(N - 2)
    // The one answer shape: the same as `get` shows a created venue.
    const one = await calendar.venues.get(summary.ids[7]!)
    expect(one).toMatchObject({ venue: 'Hall 7', slug: 'hall-7', city: 'Leeds', status: 'publish' })
    // The change log: a sync delta from before the import lists every imported venue.
    const seen = new Set<number>()
    let page = await get('venues', `sync_token=${encodeURIComponent(first.next_sync_token!)}&per_page=500`)
    for (;;) {
      for (const v of page.venues) seen.add(v.id)
      if (!page.next_rest_url) break
      page = await get('venues', new URL(page.next_rest_url).search.slice(1))
    }
    expect(summary.ids.filter((id) => id !== undefined && !seen.has(id))).toEqual([])
  }, 120_000)

  it('re-imports idempotently: found again by slug, updated (or skipped), never duplicated, trashed ones left', async () => {
    const before = await scalar(`select count(*) from venues`)
    const trashed = await calendar.venues.getBySlug('hall-5')
    await calendar.venues.delete(trashed.id)
    const again = await calendar.venues.import(venues(N), { batchSize: 400 })
    expect(again).toMatchObject({ created: 0, updated: N - 3, skipped: 1, failed: 2 })
    expect(again.ids[5]).toBe(trashed.id)
    expect(await scalar(`select count(*) from venues`)).toBe(before)
    expect(await scalar(`select count(*) from venues where id = ${trashed.id} and status = 'trash'`)).toBe(1)
    const skip = await calendar.venues.import(venues(N, false), { existing: 'skip' })
    // The two refused before are new now; the rest is left alone.
    expect(skip).toMatchObject({ created: 2, updated: 0, unchanged: N - 3, skipped: 1 })
    const changed = await calendar.venues.import([venue(10, { city: 'York' }), venue(11)], {
      existing: (current, input) => (current.city === input.city ? 'skip' : 'update'),
    })
    expect(changed).toMatchObject({ updated: 1, unchanged: 1 })
    expect((await calendar.venues.getBySlug('hall-10')).city).toBe('York')
    expect(await scalar(`select count(*) from venues`)).toBe(before + 2)
  }, 120_000)

  it('without a slug, finds a record as create does: same name (and description when sent), within a batch too', async () => {
    const made = await calendar.organizers.create({ organizer: 'Jazz Society', email: 'old@jazz.example' })
    const items: OrganizerInput[] = [
      { organizer: 'jazz society', email: 'new@jazz.example' },
      { organizer: 'Folk Club', phone: '555-0100' },
      { organizer: 'Folk Club', phone: '555-0101' },
      { organizer: 'Folk Club', description: 'Another club of that name', phone: '555-0102' },
    ]
    const summary = await calendar.organizers.import(items)
    expect(summary).toMatchObject({ created: 2, updated: 2, failed: 0 })
    expect(summary.ids[0]).toBe(made.id)
    // The second "Folk Club" went into the next batch and found the first.
    expect(summary.ids[2]).toBe(summary.ids[1])
    expect(summary.ids[3]).not.toBe(summary.ids[1])
    expect((await calendar.organizers.get(made.id)).email).toBe('new@jazz.example')
    expect((await calendar.organizers.get(summary.ids[1]!)).phone).toBe('555-0101')
    expect(await scalar(`select count(*) from organizers`)).toBe(3)
    // Same name as a published venue, other descriptions: new records, their slugs made unique as a create's are.
    await calendar.venues.create({ venue: 'Twin Hall', status: 'publish' })
    const twin = await calendar.venues.import([
      { venue: 'Twin Hall', description: 'One', status: 'publish' },
      { venue: 'Twin Hall', description: 'Two', status: 'publish' },
    ])
    expect(twin.created).toBe(2)
    const slugs = await querySql<{ slug: string }>(`select slug from venues where id in (${twin.ids.join(',')}) order by id`)
    expect(slugs.map((r) => r.slug)).toEqual(['twin-hall-2', 'twin-hall-3'])
  })

  it('refuses what a single create refuses: no permission, unknown fields, another author, a blank name, a bad image', async () => {
    const anonymous = await calendar.venues.import([venue(5000)], { as: null })
    expect(anonymous).toMatchObject({ failed: 1, created: 0 })
    expect((anonymous.errors[0]!.error as CalendarError).code).toBe('UNAUTHENTICATED')
    await execSql(`insert into users (id, login, role) values (500, 'linked-import-other', 'editor')`)
    const author = await calendar.venues.import([venue(5001, { author: 500 })], { as: { id: 77, role: 'author' } })
    expect((author.errors[0]!.error as CalendarError).code).toBe('FORBIDDEN')
    const odd = await calendar.venues.import([
      { ...venue(5002), venue: '  ' },
      venue(5003, { image: 'not a url' } as Partial<VenueInput>),
      venue(5004, { slug: '!!!' }),
      venue(5005, { image: 'https://img.example/hall.png' } as Partial<VenueInput>),
    ])
    expect(odd.errors.map((e) => e.index)).toEqual([0, 1, 2])
    expect(odd.created).toBe(1)
    expect(await scalar(`select count(*) from venues v join images i on i.id = v.image_id where v.slug = 'hall-5005' and i.url = 'https://img.example/hall.png'`)).toBe(1)
    // A contributor's published item is scaled back to pending (no slug), as by create.
    const contributor = await calendar.organizers.import([{ organizer: 'Pending Org', status: 'publish' }], { as: { id: 78, role: 'contributor' } })
    expect(await querySql(`select status, slug, author_id from organizers where id = ${contributor.ids[0]}`)).toEqual([{ status: 'pending', slug: '', author_id: 78 }])
  })

  it('keeps the planner statistics of the table it grows from empty (as events.import does)', async () => {
    // The first import grew a never-analysed venues table to about 1,200 rows.
    const [row] = await querySql<{ n: number }>(`select reltuples::float8 as n from pg_class where oid = to_regclass('venues')`)
    expect(Number(row!.n)).toBeGreaterThanOrEqual(1000)
  })

  it('an item the database refuses fails alone: its batch is written again item by item', async () => {
    await whileRefusingTitle('venues', 'Boom', async () => {
      const batch = Array.from({ length: 10 }, (_, i) => venue(7000 + i, i === 4 ? { venue: 'Boom' } : {}))
      const summary = await calendar.venues.import(batch)
      expect(summary).toMatchObject({ created: 9, failed: 1 })
      expect(summary.errors[0]!.index).toBe(4)
      expect(await scalar(`select count(*) from venues where slug like 'hall-700_'`)).toBe(9)
    })
  })
})

describe(`venue and organizer import, variant B (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ variant: 'B', languages: ['en', 'fr'], now: () => NOW })
  })
  afterAll(() => calendar.close())

  it('writes in the call\'s language: a slug is found again in that language only', async () => {
    const en = await calendar.venues.import([{ venue: 'Opera', slug: 'opera', status: 'publish' }])
    const fr = await calendar.venues.import([{ venue: 'Opéra', slug: 'opera', status: 'publish' }], { language: 'fr' })
    expect(en.created).toBe(1)
    expect(fr.created).toBe(1)
    expect(await querySql(`select language, slug, title from venues order by id`)).toEqual([
      { language: 'en', slug: 'opera', title: 'Opera' },
      { language: 'fr', slug: 'opera', title: 'Opéra' },
    ])
    const again = await calendar.venues.import([{ venue: 'Opéra de Lyon', slug: 'opera', status: 'publish' }], { language: 'fr' })
    expect(again).toMatchObject({ created: 0, updated: 1 })
    expect(again.ids[0]).toBe(fr.ids[0])
    expect((await calendar.venues.get(fr.ids[0]!, { language: 'fr' })).venue).toBe('Opéra de Lyon')
  })
})
