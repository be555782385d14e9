import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, VenueResource } from '@cal-events/core'
import { BACKEND, execSql, freshCalendar, querySql } from '../../../../test-support/test-db.js'

// An event's relations come from the PL/pgSQL function of migration 0004. It must give exactly
// the JSON that plain correlated subqueries (the image object of `imageJson`, `v.*`/`o.*` rows,
// trashed venues and organizers left out, organizers by position, terms by name) give.
const IMAGE = (ref: string) => `(select to_json(obj) from (select i.id, i.url, i.extension, i.width, i.height from images i where i.id = ${ref}) obj)`
const REFERENCE = {
  image: IMAGE('e.image_id'),
  venue: `(select to_json(obj) from (select v.*, ${IMAGE('v.image_id')} as image from venues v where v.id = e.venue_id and v.status <> 'trash') obj)`,
  organizers: `(select coalesce(json_agg(agg), '[]') from (select o.*, ${IMAGE('o.image_id')} as image from event_organizers eo
    join organizers o on o.id = eo.organizer_id where eo.event_id = e.id and o.status <> 'trash' order by eo.position, o.id) agg)`,
  terms: `(select coalesce(json_agg(agg), '[]') from (select t.id, t.taxonomy, t.name, t.slug, t.description, t.parent_id,
    (t.count + coalesce((select sum(d.delta) from cal_term_count_deltas d where d.term_id = t.id), 0))::int as count
    from event_terms et join terms t on t.id = et.term_id where et.event_id = e.id order by t.name, t.id) agg)`,
}
// Called once for all events, as a list page does.
const FUNCTIONS = { image: 'r.image', venue: 'r.venue', organizers: 'r.organizers', terms: 'r.terms' }

describe(`event relation function (${BACKEND})`, () => {
  let calendar: Calendar

  beforeAll(async () => {
    calendar = await freshCalendar()
    const base = { start_date: '2027-05-01 10:00:00', end_date: '2027-05-01 12:00:00' }
    const full = await calendar.events.create({
      ...base,
      title: 'Everything',
      image: 'https://img.example.org/poster.jpg',
      venue: { venue: 'Hall', image: 'https://img.example.org/hall.png', geo_lat: 52.5, geo_lng: 13.4, city: 'Berlin' },
      organizer: [{ organizer: 'Zeta Org', image: 'https://img.example.org/zeta.png' }, { organizer: 'Alpha Org', email: 'a@example.org' }],
      categories: ['Music', 'Art'],
      tags: ['zebra', 'apple', 'mango'],
    })
    await execSql(`update images set width = 640, height = 480 where url like '%poster.jpg'`)
    await calendar.events.create({ ...base, title: 'Bare' })
    const shared = await calendar.events.create({
      ...base,
      title: 'Trashed links',
      venue: { venue: 'Gone soon' },
      organizer: [full.organizer[0]!.id, { organizer: 'Gone org' }],
      categories: ['Music'],
    })
    await calendar.venues.delete((shared.venue as VenueResource).id)
    await calendar.organizers.delete(shared.organizer[1]!.id)
    await calendar.events.create({ ...base, title: 'Draft with links', status: 'draft', venue: (full.venue as VenueResource).id, tags: ['apple'] })
  })
  afterAll(() => calendar.close())

  it('gives the same JSON as correlated subqueries, for every event', async () => {
    const columns = Object.keys(REFERENCE) as (keyof typeof REFERENCE)[]
    const select = columns.map((c) => `${REFERENCE[c]}::text as ref_${c}, ${FUNCTIONS[c]}::text as fn_${c}`).join(', ')
    const rows = await querySql<Record<string, string | null>>(
      `select e.title, ${select} from events e left join cal_event_relations(array(select id from events)) r on r.event_id = e.id order by e.id`,
    )
    expect(rows).toHaveLength(4)
    for (const row of rows) for (const c of columns) expect(row[`fn_${c}`], `${row.title} ${c}`).toBe(row[`ref_${c}`])
    // The fixture covers what it should: images, both organizers, trashed links left out.
    const full = rows.find((r) => r.title === 'Everything')!
    expect(JSON.parse(full.fn_image!)).toMatchObject({ width: 640, height: 480 })
    expect(JSON.parse(full.fn_venue!).image).toMatchObject({ extension: 'png' })
    expect(JSON.parse(full.fn_organizers!).map((o: { title: string }) => o.title)).toEqual(['Zeta Org', 'Alpha Org'])
    expect(JSON.parse(full.fn_terms!).map((t: { name: string }) => t.name).sort()).toEqual(['Art', 'Music', 'apple', 'mango', 'zebra'])
    const trashed = rows.find((r) => r.title === 'Trashed links')!
    expect(trashed.fn_venue).toBeNull()
    expect(JSON.parse(trashed.fn_organizers!)).toHaveLength(1)
  })

  it('serves the API: a read shows the relations', async () => {
    const [row] = await querySql<{ id: number }>(`select id from events where title = 'Everything'`)
    const event = await calendar.events.get(row!.id)
    expect((event.venue as VenueResource).venue).toBe('Hall')
    expect(event.organizer.map((o) => o.organizer)).toEqual(['Zeta Org', 'Alpha Org'])
    expect(event.categories.map((c) => c.name).sort()).toEqual(['Art', 'Music'])
  })
})
