import ICAL from 'ical.js'
import nodeIcal, { type VEvent } from 'node-ical'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, EventList, EventResource } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type ErrorBody, type TestServer } from '../../../../test-support/http.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const WEEKLY = {
  title: 'Yoga',
  start_date: '2027-03-16 10:00:00',
  end_date: '2027-03-16 11:00:00',
  timezone: 'Europe/Berlin',
}

describe('the recurrence field of events (extension, issue 19 groundwork)', () => {
  let calendar: Calendar
  let server: TestServer
  let admin: string
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: 'https://cal.example.org' })
    server = await startServer(calendar)
    admin = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
  })
  afterAll(async () => {
    await server.close()
    await calendar.close()
  })

  const count = async () => (await calendar.events.list({ start_date: '2000-01-01', end_date: '2100-01-01', status: 'publish,draft,pending,private,future', per_page: 1 })).total

  it('accepts, normalises, stores and returns the lines; single events do not carry the field', async () => {
    const created = await server.request<EventResource>('POST', '/events', {
      token: admin,
      body: { ...WEEKLY, recurrence: [' rrule:freq=weekly;byday=tu;count=10 ', 'EXDATE;TZID=Europe/Berlin:20270330T100000'] },
    })
    expect(created.status).toBe(201)
    expect(created.body.recurrence).toEqual(['RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=10', 'EXDATE;TZID=Europe/Berlin:20270330T100000'])
    expect((await server.request<EventResource>('GET', `/events/${created.body.id}`)).body.recurrence).toEqual(created.body.recurrence)
    const single = await server.request<EventResource>('POST', '/events', { token: admin, body: { ...WEEKLY, title: 'Once' } })
    expect(single.body).not.toHaveProperty('recurrence')
    const list = await server.request<EventList>('GET', '/events?start_date=2027-03-01&end_date=2027-03-31')
    expect(list.body.events.find((e: { id: number }) => e.id === single.body.id)).not.toHaveProperty('recurrence')
    // null (or []) makes it a single event again.
    const cleared = await server.request('POST', `/events/${created.body.id}`, { token: admin, body: { recurrence: null } })
    expect(cleared.body).not.toHaveProperty('recurrence')
    const again = await server.request<EventResource>('POST', `/events/${created.body.id}`, { token: admin, body: { recurrence: ['RRULE:FREQ=DAILY;COUNT=3'] } })
    expect(again.body.recurrence).toEqual(['RRULE:FREQ=DAILY;COUNT=3'])
    expect((await server.request('POST', `/events/${created.body.id}`, { token: admin, body: { recurrence: [] } })).body).not.toHaveProperty('recurrence')
  })

  it('refuses bad rules with 400 rest_invalid_param naming recurrence and what is wrong, writing nothing', async () => {
    const before = await count()
    const cases: [unknown, RegExp][] = [
      [['RRULE:FREQ=WEEKLY;COUNT=0'], /COUNT must be 1 or more/],
      [['RRULE:FREQ=WEEKLY;UNTIL=20270101T000000Z'], /UNTIL is before the start/],
      [['RRULE:FREQ=MONTHLY;BYMONTHDAY=40'], /BYMONTHDAY/],
      [['RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30'], /no occurrence|cannot be expanded/],
      [['RRULE:FREQ=DAILY;COUNT=5000'], /at most 1000 occurrences/],
      [['VEVENT:nonsense'], /not supported/],
      ['RRULE:FREQ=WEEKLY', /array/],
      [[42], /array/],
    ]
    for (const [recurrence, reason] of cases) {
      const res = await server.request<ErrorBody>('POST', '/events', { token: admin, body: { ...WEEKLY, recurrence } })
      expect(res.status, JSON.stringify(recurrence)).toBe(400)
      expect(res.body.code).toBe('rest_invalid_param')
      expect(Object.keys(res.body.data.params!)).toEqual(['recurrence'])
      expect(res.body.data.params!.recurrence, JSON.stringify(recurrence)).toMatch(reason)
    }
    expect(await count()).toBe(before)
    // Moving a series' start past its UNTIL is refused on the recurrence, and changes nothing.
    const series = await calendar.events.create({ ...WEEKLY, recurrence: ['RRULE:FREQ=WEEKLY;UNTIL=20270601T000000Z'] })
    const moved = await server.request<ErrorBody>('POST', `/events/${series.id}`, { token: admin, body: { start_date: '2027-07-01 10:00:00', end_date: '2027-07-01 11:00:00' } })
    expect([moved.status, Object.keys(moved.body.data.params!)]).toEqual([400, ['recurrence']])
    expect((await calendar.events.get(series.id)).start_date).toBe('2027-03-16 10:00:00')
  })

  it('writes the series into the iCalendar file, where ical.js expands it at 10:00 local across DST', async () => {
    const series = await calendar.events.create({ ...WEEKLY, title: 'Weekly across DST', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3', 'EXDATE;TZID=Europe/Berlin:20270323T100000'] })
    const text = await (await fetch(`${server.base}/events/${series.id}/ical`)).text()
    expect(text).toContain('RRULE:FREQ=WEEKLY;COUNT=3\r\n')
    expect(text).toContain('EXDATE;TZID=Europe/Berlin:20270323T100000\r\n')
    const event = new ICAL.Event(new ICAL.Component(ICAL.parse(text)).getFirstSubcomponent('vevent')!)
    const iterator = event.iterator()
    const starts: string[] = []
    for (let next = iterator.next(); next; next = iterator.next()) starts.push(next.toJSDate().toISOString())
    // 16 March (CET), 23 March excluded, 30 March (CEST, after the change on the 28th).
    expect(starts).toEqual(['2027-03-16T09:00:00.000Z', '2027-03-30T08:00:00.000Z'])
  })

  it('gives the same occurrences through a second parser (node-ical), in the feed as in the file', async () => {
    const series = await calendar.events.create({ ...WEEKLY, title: 'Twice parsed', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3', 'EXDATE;TZID=Europe/Berlin:20270323T100000'] })
    for (const path of [`/events/${series.id}/ical`, '/events/ical?search=twice']) {
      const text = await (await fetch(`${server.base}${path}`)).text()
      const events = Object.values(nodeIcal.sync.parseICS(text)).filter((c): c is VEvent => c?.type === 'VEVENT')
      expect(events, path).toHaveLength(1)
      const event = events[0]!
      const excluded = new Set(Object.values(event.exdate ?? {}).map((d) => new Date(d as Date).toISOString()))
      const starts = event.rrule!.all().map((d) => d.toISOString()).filter((iso) => !excluded.has(iso))
      expect(starts, path).toEqual(['2027-03-16T09:00:00.000Z', '2027-03-30T08:00:00.000Z'])
    }
  })

  /** What ical.js makes of a series' VEVENT: its starts up to `to`, as ISO instants. */
  const icalStarts = (text: string, to: string) => {
    const event = new ICAL.Event(new ICAL.Component(ICAL.parse(text)).getFirstSubcomponent('vevent')!)
    const iterator = event.iterator()
    const starts: string[] = []
    for (let next = iterator.next(); next && next.toJSDate().toISOString() <= to; next = iterator.next()) starts.push(next.toJSDate().toISOString())
    return starts
  }
  const listedStarts = async (id: number, from: string, to: string) => {
    const body = (await (await fetch(`${server.base}/events?start_date=${from}&end_date=${to}&per_page=50`)).json()) as { events: { id: number; series_id?: number; utc_start_date: string }[] }
    return body.events.filter((e) => e.series_id === id || e.id === id).map((e) => `${e.utc_start_date.replace(' ', 'T')}.000Z`)
  }

  it('lists and subscribed apps agree on an instance that falls into a DST gap: skipped by both (EXDATE in the feed)', async () => {
    const gap = { title: 'Night shift', status: 'publish' as const, start_date: '2027-03-26 02:30:00', end_date: '2027-03-26 03:00:00', timezone: 'Europe/Berlin' }
    const counted = await calendar.events.create({ ...gap, recurrence: ['RRULE:FREQ=DAILY;COUNT=4'] })
    const open = await calendar.events.create({ ...gap, title: 'Night watch', recurrence: ['RRULE:FREQ=DAILY'] })
    for (const series of [counted, open]) {
      const listed = await listedStarts(series.id, '2027-03-25', '2027-03-31')
      // RFC 5545 3.3.10: 28 March 02:30 does not exist in Berlin; the instance is ignored, not moved.
      expect(listed.some((s) => s.startsWith('2027-03-28'))).toBe(false)
      const text = await (await fetch(`${server.base}/events/${series.id}/ical`)).text()
      expect(icalStarts(text, '2027-03-31T23:59:59.000Z')).toEqual(listed)
      const events = Object.values(nodeIcal.sync.parseICS(text)).filter((c): c is VEvent => c?.type === 'VEVENT')
      const excluded = new Set(Object.values(events[0]!.exdate ?? {}).map((d) => new Date(d as Date).toISOString()))
      const viaNodeIcal = events[0]!.rrule!.between(new Date('2027-03-25T00:00:00Z'), new Date('2027-03-31T23:59:59Z'), true).map((d) => d.toISOString()).filter((iso) => !excluded.has(iso))
      expect(viaNodeIcal).toEqual(listed)
    }
    // The next spring's gap too, for the open-ended series.
    const next = await listedStarts(open.id, '2028-03-24', '2028-03-28')
    const text = await (await fetch(`${server.base}/events/${open.id}/ical`)).text()
    expect(icalStarts(text, '2028-03-28T23:59:59.000Z').filter((s) => s >= '2028-03-24')).toEqual(next)
  })
})
