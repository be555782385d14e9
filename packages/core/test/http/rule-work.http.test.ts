import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, EventResource } from '@cal-events/core'
import { execSql, freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type ErrorBody, type TestServer } from '../../../../test-support/http.js'
import { watchLoopHold } from '../../../../test-support/cpu-clock.js'

// Issue 28 items 1 and 2: no write request may hold the event loop, whoever sends it. The rule
// engine runs only after the permission check, a rule without an occurrence in reach is refused
// in milliseconds, and expansion yields to the event loop. The bounds below are generous (the
// machine is shared); the 50 ms of the issue is a bench figure.

const NOW = new Date('2026-11-21T03:39:06Z')
// Seven weekdays a week: BYSETPOS=366 never matches, and the engine walked 20,000 weeks (9-17 s).
const NEVER = ['RRULE:FREQ=WEEKLY;BYSETPOS=366;BYDAY=MO,TU,WE,TH,FR,SA,SU']
// Possible, but the engine builds each year's 365 days for BYSETPOS: 1,000 years took 31 s.
const COSTLY = ['RRULE:FREQ=YEARLY;BYSETPOS=200;BYDAY=MO,TU,WE,TH,FR,SA,SU;COUNT=1000']
const EVENT = { title: 'Yoga', start_date: '2027-03-16 10:00:00', end_date: '2027-03-16 11:00:00', timezone: 'Europe/Berlin' }
/**
 * Most CPU time the process may spend between two ticks of a 10 ms timer during one request (the
 * longest the request held the event loop). CPU, not wall time: under parallel test files on a
 * loaded two-core machine the OS delays every timer by up to seconds, which is no block of ours,
 * while a rule walked on the loop shows as seconds of CPU between two ticks. The bench holds the
 * loop to 50 ms; this bound only tells the bug from a busy moment (GC, JIT).
 */
const MAX_BLOCK_MS = 1000

