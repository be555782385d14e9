import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, EventResource, VenueList, VenueResource } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type ErrorBody, type TestServer } from '../../../../test-support/http.js'
import { SAMPLE_HALL } from '../../../../test-support/fixtures.js'

const NOW = new Date('2026-11-21T03:39:06Z')

describe('venues over HTTP', () => {
  let calendar: Calendar
  let server: TestServer
  let admin: string
  let contributor: string
  let hallId: number
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
    server = await startServer(calendar)
    admin = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
    contributor = (await calendar.tokens.create({ role: 'contributor', login: 'contrib' })).token
  })
  afterAll(async () => {
    await server.close()
    await calendar.close()
  })

  it('creates (201) the sample venue and reads it by id and slug with json_ld', async () => {
    const created = await server.request<VenueResource>('POST', '/venues', { token: admin, body: SAMPLE_HALL })
    expect(created.status).toBe(201)
    expect(created.headers.get('content-type')).toBe('application/json; charset=UTF-8')
    expect(created.headers.get('x-cal-total')).toBeNull()
    hallId = created.body.id
    // The site: the server's origin, and its mount in project http-multi (a calendar of a set).
    const origin = server.base.slice(0, -'/cal/events/v1'.length)
    expect(created.body).toMatchObject({
      author: expect.stringMatching(/^\d+$/),
      status: 'publish',
      url: `${origin}/venue/sample-hall/`,
      venue: 'Sample Hall',
      stateprovince: 'IL',
      show_map: true,
      show_map_link: true,
      global_id: `${origin.replace(/^http:\/\/|:\d+/g, '')}?id=${hallId}`,
    })
    expect(created.body).not.toHaveProperty('json_ld')
    const read = await server.request<VenueResource>('GET', `/venues/${hallId}`)
    expect(read.status).toBe(200)
    expect(read.body.json_ld).toMatchObject({ '@type': 'Place', name: 'Sample Hall' })
    const bySlug = await server.request('GET', '/venues/by-slug/sample-hall')
    expect(bySlug.body).toEqual(read.body)
    const again = await server.request('POST', '/venues', { token: admin, body: { venue: 'SAMPLE HALL', zip: '62702' } })
    expect(again.status).toBe(201)
    expect(again.body).toMatchObject({ id: hallId, zip: '62702' })
  })

  it('lists in the envelope with X-Cal headers and followable links', async () => {
    for (const name of ['Second Venue', 'Third Venue']) {
      expect((await server.request('POST', '/venues', { token: admin, body: { venue: name } })).status).toBe(201)
    }
    const list = await server.request<VenueList>('GET', '/venues?per_page=2')
    expect(list.status).toBe(200)
    expect(list.headers.get('x-cal-total')).toBe('3')
    expect(list.headers.get('x-cal-totalpages')).toBe('2')
    expect(Object.keys(list.body)).toEqual(['venues', 'rest_url', 'next_rest_url', 'total', 'total_pages'])
    expect(list.body).toMatchObject({ total: 3, total_pages: 2, rest_url: `${server.base}/venues/?page=1&per_page=2` })
    const next = await server.request<VenueList>('GET', list.body.next_rest_url!.slice(server.base.length))
    expect(next.status).toBe(200)
    expect(next.body.venues.map((v) => v.venue)).toEqual(['Sample Hall'])
    expect(next.body.previous_rest_url).toBe(`${server.base}/venues/?per_page=2`)
    const empty = await server.request('GET', '/venues?search=nothing%20here')
    expect(empty.status).toBe(200)
    expect(empty.headers.get('x-cal-total')).toBe('0')
    expect(empty.headers.get('x-cal-totalpages')).toBe('0')
    expect(empty.body).toEqual({ venues: [], rest_url: `${server.base}/venues/?page=1&per_page=5&search=nothing%20here`, total: 0, total_pages: 0 })
  })

  it('answers errors in the contract shape', async () => {
    const pastEnd = await server.request('GET', '/venues?page=9')
    expect(pastEnd.status).toBe(404)
    expect(pastEnd.body).toEqual({ code: 'venue-archive-page-not-found', message: expect.any(String), data: { status: 404 } })

    const badSearch = await server.request('GET', '/venues?search[]=a&search[]=b')
    expect(badSearch.status).toBe(400)
    expect(badSearch.body).toEqual({ code: 'archive-bad-search-string', message: expect.any(String), data: { status: 400 } })
    const emptySearch = await server.request('GET', '/venues?search=')
    expect(emptySearch.body).toMatchObject({ code: 'rest_invalid_param', data: { status: 400, params: { search: expect.any(String) }, details: [] } })

    const unknownEvent = await server.request('GET', '/venues?event=999999')
    expect(unknownEvent.body).toMatchObject({ code: 'rest_invalid_param', data: { status: 400, params: { event: expect.any(String) } } })

    expect((await server.request('GET', '/venues/abc')).body).toMatchObject({ code: 'rest_no_route', data: { status: 404 } })
    const unknown = await server.request('GET', '/venues/999999')
    expect(unknown.status).toBe(400)
    expect(unknown.body).toEqual({ code: 'rest_invalid_param', message: 'Invalid parameter(s): id', data: { status: 400, params: { id: expect.any(String) }, details: [] } })
    expect((await server.request('GET', '/venues/by-slug/nothing-here')).body).toMatchObject({ code: 'rest_invalid_param', data: { params: { slug: expect.any(String) } } })

    const missing = await server.request('POST', '/venues', { body: { city: 'Nowhere' } })
    expect(missing.status).toBe(400)
    expect(missing.body).toEqual({ code: 'rest_missing_callback_param', message: expect.any(String), data: { status: 400, params: ['venue'] } })
    expect((await server.request('POST', '/venues', { body: { venue: 'Anon' } })).status).toBe(401)

    const geo = await server.request('POST', '/venues', { token: admin, body: { venue: 'Half located', geo_lat: 10 } })
    expect(geo.body).toMatchObject({ code: 'rest_invalid_param', data: { status: 400, params: { geo_lng: expect.any(String) } } })
  })

  it('refuses anonymous deletes (401, unknown ids 400), trashes once and answers 410 after', async () => {
    const anonymousDelete = await server.request('DELETE', `/venues/${hallId}`)
    expect(anonymousDelete.status).toBe(401)
    expect(anonymousDelete.body).toEqual({ code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 401 } })
    const forbidden = await server.request('DELETE', `/venues/${hallId}`, { token: contributor })
    expect(forbidden.status).toBe(403)
    expect(forbidden.body).toMatchObject({ code: 'rest_forbidden', data: { status: 403 } })
    const unknown = await server.request<ErrorBody>('DELETE', '/venues/999999')
    expect(unknown.status).toBe(400)
    expect(unknown.body.code).toBe('rest_invalid_param')

    const event = await server.request<EventResource>('POST', '/events', {
      token: admin,
      body: { title: 'At the hall', start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 11:00:00', venue: hallId },
    })
    expect(event.body.venue).toMatchObject({ id: hallId })
    const deleted = await server.request('DELETE', `/venues/${hallId}`, { token: admin })
    expect(deleted.status).toBe(200)
    expect(deleted.body).toMatchObject({ id: hallId, status: 'trash', slug: 'sample-hall__trashed' })
    expect((await server.request<EventResource>('GET', `/events/${event.body.id}`)).body.venue).toEqual([])
    const again = await server.request('DELETE', `/venues/${hallId}`, { token: admin })
    expect(again.status).toBe(410)
    expect(again.body).toEqual({ code: 'venue-is-in-trash', message: expect.any(String), data: { status: 410 } })
    const anonRead = await server.request('GET', `/venues/${hallId}`)
    expect(anonRead.status).toBe(403)
    expect(anonRead.body).toEqual({ code: 'venue-not-accessible', message: expect.any(String), data: { status: 403 } })
    expect((await server.request<VenueResource>('GET', `/venues/${hallId}`, { token: admin })).body.status).toBe('trash')
  })

  it('updates with POST, PUT and PATCH by id and by slug, from JSON and form bodies', async () => {
    const created = await server.request<VenueResource>('POST', '/venues', { token: admin, body: { venue: 'Update Me', city: 'Leeds' } })
    const id = created.body.id
    const put = await server.request('PUT', `/venues/${id}`, { token: admin, body: { zip: 'LS1' } })
    expect(put.status).toBe(200)
    expect(put.body).toMatchObject({ city: 'Leeds', zip: 'LS1' })
    const patch = await server.request('PATCH', '/venues/by-slug/update-me', { token: admin, body: { phone: '0113' } })
    expect(patch.body).toMatchObject({ id, city: 'Leeds', zip: 'LS1', phone: '0113' })
    const form = await server.request('POST', `/venues/${id}`, {
      token: admin,
      raw: 'city=York&show_map=0&geo_lat=53.96&geo_lng=-1.08',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(form.status).toBe(200)
    expect(form.body).toMatchObject({ city: 'York', show_map: false, show_map_link: true, geo_lat: 53.96, geo_lng: -1.08 })
    const anonUnknown = await server.request('PATCH', '/venues/999999', { body: { city: 'X' } })
    expect(anonUnknown.status).toBe(400)
    expect((await server.request('PATCH', `/venues/${id}`, { body: { city: 'X' } })).status).toBe(401)
  })
})
