import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import express, { type Request } from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, Principal } from '@cal-events/core'
import { createCalendarRouter, expressRequest } from '@cal-events/http-express'
import { freshCalendar } from '../../../test-support/test-db.js'

// A host's `authenticate` hook sees the Express request (`request.native`, or `expressRequest()`),
// so it can map the host's own user (set by the host's middleware) to a calendar principal.

type HostRequest = Request & { hostUser?: { id: number; role: Principal['role'] } }

describe('authenticate hook with the Express request', () => {
  let calendar: Calendar
  let server: Server
  let base: string
  const seen: unknown[] = []

  beforeAll(async () => {
    calendar = await freshCalendar({
      authenticate(request) {
        const req = expressRequest(request) as HostRequest | undefined
        seen.push(req === request.native)
        return req?.hostUser ?? null
      },
    })
    const app = express()
    // The host's own "authentication": a header naming a role, read by the host, not the calendar.
    app.use((req: HostRequest, _res, next) => {
      const role = req.get('x-host-role') as Principal['role'] | undefined
      if (role) req.hostUser = { id: 77, role }
      next()
    })
    app.use('/api', createCalendarRouter(calendar))
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s))
    })
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/cal/events/v1`
  })
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve))
    await calendar?.close()
  })

  const create = (headers: Record<string, string>) =>
    fetch(`${base}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ title: 'Hooked', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' }),
    })

  it('maps the host user to the principal: editor creates, subscriber 403, nobody 401', async () => {
    const created = await create({ 'x-host-role': 'editor' })
    expect(created.status).toBe(201)
    expect(await created.json()).toMatchObject({ title: 'Hooked', author: '77', status: 'publish' })
    expect((await create({ 'x-host-role': 'subscriber' })).status).toBe(403)
    expect((await create({})).status).toBe(401)
    // The hook replaces bearer tokens altogether.
    expect((await create({ authorization: 'Bearer cal_0000000000_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' })).status).toBe(401)
    expect(seen.length).toBeGreaterThanOrEqual(4)
    expect(seen.every((same) => same === true)).toBe(true)
  })

  it('gives expressRequest() undefined for requests that did not come through Express', () => {
    expect(expressRequest({})).toBeUndefined()
    expect(expressRequest({ native: { headers: {} } })).toBeUndefined()
  })
})
