import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, Principal } from '@cal-events/core'
import { BACKEND, freshCalendar } from '../../../../test-support/test-db.js'
import { SAMPLE_HALL } from '../../../../test-support/fixtures.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const SITE = 'http://127.0.0.1:3000'
const anonymous = { as: null }
const as = (id: number, role: Principal['role']) => ({ as: { id, role } })
const contributor = as(201, 'contributor')
const otherContributor = as(202, 'contributor')
const editor = as(301, 'editor')

describe(`venues: create, read, update, delete (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: SITE })
  })
  afterAll(() => calendar.close())

  it('creates a venue shaped like the reference sample, json_ld only on single reads', async () => {
    const created = await calendar.venues.create(SAMPLE_HALL)
    expect(Object.keys(created)).toEqual([
      'id', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'url', 'venue', 'description', 'slug',
      'address', 'city', 'country', 'state', 'zip', 'phone', 'website', 'stateprovince',
      'show_map', 'show_map_link', 'global_id', 'global_id_lineage',
    ])
    expect(created).toMatchObject({
      status: 'publish',
      date: '2026-11-21 03:39:06',
      date_utc: '2026-11-21 03:39:06',
      url: `${SITE}/venue/sample-hall/`,
      description: '<p>A sample venue.</p>',
      slug: 'sample-hall',
      stateprovince: 'IL',
      show_map: true,
      show_map_link: true,
      global_id: `127.0.0.1?id=${created.id}`,
      global_id_lineage: [`127.0.0.1?id=${created.id}`],
    })
    const read = await calendar.venues.get(created.id, anonymous)
    expect(read.json_ld).toMatchObject({
      '@type': 'Place',
      name: 'Sample Hall',
      address: { '@type': 'PostalAddress', streetAddress: '1 Main St', addressLocality: 'Springfield', addressRegion: 'IL', postalCode: '62701' },
      telephone: '555-0100',
      sameAs: 'https://example.com/hall',
    })
    const { json_ld: _jsonLd, ...withoutJsonLd } = read
    expect(withoutJsonLd).toEqual(created)
    const bySlug = await calendar.venues.getBySlug('Sample-Hall', anonymous)
    expect(bySlug.id).toBe(created.id)
    expect(bySlug).toHaveProperty('json_ld')
  })

  it('omits empty fields but always keeps show_map, show_map_link and the global ids', async () => {
    const bare = await calendar.venues.create({ venue: 'Bare Room', show_map: 'no' })
    expect(Object.keys(bare).sort()).toEqual(
      ['id', 'status', 'date', 'date_utc', 'modified', 'modified_utc', 'url', 'venue', 'slug', 'show_map', 'show_map_link', 'global_id', 'global_id_lineage'].sort(),
    )
    expect(bare).toMatchObject({ show_map: false, show_map_link: true })
    const authored = await calendar.venues.create({ venue: 'Authored Room' }, editor)
    expect(authored.author).toBe('301')
  })

  it('derives stateprovince: state for US-style addresses, else province; an explicit one wins', async () => {
    const us = await calendar.venues.create({ venue: 'Texan', state: 'TX' })
    const ca = await calendar.venues.create({ venue: 'Canuck', state: 'ON', province: 'Ontario', country: 'Canada' })
    const given = await calendar.venues.create({ venue: 'Given', state: 'TX', stateprovince: 'Custom' })
    expect([us.stateprovince, ca.stateprovince, given.stateprovince]).toEqual(['TX', 'Ontario', 'Custom'])
    const moved = await calendar.venues.update(us.id, { country: 'Mexico', province: 'Sonora' })
    expect(moved.stateprovince).toBe('Sonora')
  })

  it('de-duplicates creates by name (and description when sent), as the reference test does', async () => {
    const first = await calendar.venues.create({ venue: 'A venue', description: 'A venue description' })
    const again = await calendar.venues.create({ venue: 'A venue', description: 'A venue description' })
    const byName = await calendar.venues.create({ venue: 'a venue' })
    const withDetails = await calendar.venues.create({ venue: 'a venue', country: 'x', phone: '1' })
    expect([again.id, byName.id, withDetails.id]).toEqual([first.id, first.id, first.id])
    // The details are written onto the reused record; its name and description stay.
    expect(withDetails).toMatchObject({ venue: 'A venue', description: '<p>A venue description</p>', country: 'x', phone: '1' })
    const otherDescription = await calendar.venues.create({ venue: 'A venue', description: 'Something else' })
    expect(otherDescription.id).not.toBe(first.id)
    await calendar.venues.delete(otherDescription.id)
    const afterTrash = await calendar.venues.create({ venue: 'A venue', description: 'Something else' })
    expect(afterTrash.id).not.toBe(otherDescription.id)
  })

  it('applies create permissions after parameter rules, with status scale-back for contributors', async () => {
    await expect(calendar.venues.create({ city: 'Nowhere' }, anonymous)).rejects.toMatchObject({ code: 'MISSING_PARAM' })
    await expect(calendar.venues.create({ venue: 'X', author: 999 }, anonymous)).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    await expect(calendar.venues.create({ venue: 'X' }, anonymous)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' })
    await expect(calendar.venues.create({ venue: 'X' }, as(150, 'subscriber'))).rejects.toMatchObject({ code: 'FORBIDDEN' })
    const draft = await calendar.venues.create({ venue: 'Contributed' }, contributor)
    expect(draft).toMatchObject({ status: 'draft', author: '201', date_utc: '0000-00-00 00:00:00', url: `${SITE}/?post_type=venue&p=${draft.id}` })
    expect(draft).not.toHaveProperty('slug')
    const pending = await calendar.venues.create({ venue: 'Wants to publish', status: 'publish' }, contributor)
    expect(pending.status).toBe('pending')
    // @ts-expect-error `trash` is not a writable status
    await expect(calendar.venues.create({ venue: 'Trash', status: 'trash' })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    await expect(calendar.venues.create({ venue: 'Bad site', website: 'not a url' })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
  })

  it('takes coordinates in range and in pairs, and shows them', async () => {
    const located = await calendar.venues.create({ venue: 'Located', geo_lat: '41.9', geo_lng: 12.5 })
    expect(located).toMatchObject({ geo_lat: 41.9, geo_lng: 12.5 })
    const read = await calendar.venues.get(located.id)
    expect(read.json_ld).toMatchObject({ geo: { '@type': 'GeoCoordinates', latitude: 41.9, longitude: 12.5 } })
    expect((await calendar.venues.update(located.id, { geo_lat: -33.87, geo_lng: 151.21 })).geo_lat).toBe(-33.87)
    const bad = [
      [{ geo_lat: 41.9 }, 'geo_lng'],
      [{ geo_lng: 12.5 }, 'geo_lat'],
      [{ geo_lat: 91, geo_lng: 0 }, 'geo_lat'],
      [{ geo_lat: 0, geo_lng: -180.5 }, 'geo_lng'],
      [{ geo_lat: 'north', geo_lng: 0 }, 'geo_lat'],
    ] as const
    for (const [coords, param] of bad) {
      await expect(calendar.venues.create({ venue: 'Nowhere', ...coords })).rejects.toMatchObject({
        code: 'INVALID_PARAM',
        data: { params: { [param]: expect.any(String) } },
      })
      await expect(calendar.venues.update(located.id, coords)).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    }
    // A pair missing its partner is a parameter rule: 400 even for anonymous callers.
    await expect(calendar.venues.update(located.id, { geo_lat: 1 }, anonymous)).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    expect((await calendar.venues.list({ search: 'Nowhere' })).total).toBe(0)
  })

  it('updates partially by id and by slug, with per-item permissions', async () => {
    const venue = await calendar.venues.create({ venue: 'Old Name', city: 'Leeds', show_map: false })
    const renamed = await calendar.venues.update(venue.id, { venue: 'New Name' })
    expect(renamed).toMatchObject({ venue: 'New Name', city: 'Leeds', show_map: false, show_map_link: true, slug: 'old-name', status: 'publish' })
    const bySlug = await calendar.venues.updateBySlug('old-name', { city: 'York', description: 'Now in York' })
    expect(bySlug).toMatchObject({ id: venue.id, city: 'York', description: '<p>Now in York</p>' })
    expect(bySlug).not.toHaveProperty('json_ld')
    const cleared = await calendar.venues.update(venue.id, { city: '', description: '' })
    expect(cleared).not.toHaveProperty('city')
    expect(cleared).not.toHaveProperty('description')

    await expect(calendar.venues.update(venue.id, { venue: '' })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    await expect(calendar.venues.update(venue.id, { venue: '   ' })).rejects.toMatchObject({ code: 'COULD_NOT_UPDATE_VENUE' })
    await expect(calendar.venues.update(999999, { city: 'X' }, anonymous)).rejects.toMatchObject({ code: 'INVALID_PARAM', data: { params: { id: expect.any(String) } } })
    await expect(calendar.venues.updateBySlug('no-such-venue', { city: 'X' }, anonymous)).rejects.toMatchObject({ code: 'INVALID_PARAM', data: { params: { slug: expect.any(String) } } })
    await expect(calendar.venues.update(venue.id, { city: 'X' }, anonymous)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' })
    await expect(calendar.venues.update(venue.id, { city: 'X' }, contributor)).rejects.toMatchObject({ code: 'FORBIDDEN' })
    await expect(calendar.venues.updateBySlug('old-name', { city: 'X' }, contributor)).rejects.toMatchObject({ code: 'FORBIDDEN' })

    const own = await calendar.venues.create({ venue: 'Own Draft' }, contributor)
    expect((await calendar.venues.update(own.id, { city: 'Mine' }, contributor)).city).toBe('Mine')
    await expect(calendar.venues.update(own.id, { city: 'Theirs' }, otherContributor)).rejects.toMatchObject({ code: 'FORBIDDEN' })
    expect((await calendar.venues.update(own.id, { status: 'publish' }, editor))).toMatchObject({ status: 'publish', slug: 'own-draft' })
    // Published now: its contributor may no longer edit it (CONTRACT 3.1).
    await expect(calendar.venues.update(own.id, { city: 'Again' }, contributor)).rejects.toMatchObject({ code: 'FORBIDDEN' })
  })

  it('answers single reads per the outcome matrix of CONTRACT 9.1', async () => {
    const event = await calendar.events.create({ title: 'Not a venue', start_date: '2027-01-01 10:00:00', end_date: '2027-01-01 11:00:00' })
    const organizer = await calendar.organizers.create({ organizer: 'Not a venue either' })
    for (const id of [999999, event.id, organizer.id]) {
      await expect(calendar.venues.get(id, anonymous)).rejects.toMatchObject({ code: 'INVALID_PARAM', data: { params: { id: expect.any(String) } } })
    }
    await expect(calendar.venues.get('abc' as unknown as number)).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    await expect(calendar.venues.getBySlug('no-such-venue')).rejects.toMatchObject({ code: 'INVALID_PARAM' })

    const draft = await calendar.venues.create({ venue: 'Hidden Draft', status: 'draft' }, contributor)
    await expect(calendar.venues.get(draft.id, anonymous)).rejects.toMatchObject({ code: 'VENUE_NOT_ACCESSIBLE' })
    await expect(calendar.venues.get(draft.id, otherContributor)).rejects.toMatchObject({ code: 'VENUE_NOT_ACCESSIBLE' })
    expect((await calendar.venues.get(draft.id, contributor)).status).toBe('draft')
    expect((await calendar.venues.get(draft.id, editor)).status).toBe('draft')
    const privateVenue = await calendar.venues.create({ venue: 'Private Place', status: 'private' })
    await expect(calendar.venues.getBySlug('private-place', as(150, 'subscriber'))).rejects.toMatchObject({ code: 'VENUE_NOT_ACCESSIBLE' })
    expect((await calendar.venues.get(privateVenue.id, editor)).status).toBe('private')
  })

  it('trashes on delete, unlinks every event, and answers 410 the second time', async () => {
    const venue = await calendar.venues.create({ venue: 'Doomed Hall', city: 'Rome' })
    const event = await calendar.events.create({ title: 'At the doomed hall', start_date: '2027-03-01 10:00:00', end_date: '2027-03-01 11:00:00', venue: venue.id })
    expect(event.venue).toMatchObject({ id: venue.id })
    expect((await calendar.events.list({ venue: venue.id })).total).toBe(1)

    await expect(calendar.venues.delete(999999, anonymous)).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    await expect(calendar.venues.delete(venue.id, anonymous)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' })
    await expect(calendar.venues.delete(venue.id, contributor)).rejects.toMatchObject({ code: 'FORBIDDEN' })
    const trashed = await calendar.venues.delete(venue.id)
    expect(trashed).toMatchObject({ id: venue.id, status: 'trash', slug: 'doomed-hall__trashed', city: 'Rome', url: `${SITE}/?post_type=venue&p=${venue.id}` })
    expect(trashed).not.toHaveProperty('json_ld')

    expect((await calendar.events.get(event.id)).venue).toEqual([])
    // The link itself is gone, not just hidden: filtering events by the venue finds nothing.
    expect((await calendar.events.list({ venue: venue.id })).total).toBe(0)

    await expect(calendar.venues.delete(venue.id)).rejects.toMatchObject({ code: 'VENUE_IN_TRASH' })
    await expect(calendar.venues.get(venue.id, anonymous)).rejects.toMatchObject({ code: 'VENUE_NOT_ACCESSIBLE' })
    expect((await calendar.venues.get(venue.id, editor)).status).toBe('trash')
    await expect(calendar.venues.getBySlug('doomed-hall')).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    expect((await calendar.venues.getBySlug('doomed-hall__trashed', editor)).id).toBe(venue.id)

    // Leaving the trash gives the slug back; the event stays unlinked.
    const restored = await calendar.venues.update(venue.id, { status: 'publish' })
    expect(restored).toMatchObject({ status: 'publish', slug: 'doomed-hall' })
    expect((await calendar.events.get(event.id)).venue).toEqual([])
  })

  it('deletes by slug, with unknown slugs answered 400 before the permission check', async () => {
    const venue = await calendar.venues.create({ venue: 'Slug Target' })
    await expect(calendar.venues.deleteBySlug('no-such-venue', anonymous)).rejects.toMatchObject({ code: 'INVALID_PARAM' })
    await expect(calendar.venues.deleteBySlug('slug-target', anonymous)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' })
    expect(await calendar.venues.deleteBySlug('slug-target')).toMatchObject({ id: venue.id, status: 'trash', slug: 'slug-target__trashed' })
    await expect(calendar.venues.deleteBySlug('slug-target__trashed')).rejects.toMatchObject({ code: 'VENUE_IN_TRASH' })
  })

  it('keeps inline venue creation from events de-duplicated against the venues API', async () => {
    const venue = await calendar.venues.create({ venue: 'Shared Stage', city: 'Oslo' })
    const event = await calendar.events.create({
      title: 'Inline', start_date: '2027-04-01 10:00:00', end_date: '2027-04-01 11:00:00',
      venue: { venue: 'shared stage', zip: '0150' },
    })
    expect(event.venue).toMatchObject({ id: venue.id, city: 'Oslo', zip: '0150' })
  })
})
