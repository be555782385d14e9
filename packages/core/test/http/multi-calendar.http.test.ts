import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCalendars, type Calendars } from '@cal-events/core'
import { scratchDatabase } from '../../../../test-support/scratch-db.js'
import { ADAPTER, manyHandler } from '../../../../test-support/http.js'

// Many calendars behind one router (docs/multi-calendar.md): the adapter's resolver picks the
// calendar of each request from its mount (`/groups/:key`), every link keeps that mount, an unknown
// key is a 404 and a malformed one a 400 in the contract's error shape, and nothing of one
// calendar answers under another's key.

let calendars: Calendars
let server: Server
let origin = ''
let dropScratch = async () => {}
const tokens: Record<string, string> = {}

beforeAll(async () => {
  const scratch = scratchDatabase(`many_${ADAPTER}_${process.env.VITEST_POOL_ID ?? 0}`)
  await scratch.create()
  dropScratch = scratch.drop
  calendars = await createCalendars({ database: { url: scratch.url, poolSize: 3 }, wpCompat: true })
  for (const key of ['chess', 'go-club']) {
    const calendar = await calendars.create(key)
    tokens[key] = (await calendar.tokens.create({ role: 'editor', login: `ed-${key}` })).token
  }
  server = await new Promise<Server>((resolve) => {
    const s = createServer(manyHandler(calendars, '/groups/:key')).listen(0, '127.0.0.1', () => resolve(s))
  })
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()))
  await calendars?.close()
  await dropScratch()
})

async function call(method: string, path: string, init: { body?: unknown; token?: string } = {}) {
  const headers: Record<string, string> = {}
  if (init.token) headers.authorization = `Bearer ${init.token}`
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(`${origin}${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) })
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined }
}

const EVENT = { title: 'Blitz', start_date: '2027-03-01 19:00:00', end_date: '2027-03-01 22:00:00', status: 'publish' }

describe(`one router, many calendars (${ADAPTER})`, () => {
  it("serves each calendar under its key, every link keeping the calendar's mount", async () => {
    const created = await call('POST', '/groups/chess/cal/events/v1/events', { body: EVENT, token: tokens.chess })
    expect(created.status).toBe(201)
    expect(created.body.rest_url).toBe(`${origin}/groups/chess/cal/events/v1/events/${created.body.id}`)
    // Site links and global ids sit under the calendar's mount: two calendars' ids never meet.
    expect(created.body.url).toBe(`${origin}/groups/chess/event/blitz/`)
    expect(created.body.global_id).toBe(`127.0.0.1/groups/chess?id=${created.body.id}`)
    const list = await call('GET', '/groups/chess/cal/events/v1/events?per_page=1')
    expect(list.status).toBe(200)
    expect(list.body.rest_url).toBe(`${origin}/groups/chess/cal/events/v1/events/?page=1&per_page=1`)
    expect(list.body.events[0].title).toBe('Blitz')
    const root = await call('GET', '/groups/go-club/cal/events/v1')
    expect(JSON.stringify(root.body)).toContain(`${origin}/groups/go-club/cal/events/v1`)
    expect(JSON.stringify(root.body)).not.toContain('/groups/chess')
    // The WordPress path under the same prefix.
    const wp = await call('GET', '/groups/chess/wp-json/tribe/events/v1/events')
    expect(wp.status).toBe(200)
    expect(wp.headers.get('x-tec-total')).toBe('1')
    expect(wp.body.rest_url).toContain('/groups/chess/wp-json/tribe/events/v1/events')
  })

  it('nothing of one calendar is readable, countable or searchable under another key', async () => {
    await call('POST', '/groups/chess/cal/events/v1/events', { body: { ...EVENT, title: 'Only chess' }, token: tokens.chess })
    // Twice: the second may come from the hot-read cache.
    for (let i = 0; i < 2; i++) {
      const ofGo = await call('GET', '/groups/go-club/cal/events/v1/events?search=chess')
      expect(ofGo.status).toBe(200)
      expect(ofGo.body.events).toEqual([])
      expect(ofGo.headers.get('x-cal-total')).toBe('0')
      const ofChess = await call('GET', '/groups/chess/cal/events/v1/events?search=chess')
      expect(ofChess.headers.get('x-cal-total')).toBe('1')
    }
  })

  it('a token of one calendar is a 401 on another', async () => {
    const res = await call('POST', '/groups/go-club/cal/events/v1/events', { body: EVENT, token: tokens.chess })
    expect(res.status).toBe(401)
    expect(res.body).toMatchObject({ code: 'rest_invalid_token', data: { status: 401 } })
    expect((await call('POST', '/groups/go-club/cal/events/v1/events', { body: EVENT, token: tokens['go-club'] })).status).toBe(201)
  })

  it('an unknown key is a 404 and a malformed one a 400, in the error shape', async () => {
    const unknown = await call('GET', '/groups/nobody/cal/events/v1/events')
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ code: 'rest_calendar_not_found', message: expect.any(String), data: { status: 404 } })
    const malformed = await call('GET', '/groups/Bad_Key/cal/events/v1/events')
    expect(malformed.status).toBe(400)
    expect(malformed.body).toEqual({ code: 'rest_invalid_calendar_key', message: expect.any(String), data: { status: 400 } })
    const write = await call('POST', '/groups/nobody/cal/events/v1/events', { body: EVENT, token: tokens.chess })
    expect(write.status).toBe(404)
  })

  it('a calendar created while serving is served at once; a deleted one is a 404', async () => {
    expect((await call('GET', '/groups/late/cal/events/v1/events')).status).toBe(404)
    await calendars.create('late')
    expect((await call('GET', '/groups/late/cal/events/v1/events')).status).toBe(200)
    await calendars.delete('late')
    expect((await call('GET', '/groups/late/cal/events/v1/events')).status).toBe(404)
  })
})
