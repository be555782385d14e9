import type { AddressInfo } from 'node:net'
import { serve, type ServerType } from '@hono/node-server'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { createFetchHandler } from '@cal-events/http-fetch'
import { freshCalendar } from '../../../test-support/test-db.js'

// A Hono app on Node serving the API through createFetchHandler under /api, beside its own routes.
describe('a Hono app mounting the calendar', () => {
  let calendar: Calendar
  let server: ServerType
  let origin: string
  let token: string
  beforeAll(async () => {
    calendar = await freshCalendar()
    token = (await calendar.tokens.create({ role: 'editor', login: 'ed' })).token
    const calendarApi = createFetchHandler(calendar, { basePath: '/api' })
    const app = new Hono()
    app.get('/', (c) => c.text('my app'))
    app.all('/api/*', (c) => calendarApi(c.req.raw, c.env))
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s))
    })
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    if (server) await new Promise((resolve) => server.close(resolve))
    await calendar?.close()
  })

  it('keeps its own routes and serves the API under /api with links that keep prefix and port', async () => {
    expect(await (await fetch(`${origin}/`)).text()).toBe('my app')
    const root = await fetch(`${origin}/api/cal/events/v1`)
    expect(root.status).toBe(200)
    const created = await fetch(`${origin}/api/cal/events/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Through Hono', start_date: '2031-05-01 10:00:00', end_date: '2031-05-01 11:00:00', status: 'publish' }),
    })
    expect(created.status).toBe(201)
    const body = (await created.json()) as { id: number; rest_url: string }
    expect(body.rest_url).toBe(`${origin}/api/cal/events/v1/events/${body.id}`)

    const list = await fetch(`${origin}/api/cal/events/v1/events?start_date=2031-05-01&end_date=2031-05-02`)
    expect(list.status).toBe(200)
    expect(list.headers.get('x-cal-total')).toBe('1')
    const tag = list.headers.get('etag')!
    const again = await fetch(`${origin}/api/cal/events/v1/events?start_date=2031-05-01&end_date=2031-05-02`, { headers: { 'if-none-match': tag } })
    expect(again.status).toBe(304)

    const feed = await fetch(`${origin}/api/cal/events/v1/events/ical?start_date=2031-05-01&end_date=2031-05-02`)
    expect(feed.headers.get('content-type')).toMatch(/^text\/calendar/)
    expect(await feed.text()).toContain('SUMMARY:Through Hono')
  })

  it('answers bad input in the calendar\'s error shape', async () => {
    const malformed = await fetch(`${origin}/api/cal/events/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"title":',
    })
    expect(malformed.status).toBe(400)
    expect(await malformed.json()).toMatchObject({ code: 'rest_invalid_json', data: { status: 400 } })
    const lost = await fetch(`${origin}/api/elsewhere`)
    expect(lost.status).toBe(404)
    expect(await lost.json()).toMatchObject({ code: 'rest_no_route' })
  })
})
