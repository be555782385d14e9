import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { freshCalendar } from '../../../test-support/test-db.js'
import { authenticate, createHostApp } from '../src/app.js'

// The host app over real HTTP: its own session login, the calendar under /api, host users mapped
// to calendar roles by the `authenticate` hook.

interface Reply {
  status: number
  headers: Headers
  text: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any
}

const newEvent = { title: 'Staff meeting', start_date: '2031-03-01 10:00:00', end_date: '2031-03-01 11:00:00' }

describe('express host app with session login', () => {
  let calendar: Calendar
  let server: Server
  let origin: string

  beforeAll(async () => {
    calendar = await freshCalendar({ authenticate })
    const app = createHostApp(calendar, { sessionSecret: 'test-secret-0123456789' })
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s))
    })
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve))
    await calendar?.close()
  })

  async function request(method: string, path: string, init: { cookie?: string; json?: unknown; form?: string } = {}): Promise<Reply> {
    const headers: Record<string, string> = {}
    if (init.cookie) headers.cookie = init.cookie
    let body: string | undefined
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(init.json)
    } else if (init.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      body = init.form
    }
    const res = await fetch(`${origin}${path}`, { method, headers, body, redirect: 'manual' })
    const text = await res.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: res.status, headers: res.headers, text, json }
  }

  /** Logs in with JSON; returns the session cookie (`host.sid=…`). */
  async function login(loginName: string, password: string): Promise<string> {
    const res = await request('POST', '/login', { json: { login: loginName, password } })
    expect(res.status).toBe(200)
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('host.sid='))
    expect(cookie).toMatch(/; HttpOnly/i)
    expect(cookie).toMatch(/; SameSite=Lax/i)
    return cookie!.split(';')[0]!
  }

  it("keeps the host's own routes working next to the calendar", async () => {
    const home = await request('GET', '/')
    expect(home.status).toBe(200)
    expect(home.headers.get('content-type')).toMatch(/^text\/html/)
    expect(home.text).toContain('You are not logged in.')
    expect((await request('GET', '/login')).text).toContain('<form method="post" action="/login">')
    expect(await request('GET', '/me')).toMatchObject({ status: 401, json: { error: 'Not logged in.' } })
    expect((await request('GET', '/nope')).status).toBe(404)
    // The calendar answers under /api, reads are public.
    const list = await request('GET', '/api/cal/events/v1/events')
    expect(list).toMatchObject({ status: 200, json: { total: 0 } })
    expect((await request('GET', '/api/cal/events/v1/doc')).json.openapi).toMatch(/^3\.1/)
  })

  it('refuses a wrong password and sets no session cookie', async () => {
    const res = await request('POST', '/login', { json: { login: 'erin', password: 'wrong' } })
    expect(res.status).toBe(401)
    expect(res.headers.getSetCookie()).toEqual([])
    expect((await request('POST', '/login', { json: { login: 'nobody', password: 'x' } })).status).toBe(401)
  })

  it('lets a staff user (calendar editor) create an event through /api/cal/events/v1/events', async () => {
    const cookie = await login('erin', 'erin-secret')
    expect(await request('GET', '/me', { cookie })).toMatchObject({ status: 200, json: { user: { login: 'erin', calendarRole: 'editor' } } })
    expect((await request('GET', '/', { cookie })).text).toContain('Hello, Erin Staff')

    const created = await request('POST', '/api/cal/events/v1/events', { cookie, json: newEvent })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({ title: 'Staff meeting', status: 'publish', author: '2' })
    expect(created.json.rest_url).toBe(`${origin}/api/cal/events/v1/events/${created.json.id}`)
    // The editor may also edit somebody else's event; the event is really stored.
    const updated = await request('POST', `/api/cal/events/v1/events/${created.json.id}`, { cookie, json: { featured: true } })
    expect(updated).toMatchObject({ status: 200, json: { featured: true } })
    expect((await calendar.events.get(created.json.id)).title).toBe('Staff meeting')
  })

  it('gives a member (calendar subscriber) 403 and writes nothing', async () => {
    const cookie = await login('sam', 'sam-secret')
    const before = (await calendar.events.list({ status: 'publish,draft,pending,private,future' })).total
    const res = await request('POST', '/api/cal/events/v1/events', { cookie, json: { ...newEvent, title: 'Not allowed' } })
    expect(res).toMatchObject({ status: 403, json: { code: 'rest_forbidden', data: { status: 403 } } })
    expect((await calendar.events.list({ status: 'publish,draft,pending,private,future' })).total).toBe(before)
    // Reads still work for the member.
    expect((await request('GET', '/api/cal/events/v1/events?start_date=2031-01-01&end_date=2031-12-31', { cookie })).status).toBe(200)
  })

  it('answers 401 when logged out, also with a session cookie that was logged out', async () => {
    const anonymous = await request('POST', '/api/cal/events/v1/events', { json: newEvent })
    expect(anonymous).toMatchObject({ status: 401, json: { code: 'rest_forbidden', data: { status: 401 } } })

    const cookie = await login('ada', 'ada-secret')
    expect((await request('POST', '/api/cal/events/v1/events', { cookie, json: { ...newEvent, title: 'By Ada' } })).status).toBe(201)
    const out = await request('POST', '/logout', { cookie })
    expect(out.status).toBe(303)
    expect(await request('GET', '/me', { cookie })).toMatchObject({ status: 401 })
    expect((await request('POST', '/api/cal/events/v1/events', { cookie, json: { ...newEvent, title: 'After logout' } })).status).toBe(401)
    // A forged cookie is no session either.
    expect((await request('POST', '/api/cal/events/v1/events', { cookie: 'host.sid=s%3Aforged.sig', json: newEvent })).status).toBe(401)
  })

  it('logs in through the HTML form (redirect to the home page)', async () => {
    const res = await request('POST', '/login', { form: 'login=erin&password=erin-secret' })
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe('/')
    const cookie = res.headers.getSetCookie()[0]!.split(';')[0]!
    expect((await request('GET', '/me', { cookie })).json.user.login).toBe('erin')
  })
})