describe('rule work is bounded and never holds the event loop (issue 28)', () => {
  let calendar: Calendar
  let server: TestServer
  let admin: string
  let contributor: string
  let seriesId: number
  let key: string
  let wp: string

  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, wpCompat: true })
    server = await startServer(calendar)
    wp = server.base.replace('/cal/events/v1', '/wp-json/tribe/events/v1')
    admin = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
    contributor = (await calendar.tokens.create({ role: 'contributor', login: 'contrib' })).token
    const series = await calendar.events.create({ ...EVENT, status: 'publish', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=10'] })
    seriesId = series.id
    key = '20270323T090000Z'
  })
  afterAll(async () => {
    await server?.close()
    await calendar?.close()
  })

  /**
   * Sends one request while its CPU is measured: answers its status, body, the process's CPU time
   * for it (`cpuMs`: the engine's work, whatever the machine's load) and the longest CPU stretch
   * between two timer ticks (`blockMs`: how long it held the event loop).
   */
  async function timed<B>(send: () => Promise<{ status: number; body: B }>) {
    const watch = watchLoopHold()
    try {
      const res = await send()
      const { cpuMs, longestHoldMs } = watch.stop()
      return { ...res, cpuMs, blockMs: longestHoldMs }
    } finally {
      watch.stop()
    }
  }

  it('answers anonymous and under-privileged writes with a pathological rule 401/403 without running the engine', async () => {
    const requests: [string, () => Promise<{ status: number; body: unknown }>, number][] = [
      ['anonymous create of a costly rule', () => server.request('POST', '/events', { body: { ...EVENT, recurrence: COSTLY } }), 401],
      ['anonymous update of a costly rule', () => server.request('PATCH', `/events/${seriesId}`, { body: { recurrence: COSTLY } }), 401],
      ['anonymous create', () => server.request('POST', '/events', { body: { ...EVENT, recurrence: NEVER } }), 401],
      ['anonymous update', () => server.request('PATCH', `/events/${seriesId}`, { body: { recurrence: NEVER } }), 401],
      ['anonymous POST update', () => server.request('POST', `/events/${seriesId}`, { body: { recurrence: NEVER } }), 401],
      ['anonymous split', () => server.request('PATCH', `/events/${seriesId}/occurrences/${key}/following`, { body: { recurrence: NEVER } }), 401],
      ['contributor update of an event not theirs', () => server.request('PATCH', `/events/${seriesId}`, { token: contributor, body: { recurrence: NEVER } }), 403],
      ['anonymous create on the WordPress path', async () => {
        const res = await fetch(`${wp}/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...EVENT, recurrence: NEVER }) })
        return { status: res.status, body: await res.json() }
      }, 401],
    ]
    for (const [name, send, status] of requests) {
      const res = await timed(send)
      expect(res.status, name).toBe(status)
      expect(res.blockMs, name).toBeLessThan(MAX_BLOCK_MS)
      expect(res.cpuMs, name).toBeLessThan(5000)
    }
    // Cheap syntax checks keep the contract's order: a malformed rule is a 400 before the permission check.
    const malformed = await server.request<ErrorBody>('POST', '/events', { body: { ...EVENT, recurrence: ['RRULE:FREQ=WEEKLY;COUNT=0'] } })
    expect([malformed.status, Object.keys(malformed.body.data.params!)]).toEqual([400, ['recurrence']])
  })

  it('refuses a rule without an occurrence in reach with a 400 naming recurrence, in well under a second, for administrators too', async () => {
    const rules: [string[], string][] = [
      [NEVER, EVENT.start_date],
      [['RRULE:FREQ=YEARLY;BYMONTH=2,4;BYMONTHDAY=31'], EVENT.start_date],
      [['RRULE:FREQ=MONTHLY;BYDAY=MO;BYSETPOS=6'], EVENT.start_date],
      // Possible, but Monday 29 February comes again only in 2072: beyond the documented reach.
      [['RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO'], '2044-03-01 10:00:00'],
      [['RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO;UNTIL=20990101'], '2044-03-01 10:00:00'],
      // (A bounded but costly rule, 1,000 whole February weeks, fits the 2 s work budget on an idle
      // machine and is then rightly accepted: the work bound itself is tested with a small budget in
      // test/unit/recurrence.test.ts.)
    ]
    for (const [recurrence, start] of rules) {
      const body = { ...EVENT, start_date: start, end_date: start.replace('10:00', '11:00'), recurrence }
      const res = await timed(() => server.request<ErrorBody>('POST', '/events', { token: admin, body }))
      expect(res.status, recurrence[0]).toBe(400)
      expect(res.body.code).toBe('rest_invalid_param')
      expect(Object.keys(res.body.data.params!)).toEqual(['recurrence'])
      expect(res.body.data.params!.recurrence, recurrence[0]).toMatch(/no occurrence within \d+ years|more than \d+ ms of work/)
      // Refused from the text in milliseconds; found by a walk of 20 years (or the work bound) within its 2 s of engine time.
      const walked = recurrence[0]!.includes('COUNT=1000') || recurrence[0]!.includes('BYMONTHDAY=29')
      expect(res.cpuMs, recurrence[0]).toBeLessThan(walked ? 10_000 : 5000)
      expect(res.blockMs, recurrence[0]).toBeLessThan(MAX_BLOCK_MS)
    }
    const update = await timed(() => server.request<ErrorBody>('PATCH', `/events/${seriesId}`, { token: admin, body: { recurrence: NEVER } }))
    expect([update.status, Object.keys(update.body.data.params!)]).toEqual([400, ['recurrence']])
    expect(update.cpuMs).toBeLessThan(5000)
  })

  it('stores an open-ended daily series started in 1950 without blocking the event loop', async () => {
    const res = await timed(() =>
      server.request('POST', '/events', {
        token: admin,
        body: { title: 'Since 1950', start_date: '1950-01-01 10:00:00', end_date: '1950-01-01 11:00:00', timezone: 'Europe/Berlin', status: 'publish', recurrence: ['RRULE:FREQ=DAILY'] },
      }),
    )
    expect(res.status).toBe(201)
    // 10,000 rows: 5.9 s on the loop before expansion yielded.
    expect(res.blockMs).toBeLessThan(MAX_BLOCK_MS)
    const list = await server.request<{ total: number }>('GET', `/events?start_date=2027-01-01&end_date=2027-01-31&per_page=50&search=${encodeURIComponent('Since 1950')}`)
    expect(list.body.total).toBe(31)
  })

  it('refuses to split a daily series of decades at a late occurrence with a 400, without expanding every occurrence before it on the loop', async () => {
    const series = await calendar.events.create({
      title: 'Daily since 1960', status: 'publish', start_date: '1960-01-01 10:00:00', end_date: '1960-01-01 11:00:00', timezone: 'Europe/Berlin', recurrence: ['RRULE:FREQ=DAILY'],
    })
    // "This and all following" looks for the series' first occurrence: one engine call from the
    // start to the key expanded 24,000 days in one go (past the engine's 20,000 steps). The part
    // before the key would hold more occurrences than a bounded series may: the rule's 400.
    const res = await timed(() => server.request<ErrorBody>('PATCH', `/events/${series.id}/occurrences/20270115T090000Z/following`, { token: admin, body: { title: 'Daily, renamed' } }))
    expect([res.status, res.body.code, Object.keys(res.body.data?.params ?? {})], JSON.stringify(res.body)).toEqual([400, 'rest_invalid_param', ['recurrence']])
    expect(res.blockMs).toBeLessThan(MAX_BLOCK_MS)
    expect((await server.request<EventResource>('GET', `/events/${series.id}`, { token: admin })).body.recurrence).toEqual(['RRULE:FREQ=DAILY'])
  })

  it('answers reads, deletes and splits of occurrences of a pathological rule stored before its bounds with a 4xx, without holding the loop', async () => {
    // A series written before rules were bounded (migration-era data): straight into the table.
    const legacy = await calendar.events.create({ ...EVENT, title: 'Legacy rule', status: 'publish', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'] })
    await execSql(`update events set recurrence = array['${NEVER[0]}'] where id = ${legacy.id}`)
    const requests: [string, () => Promise<{ status: number; body: unknown }>][] = [
      ['anonymous read of an occurrence', () => server.request('GET', `/events/${legacy.id}/occurrences/20300319T090000Z`)],
      ['delete of an occurrence', () => server.request('DELETE', `/events/${legacy.id}/occurrences/20300319T090000Z`, { token: admin })],
      ['change of an occurrence', () => server.request('PATCH', `/events/${legacy.id}/occurrences/20300319T090000Z`, { token: admin, body: { title: 'x' } })],
      ['split', () => server.request('PATCH', `/events/${legacy.id}/occurrences/20300319T090000Z/following`, { token: admin, body: { title: 'x' } })],
    ]
    for (const [name, send] of requests) {
      const res = await timed(send)
      expect(res.status, name).toBeGreaterThanOrEqual(400)
      expect(res.status, name).toBeLessThan(500)
      expect(res.blockMs, name).toBeLessThan(MAX_BLOCK_MS)
    }
  })
})
