import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { createCalendarRouter } from '@cal-events/http-express'
import { freshCalendar } from '../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../test-support/http.js'

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
  const json = async (res: Response | Promise<Response>): Promise<any> => (await res).json()

  it('serves the same lists under both paths at once, with the reference\'s count headers under its path', async () => {
    const ours = await get(`${server.base}/events?${window}`)
    const theirs = await get(`${wp}/events?${window}`)
    expect([ours.status, theirs.status]).toEqual([200, 200])
    const [a, b] = [await json(ours), await json(theirs)]
    expect(b.events.map((e: any) => e.id)).toEqual(a.events.map((e: any) => e.id))
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
    const first = await json(get(`${wp}/events?${window}`))
    expect(first.rest_url).toBe(`${wp}/events/?page=1&per_page=5&${window}`)
    expect(first.next_rest_url.startsWith(`${wp}/events/`)).toBe(true)
    expect(first.events[0].rest_url).toBe(`${wp}/events/${first.events[0].id}`)
    const second = await get(first.next_rest_url)
    expect(second.status).toBe(200)
    const page2 = await json(second)
    expect(page2.events).toHaveLength(2)
    expect(page2.previous_rest_url.startsWith(`${wp}/events/`)).toBe(true)
    // Our path keeps our links.
    const ours = await json(get(`${server.base}/events?${window}`))
    expect(ours.next_rest_url.startsWith(`${server.base}/events/`)).toBe(true)
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
    const app = express()
    app.use('/api', createCalendarRouter(calendar))
    const host = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s))
    })
    try {
      const base = `http://127.0.0.1:${(host.address() as AddressInfo).port}/api${WP}`
      const res = await get(`${base}/events?${window}`)
      expect(res.status).toBe(200)
      const body = (await res.json()) as { rest_url: string }
      expect(body.rest_url.startsWith(`${base}/events/`)).toBe(true)
    } finally {
      await new Promise((resolve) => host.close(resolve))
    }
  })
})
