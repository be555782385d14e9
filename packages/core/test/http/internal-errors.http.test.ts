import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { execSql, freshCalendar, querySql } from '../../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'

// The 500 path: anything that is not a CalendarError (a host hook's bug, a database error the
// calendar does not expect) answers 500 in the contract's shape with a fixed message, tells the
// host through `onError`, and never echoes the error's text.

describe('unexpected errors: 500 and onError', () => {
  let calendar: Calendar
  let hooked: Calendar
  let server: TestServer
  let hookedServer: TestServer
  let token: string
  const reported: unknown[] = []
  let hookThrows = false
  const INTERNAL = { code: 'rest_internal_error', message: 'Internal server error.', data: { status: 500 } }

  beforeAll(async () => {
    calendar = await freshCalendar({ onError: (err) => reported.push(err) })
    server = await startServer(calendar)
    // A second calendar on the same database whose authenticate hook can be made to fail.
    hooked = await freshCalendar({
      onError: (err) => reported.push(err),
      authenticate: () => {
        if (hookThrows) throw new Error('host session store exploded')
        return null
      },
    })
    hookedServer = await startServer(hooked)
    // After both: each freshCalendar empties the tables.
    token = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
  })
  afterAll(async () => {
    await hookedServer.close()
    await server.close()
    await hooked.close()
    await calendar.close()
  })

  it('a throwing authenticate hook answers 500 with a fixed message and reaches onError', async () => {
    reported.length = 0
    hookThrows = true
    const res = await hookedServer.request('GET', '/events')
    hookThrows = false
    expect(res.status).toBe(500)
    expect(res.body).toEqual(INTERNAL)
    expect(reported).toHaveLength(1)
    expect((reported[0] as Error).message).toBe('host session store exploded')
  })

  it('an unexpected database error answers 500 without its text, reaches onError once, and changes nothing', async () => {
    const event = { title: 'boom', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' }
    // A constraint the calendar knows nothing about: the insert fails with SQLSTATE 23514.
    await execSql(`alter table events add constraint host_no_boom check (title <> 'boom') not valid`)
    try {
      reported.length = 0
      const res = await server.request('POST', '/events', { token, body: event })
      expect(res.status).toBe(500)
      expect(res.body).toEqual(INTERNAL)
      expect(reported).toHaveLength(1)
      expect((reported[0] as { code?: string }).code).toBe('23514')
      expect(await querySql(`select id from events where title = 'boom'`)).toEqual([])
    } finally {
      await execSql('alter table events drop constraint host_no_boom')
    }
    expect((await server.request('POST', '/events', { token, body: event })).status).toBe(201)
  })

  it('client errors (4xx) do not reach onError', async () => {
    reported.length = 0
    expect((await server.request('GET', '/events/999999')).status).toBe(404)
    expect((await server.request('GET', '/events?per_page=abc')).status).toBe(400)
    const anonymousWrite = await hookedServer.request('POST', '/events', {
      body: { title: 'x', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' },
    })
    expect(anonymousWrite.status).toBe(401)
    expect(reported).toHaveLength(0)
  })
})
