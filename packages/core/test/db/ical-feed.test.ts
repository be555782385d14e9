import ICAL from 'ical.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { BACKEND, freshCalendar } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')

const vevents = (text: string) => new ICAL.Component(ICAL.parse(text)).getAllSubcomponents('vevent').map((v) => new ICAL.Event(v))

describe(`iCalendar feeds through the script API (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, publicBaseUrl: 'https://cal.example.org' })
  })
  afterAll(() => calendar.close())

  it('counts every write to an event in SEQUENCE (events.revision, kept by a trigger)', async () => {
    const event = await calendar.events.create({ title: 'Counted', start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 11:00:00' })
    const sequence = async () => Number(vevents(await calendar.events.ical(event.id))[0]!.component.getFirstPropertyValue('sequence'))
    expect(await sequence()).toBe(0)
    await calendar.events.update(event.id, { title: 'Counted again' })
    expect(await sequence()).toBe(1)
    // Two writes within the same second still count twice.
    await calendar.events.update(event.id, { featured: true })
    await calendar.events.update(event.id, { featured: false })
    expect(await sequence()).toBe(3)
  })

  it('pages the feed in list order on this backend, with the list filters', async () => {
    for (let i = 0; i < 12; i++) {
      await calendar.events.create({ title: `Same start ${i}`, start_date: '2027-01-05 10:00:00', end_date: '2027-01-05 11:00:00', categories: ['Ordered'] })
    }
    const list = await calendar.events.list({ categories: 'ordered', per_page: 50 })
    const feed = vevents(await calendar.events.feed({ categories: 'ordered' }))
    expect(feed.map((e) => e.uid)).toEqual(list.events.map((e) => `event-${e.id}@cal.example.org`))
    await expect(calendar.events.feed({ categories: 'no-such-category' })).rejects.toMatchObject({ code: 'INVALID_PARAM' })
  })
})
