import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, EventList } from '@cal-events/core'
import { freshCalendar, querySql } from '../../../../test-support/test-db.js'
import { startServer, type ErrorBody, type TestServer } from '../../../../test-support/http.js'

// Issue 28 item 3 over HTTP: an anonymous far window is answered from the rules, stores nothing,
// and one too wide for a request is a 400 naming the date parameters it sent.
const NOW = new Date('2026-11-21T03:39:06Z')

describe('far windows over HTTP (issue 28, reads never write)', () => {
  let calendar: Calendar
  let server: TestServer
  let admin: string
  const stored = async () => (await querySql<{ n: number }>('select count(*)::int as n from event_occurrences'))[0]!.n

  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, siteTimezone: 'UTC' })
    server = await startServer(calendar)
    admin = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
    for (const [title, rule] of [['Morning run', 'RRULE:FREQ=DAILY'], ['Choir', 'RRULE:FREQ=WEEKLY;BYDAY=TH']]) {
      const created = await server.request('POST', '/events', {
        token: admin,
        body: { title, start_date: '2027-01-07 07:00:00', end_date: '2027-01-07 08:00:00', timezone: 'Europe/Berlin', recurrence: [rule] },
      })
      expect(created.status).toBe(201)
    }
  })
  afterAll(async () => {
    await server.close()
    await calendar.close()
  })

  it('answers an anonymous far window from the rules and stores nothing', async () => {
    const before = await stored()
    const res = await server.request<EventList>('GET', '/events?start_date=2051-02-01&end_date=2051-02-28&per_page=50')
    expect(res.status).toBe(200)
    // 28 mornings and the 4 Thursdays of February 2051, 07:00 in Berlin (06:00 UTC).
    expect(res.body.total).toBe(32)
    expect(res.headers.get('x-cal-total')).toBe('32')
    const choir = res.body.events.filter((e) => e.title === 'Choir')
    expect(choir.map((e) => e.start_date)).toEqual(['2051-02-02', '2051-02-09', '2051-02-16', '2051-02-23'].map((d) => `${d} 07:00:00`))
    expect(choir[0]!.utc_start_date).toBe('2051-02-02 06:00:00')
    expect(await stored()).toBe(before)
  })

  it('refuses a far window with more occurrences than one request computes: 400 on its date parameters', async () => {
    const before = await stored()
    const res = await server.request<ErrorBody>('GET', '/events?start_date=2051-01-01&end_date=2070-12-31')
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('rest_invalid_param')
    expect(Object.keys(res.body.data.params!).sort()).toEqual(['end_date', 'start_date'])
    expect(res.body.data.params!.start_date).toMatch(/more than 5,000 occurrences/)
    expect(await stored()).toBe(before)
  })
})
