import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, DescribedArg, EventList, EventResource, RootDescriptor } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type ErrorBody, type TestServer } from '../../../../test-support/http.js'

// Issue 21 item 3: with `wpCompat`, the same API is also served under the reference's path with
// its header names and links into that path, so a client written for the reference plugin works
// by changing only the host name. Off by default; both paths serve the same data at once.

const WP = '/wp-json/tribe/events/v1'
const window = 'start_date=2027-01-01&end_date=2027-12-31'

describe('the compatibility path /wp-json/tribe/events/v1', () => {
  let calendar: Calendar
  let server: TestServer
  let wp: string
  let token: string

  beforeAll(async () => {
    calendar = await freshCalendar({ wpCompat: true, cors: { origins: ['*'] } })
    server = await startServer(calendar)
    wp = server.base.replace('/cal/events/v1', WP)
    token = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
    for (let i = 1; i <= 7; i++) {
      await calendar.events.create({ title: `Talk ${i}`, status: 'publish', start_date: `2027-02-0${i} 10:00:00`, end_date: `2027-02-0${i} 11:00:00` })
    }
  })
  afterAll(async () => {
    await server?.close()
    await calendar?.close()
  })

  const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers })
  const json = async <B,>(res: Response | Promise<Response>): Promise<B> => (await res).json() as Promise<B>

  it('serves the same lists under both paths at once, with the reference\'s count headers under its path', async () => {
    const ours = await get(`${server.base}/events?${window}`)
    const theirs = await get(`${wp}/events?${window}`)
    expect([ours.status, theirs.status]).toEqual([200, 200])
    const [a, b] = [await json<EventList>(ours), await json<EventList>(theirs)]
    expect(b.events.map((e) => e.id)).toEqual(a.events.map((e) => e.id))
    expect(b.total).toBe(7)
    expect(theirs.headers.get('x-tec-total')).toBe('7')
    expect(theirs.headers.get('x-tec-totalpages')).toBe('2')
    expect(theirs.headers.get('x-cal-total')).toBeNull()
    expect(ours.headers.get('x-cal-total')).toBe('7')
    expect(ours.headers.get('x-tec-total')).toBeNull()
    // Exposed to pages on other sites too.
    const cors = await get(`${wp}/events?${window}`, { origin: 'https://reader.example' })
    expect(cors.headers.get('access-control-expose-headers')).toMatch(/X-TEC-Total/)
  })

  it('points every rest_url into the path the client used, and following them works', async () => {
    const first = await json<EventList>(get(`${wp}/events?${window}`))
    expect(first.rest_url).toBe(`${wp}/events/?page=1&per_page=5&${window}`)
    expect(first.next_rest_url!.startsWith(`${wp}/events/`)).toBe(true)
    expect(first.events[0]!.rest_url).toBe(`${wp}/events/${first.events[0]!.id}`)
    const second = await get(first.next_rest_url!)
    expect(second.status).toBe(200)
    const page2 = await json<EventList>(second)
    expect(page2.events).toHaveLength(2)
    expect(page2.previous_rest_url!.startsWith(`${wp}/events/`)).toBe(true)
    // Our path keeps our links.
    const ours = await json<EventList>(get(`${server.base}/events?${window}`))
    expect(ours.next_rest_url!.startsWith(`${server.base}/events/`)).toBe(true)
  })

  it('writes through the compatibility path, with Basic auth and a Location in that path', async () => {
    const basic = `Basic ${Buffer.from(`admin:${token}`).toString('base64')}`
    const res = await fetch(`${wp}/tags`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Compat' }) })
    expect(res.status).toBe(201)
    const tag = (await res.json()) as { id: number }
    expect(res.headers.get('location')).toBe(`${wp}/tags/${tag.id}`)
    expect((await get(`${server.base}/tags/${tag.id}`)).status).toBe(200)
    // Errors keep the contract's shape under both paths.
    const missing = await get(`${wp}/events/999999`)
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ code: 'rest-event-not-found', data: { status: 404 } })
    const nowhere = await get(`${wp}/nowhere`)
    expect(await nowhere.json()).toMatchObject({ code: 'rest_no_route' })
  })

  it('describes itself under the reference\'s namespace, with routes and links into its path', async () => {
    const root = await json<RootDescriptor>(get(wp))
    expect(root.namespace).toBe('tribe/events/v1')
    const keys = Object.keys(root.routes)
    expect(keys[0]).toBe('/tribe/events/v1')
    expect(keys).toContain('/tribe/events/v1/events/(?P<id>\\d+)')
    expect(keys.every((k) => k.startsWith('/tribe/events/v1'))).toBe(true)
    expect(Object.values(root.routes).every((r) => r.namespace === 'tribe/events/v1')).toBe(true)
    expect(root.routes['/tribe/events/v1/events']!._links!.self[0]!.href).toBe(`${wp}/events`)
    expect(root._links.up[0]!.href).toBe(wp.slice(0, -'tribe/events/v1'.length))
    expect((root.routes['/tribe/events/v1']!.endpoints[0]!.args as Record<string, DescribedArg>).namespace!.default).toBe('tribe/events/v1')
    expect((await get(`${wp}?namespace=tribe/events/v1`)).status).toBe(200)
    const other = await get(`${wp}?namespace=cal/events/v1`)
    expect(other.status).toBe(404)
    expect(await other.json()).toMatchObject({ code: 'rest_invalid_namespace' })
    // Our path keeps our namespace.
    const ours = await json<RootDescriptor>(get(server.base))
    expect(ours.namespace).toBe('cal/events/v1')
    expect(Object.keys(ours.routes)[0]).toBe('/cal/events/v1')
  })

  const basicAuth = () => `Basic ${Buffer.from(`admin:${token}`).toString('base64')}`
  const postEvent = (base: string, body: Record<string, unknown>) =>
    fetch(`${base}/events`, { method: 'POST', headers: { authorization: basicAuth(), 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const series = { status: 'publish', start_date: '2027-03-01 10:00:00', end_date: '2027-03-01 11:00:00' }

  it('ignores fields the reference does not declare, as the plugin does, and keeps declared ones checked', async () => {
    const res = await postEvent(wp, { title: 'Undeclared', ...series, some_pro_field: { nested: [1, 2] }, _EventShowMap: 'yes' })
    expect(res.status).toBe(201)
    const bad = await postEvent(wp, { title: 'Bad date', ...series, start_date: 'not a date' })
    expect(bad.status).toBe(400)
  })

  it('translates the Pro add-on\'s recurrence object to a rule where it maps, and ignores it where it does not', async () => {
    const weekly = await postEvent(wp, { title: 'Pro weekly', ...series, recurrence: { type: 'weekly', end_type: 'never' } })
    expect(weekly.status).toBe(201)
    const created = await json<EventResource>(weekly)
    const stored = await json<EventResource>(get(`${server.base}/events/${created.id}`))
    expect(stored.recurrence).toEqual(['RRULE:FREQ=WEEKLY'])
    const counted = await json<EventResource>(postEvent(wp, { title: 'Pro daily', ...series, recurrence: { type: 'Every Day', end_type: 'After', end_count: 3 } }))
    expect((await json<EventResource>(get(`${server.base}/events/${counted.id}`))).recurrence).toEqual(['RRULE:FREQ=DAILY;COUNT=3'])
    const until = await json<EventResource>(postEvent(wp, { title: 'Pro monthly', ...series, recurrence: { type: 'monthly', end_type: 'on', end: '2027-12-31', interval: 2 } }))
    expect((await json<EventResource>(get(`${server.base}/events/${until.id}`))).recurrence).toEqual(['RRULE:FREQ=MONTHLY;INTERVAL=2;UNTIL=20271231'])
    const unknown = await postEvent(wp, { title: 'Pro custom', ...series, recurrence: { type: 'Custom', custom: { type: 'Date' } } })
    expect(unknown.status).toBe(201)
    expect((await json<EventResource>(get(`${server.base}/events/${(await json<EventResource>(unknown)).id}`))).recurrence).toBeUndefined()
    // Our own path keeps its declared shape: an object there is a 400 naming recurrence.
    const ours = await fetch(`${server.base}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Ours', ...series, recurrence: { type: 'weekly', end_type: 'never' } }),
    })
    expect(ours.status).toBe(400)
    expect((await json<ErrorBody>(ours)).data.params).toHaveProperty('recurrence')
  })

  it('is off by default, and works under a host\'s mount path', async () => {
    const plain = await freshCalendar()
    const off = await startServer(plain)
    try {
      const res = await get(off.base.replace('/cal/events/v1', `${WP}/events`))
      expect(res.status).toBe(404)
      expect((await get(`${off.base}/events`)).status).toBe(200)
    } finally {
      await off.close()
      await plain.close()
    }
    const host = await startServer(calendar, '/api')
    try {
      const base = host.base.replace('/cal/events/v1', WP)
      const res = await get(`${base}/events?${window}`)
      expect(res.status).toBe(200)
      const body = (await res.json()) as { rest_url: string }
      expect(body.rest_url.startsWith(`${base}/events/`)).toBe(true)
    } finally {
      await host.close()
    }
  })
})
