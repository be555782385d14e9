import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, EventList, EventResource } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type TestServer, venueOf } from '../../../../test-support/http.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const event = (extra: Record<string, unknown> = {}) => ({
  title: 'Smoke Event',
  start_date: '2026-12-01 10:00:00',
  end_date: '2026-12-01 12:00:00',
  ...extra,
})

describe('events over HTTP', () => {
  let calendar: Calendar
  let server: TestServer
  let admin: string
  let contributor: string
  let subscriber: string
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
    server = await startServer(calendar)
    admin = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
    contributor = (await calendar.tokens.create({ role: 'contributor', login: 'contrib' })).token
    subscriber = (await calendar.tokens.create({ role: 'subscriber', login: 'sub' })).token
  })
  afterAll(async () => {
    await server.close()
    await calendar.close()
  })

  it('creates (201), lists with headers and reads with json_ld', async () => {
    const created = await server.request<EventResource>('POST', '/events', { token: admin, body: event() })
    expect(created.status).toBe(201)
    expect(created.headers.get('content-type')).toBe('application/json; charset=UTF-8')
    expect(created.body).toMatchObject({ title: 'Smoke Event', author: expect.any(String), rest_url: `${server.base}/events/${created.body.id}` })
    expect(created.body.website).toBe(created.body.url)
    const list = await server.request<EventList>('GET', '/events?per_page=2')
    expect(list.status).toBe(200)
    expect(list.headers.get('x-cal-total')).toBe(String(list.body.total))
    expect(list.headers.get('x-cal-totalpages')).toBe(String(list.body.total_pages))
    expect(Object.keys(list.body)).toEqual(['events', 'rest_url', 'total', 'total_pages'])
    expect(list.body.rest_url).toBe(`${server.base}/events/?page=1&per_page=2`)
    const followed = await server.request('GET', list.body.rest_url.slice(server.base.length))
    expect(followed.status).toBe(200)
    const read = await server.request<EventResource>('GET', `/events/${created.body.id}`)
    expect(read.body.json_ld).toMatchObject({ '@context': 'http://schema.org', '@type': 'Event' })
    const bySlug = await server.request<EventResource>('GET', '/events/by-slug/smoke-event')
    expect(bySlug.body.id).toBe(created.body.id)
  })

  it('accepts form bodies with bracket syntax and HEAD requests', async () => {
    const raw = 'title=Form+Event&start_date=2026-12-02+10:00:00&end_date=2026-12-02+11:00:00&organizer[0][organizer]=Ann&venue[venue]=Rome+Hall&venue[city]=Rome'
    const res = await server.request<EventResource>('POST', '/events', { token: admin, raw, headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(res.status).toBe(201)
    expect(res.body.venue).toMatchObject({ venue: 'Rome Hall', city: 'Rome' })
    expect(res.body.organizer[0]!).toMatchObject({ organizer: 'Ann' })
    const head = await fetch(`${server.base}/events`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('x-cal-total')).not.toBeNull()
  })

  it('answers the framework-level errors in the contract shape', async () => {
    expect(await server.request('GET', '/nowhere')).toMatchObject({ status: 404, body: { code: 'rest_no_route', data: { status: 404 } } })
    expect(await server.request('GET', '/events/abc')).toMatchObject({ status: 404, body: { code: 'rest_no_route' } })
    expect(await server.request('PUT', '/events')).toMatchObject({ status: 404, body: { code: 'rest_no_route' } })
    const badJson = await server.request('POST', '/events', { token: admin, raw: '{"title": ', headers: { 'content-type': 'application/json' } })
    expect(badJson).toMatchObject({ status: 400, body: { code: 'rest_invalid_json', data: { status: 400 } } })
    const missing = await server.request('POST', '/events', { token: admin, body: { title: 'missing dates' } })
    expect(missing.body).toEqual({
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): start_date, end_date',
      data: { status: 400, params: ['start_date', 'end_date'] },
    })
    const badDate = await server.request('GET', '/events?start_date=notadate')
    expect(badDate.body).toEqual({
      code: 'rest_invalid_param',
      message: 'Invalid parameter(s): start_date',
      data: { status: 400, params: { start_date: 'Invalid parameter.' }, details: [] },
    })
    expect(await server.request('GET', '/events?page=999')).toMatchObject({ status: 404, body: { code: 'event-archive-page-not-found' } })
    expect(await server.request('GET', '/events', { token: 'cal_bogus' })).toMatchObject({ status: 401, body: { code: 'rest_invalid_token' } })
    expect(await server.request('GET', '/events', { headers: { authorization: 'Basic YTpi' } })).toMatchObject({ status: 401, body: { code: 'rest_invalid_token' } })
    const big = await server.request('POST', '/events', { token: admin, body: event({ description: 'x'.repeat(1_100_000) }) })
    expect(big).toMatchObject({ status: 413, body: { data: { status: 413 } } })
    expect(await server.request('GET', '/events?search=%E0%A4%A')).toMatchObject({ status: 400 })
  })

  it('checks parameters before permissions (CONTRACT 2.2)', async () => {
    expect(await server.request('POST', '/events', { body: { title: 'no dates' } })).toMatchObject({ status: 400, body: { code: 'rest_missing_callback_param' } })
    expect(await server.request('POST', '/events', { body: event() })).toMatchObject({ status: 401, body: { code: 'rest_forbidden', data: { status: 401 } } })
    expect(await server.request('POST', '/events', { token: subscriber, body: event() })).toMatchObject({ status: 403, body: { code: 'rest_forbidden' } })
    expect(await server.request('DELETE', '/events/999999')).toMatchObject({ status: 401, body: { code: 'rest_forbidden' } })
    expect(await server.request('GET', '/events?status=draft')).toMatchObject({ status: 400, body: { code: 'rest_invalid_param' } })
  })

  it('answers the event domain errors', async () => {
    expect(await server.request('GET', '/events/999999')).toMatchObject({
      status: 404,
      body: { code: 'rest-event-not-found', message: 'Event with ID 999999 does not exist.', data: { status: 404 } },
    })
    const withVenue = await server.request<EventResource>('POST', '/events', { token: admin, body: event({ title: 'Venue holder', venue: { venue: 'Some Hall' } }) })
    const venueId = venueOf(withVenue.body)?.id
    expect(await server.request('GET', `/events/${venueId}`)).toMatchObject({ status: 400, body: { code: 'rest-invalid-event-id' } })
    expect(await server.request('PATCH', `/events/${venueId}`, { token: admin, body: { title: 'x' } })).toMatchObject({ status: 400, body: { code: 'rest-invalid-event-id' } })
    expect(await server.request('POST', '/events/999999', { token: admin, body: { title: 'x' } })).toMatchObject({ status: 404, body: { code: 'rest-event-not-found' } })
    expect(await server.request('POST', '/events/by-slug/no-such-slug', { token: admin, body: { title: 'x' } })).toMatchObject({ status: 404, body: { code: 'rest-event-not-found' } })
    expect(await server.request('GET', '/events/by-slug/no-such-slug')).toMatchObject({ status: 400, body: { code: 'rest_invalid_param' } })
    expect(await server.request('DELETE', '/events/by-slug/no-such-slug', { token: admin })).toMatchObject({ status: 400, body: { code: 'rest_invalid_param' } })
    expect(await server.request('POST', '/events', { token: admin, body: event({ venue: { id: withVenue.body.id } }) })).toMatchObject({ status: 400, body: { code: 'invalid-linked-post-id' } })
    expect(await server.request('POST', '/events', { token: admin, body: event({ venue: { city: 'Nameless' } }) })).toMatchObject({ status: 400, body: { code: 'could-not-create-venue' } })
    expect(await server.request('POST', '/events', { token: admin, body: event({ organizer: [{ email: 'x@y.z' }] }) })).toMatchObject({ status: 400, body: { code: 'could-not-create-organizer' } })
    expect(await server.request('POST', '/events', { token: admin, body: event({ venue: 999999 }) })).toMatchObject({ status: 400, body: { code: 'rest_invalid_param' } })
    expect(await server.request('POST', '/events', { token: admin, body: event({ end_date: '2026-11-30 10:00:00' }) })).toMatchObject({ status: 400, body: { data: { params: { end_date: expect.any(String) } } } })

    const draft = await server.request<EventResource>('POST', '/events', { token: contributor, body: event({ title: 'Contrib draft', status: 'publish' }) })
    expect(draft.body).toMatchObject({ status: 'pending', slug: '' })
    expect(await server.request('GET', `/events/${draft.body.id}`)).toMatchObject({ status: 403, body: { code: 'event-not-accessible' } })
    expect(await server.request('GET', `/events/${draft.body.id}`, { token: contributor })).toMatchObject({ status: 200 })
    expect(await server.request('GET', `/events/${draft.body.id}`, { token: subscriber })).toMatchObject({ status: 403, body: { code: 'event-not-accessible' } })

    const victim = await server.request<EventResource>('POST', '/events', { token: admin, body: event({ title: 'To Delete' }) })
    expect(await server.request('DELETE', `/events/${victim.body.id}`, { token: contributor })).toMatchObject({ status: 403, body: { code: 'rest_forbidden' } })
    const deleted = await server.request<EventResource>('DELETE', `/events/${victim.body.id}`, { token: admin })
    expect(deleted).toMatchObject({ status: 200, body: { status: 'trash', slug: 'to-delete__trashed' } })
    expect(deleted.body.url).toBe(`${server.base.replace('/cal/events/v1', '')}/?post_type=event&p=${victim.body.id}`)
    expect(await server.request('DELETE', `/events/${victim.body.id}`, { token: admin })).toMatchObject({ status: 410, body: { code: 'event-is-in-trash' } })
    expect(await server.request('GET', `/events/${victim.body.id}`, { token: admin })).toMatchObject({ status: 403, body: { code: 'event-no-longer-available' } })
  })

  it('renames through a by-slug update and keeps absent fields', async () => {
    const created = await server.request<EventResource>('POST', '/events', { token: admin, body: event({ title: 'Slugged', featured: true, cost: ['0$', '20$', '30$'] }) })
    expect(created.body.cost).toBe('Free – 30$')
    const renamed = await server.request('PATCH', '/events/by-slug/slugged', { token: admin, body: { slug: 'new name' } })
    expect(renamed.body).toMatchObject({ id: created.body.id, slug: 'new-name', featured: true, title: 'Slugged' })
    expect(await server.request('GET', '/events/by-slug/new-name')).toMatchObject({ status: 200 })
  })
})

describe('the router mounted under a prefix', () => {
  it('serves under the prefix and writes it into rest_url', async () => {
    const calendar = await freshCalendar({ now: () => NOW })
    const server = await startServer(calendar, '/api')
    try {
      const res = await server.request<EventList>('GET', '/events')
      expect(res.status).toBe(200)
      expect(res.body.rest_url).toBe(`${server.base}/events/?page=1&per_page=5`)
      // (`/api/calendars/main/cal/events/v1` in project http-multi: the calendar of a set under its key.)
      expect(server.base).toMatch(/\/api\/(calendars\/main\/)?cal\/events\/v1$/)
    } finally {
      await server.close()
      await calendar.close()
    }
  })
})
