import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { BACKEND, freshCalendar } from '../../../../test-support/test-db.js'

const ROOT = '/cal/events/v1'

interface Item {
  id: number
  deleted?: boolean
  series_id?: number
  occurrence?: string
  title?: string
  recurrence?: string[]
}

// A mirror built from sync must not show a changed occurrence twice: the exception comes as its
// own item, marked with the series and the occurrence it replaces, never as a plain event.
describe(`sync of a series with a changed occurrence (${BACKEND})`, () => {
  let calendar: Calendar
  let admin: string
  let seriesId: number

  const call = async (method: string, path: string, query = '', body?: unknown) => {
    const res = await calendar.handle({
      method,
      path: `${ROOT}${path}`,
      query,
      headers: { authorization: `Bearer ${admin}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: Buffer.from(JSON.stringify(body)) } : {}),
      origin: 'http://cal.test',
    })
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, body: res.body as any }
  }
  /** A whole sync walk (every page) and the token at its end. */
  const walk = async (): Promise<{ items: Item[]; next: string }> => {
    let res = await call('GET', '/events', 'sync=1&per_page=2')
    const items: Item[] = [...res.body.events]
    while (res.body.next_rest_url) {
      res = await call('GET', '/events', new URL(res.body.next_rest_url).search.slice(1))
      items.push(...res.body.events)
    }
    return { items, next: res.body.next_sync_token }
  }

  beforeAll(async () => {
    calendar = await freshCalendar()
    admin = (await calendar.tokens.create({ login: 'root', role: 'administrator' })).token
    const series = await calendar.events.create({
      title: 'Weekly class', status: 'publish', timezone: 'Europe/Berlin',
      start_date: '2027-03-02 10:00:00', end_date: '2027-03-02 11:00:00', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'],
    })
    seriesId = series.id
    await calendar.events.create({ title: 'One-off', status: 'publish', start_date: '2027-03-03 10:00:00', end_date: '2027-03-03 11:00:00' })
  })
  afterAll(async () => {
    await calendar?.close()
  })

  it('reports the exception with its series and key, and its removal as a tombstone', async () => {
    const window = await call('GET', '/events', 'start_date=2027-03-08&end_date=2027-03-10')
    const key = window.body.events[0].occurrence as string
    const changed = await call('PATCH', `/events/${seriesId}/occurrences/${key}`, '', { title: 'Weekly class (room 2)' })
    expect(changed.status, JSON.stringify(changed.body)).toBe(200)

    const first = await walk()
    expect(first.items.filter((i) => i.id === seriesId).map((i) => i.recurrence)).toEqual([['RRULE:FREQ=WEEKLY;COUNT=6']])
    const exceptions = first.items.filter((i) => i.series_id === seriesId && i.id !== seriesId)
    expect(exceptions).toMatchObject([{ series_id: seriesId, occurrence: key, title: 'Weekly class (room 2)' }])
    expect(first.items.filter((i) => i.title === 'Weekly class (room 2)')).toHaveLength(1)
    expect(first.items).toHaveLength(3)
    const exceptionId = exceptions[0]!.id

    const removed = await call('DELETE', `/events/${seriesId}/occurrences/${key}`)
    expect(removed.status, JSON.stringify(removed.body)).toBe(200)
    const since = await call('GET', '/events', `sync_token=${encodeURIComponent(first.next)}`)
    expect(since.status).toBe(200)
    const byId = new Map<number, Item>(since.body.events.map((i: Item) => [i.id, i]))
    expect(byId.get(exceptionId)).toEqual({ id: exceptionId, deleted: true })
    expect(byId.get(seriesId)?.recurrence).toEqual(['RRULE:FREQ=WEEKLY;COUNT=6', expect.stringMatching(/^EXDATE/)])
  })
})
