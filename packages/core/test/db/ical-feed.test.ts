import ICAL from 'ical.js'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import pg from 'pg'
import type { Calendar } from '@cal-events/core'
import { BACKEND, execSql, freshCalendar } from '../../../../test-support/test-db.js'

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

  it('answers a poll with 304 from the change log on this backend, and the new feed after any write', async () => {
    const get = async (query: string, headers: Record<string, string> = {}) => {
      const res = await calendar.handle({ method: 'GET', path: '/cal/events/v1/events/ical', query, headers, origin: 'https://cal.example.org' })
      let text = ''
      for await (const chunk of res.stream ?? []) text += chunk
      return { status: res.status, etag: res.headers.ETag!, text }
    }
    /**
     * A poll of a quiet calendar is a 304, though the change log may count a point as changed when
     * it cannot tell (docs/change-tracking.md, rule 1): a full answer, never a stale one. Polls until
     * a 304, with a fresh tag each time, so that work elsewhere on the server cannot fail the test.
     */
    const settled = async (query: string) => {
      let tag = (await get(query)).etag
      for (let i = 0; i < 50; i++) {
        const res = await get(query, { 'if-none-match': tag })
        if (res.status === 304) return tag
        tag = res.etag
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      throw new Error('no 304 in 50 polls of a quiet calendar')
    }
    const event = await calendar.events.create({ title: 'Polled here', start_date: '2026-12-03 10:00:00', end_date: '2026-12-03 11:00:00' })
    await settled('search=polled')
    const first = await get('search=polled')
    expect(first.status).toBe(200)
    expect(first.text).toContain('SUMMARY:Polled here')
    expect((await get('search=polled', { 'if-none-match': first.etag })).status).toBe(304)
    // Another filter is another feed, whatever the point.
    expect((await get('search=here', { 'if-none-match': first.etag })).status).toBe(200)
    // A tag of other data (or made up) is not current; the tag shows no transaction id.
    expect((await get('search=polled', { 'if-none-match': `"${'A'.repeat(32)}"` })).status).toBe(200)
    expect(first.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/)
    // A write anywhere the feed reads from, even one that leaves this feed's bytes alone, is a change.
    await calendar.venues.create({ venue: 'Elsewhere', status: 'publish' })
    const second = await get('search=polled', { 'if-none-match': first.etag })
    expect(second.status).toBe(200)
    const held = await settled('search=polled')
    await calendar.events.update(event.id, { title: 'Polled here, moved' })
    const third = await get('search=polled', { 'if-none-match': held })
    expect([third.status, third.text.includes('SUMMARY:Polled here\\, moved')]).toEqual([200, true])
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
  it('plans each page of a feed for its own cursor: no page statement is ever named (PostgreSQL)', async () => {
    if (BACKEND !== 'postgres') return
    // A named page statement settles on a generic plan, which sees no cursor: it guessed a few
    // hundred rows after it, and read (bitmap, then sort) every later row of the window for each
    // page of 500, 22 ms a page at 20,000 events instead of 6 (issue 28).
    const items = Array.from({ length: 1100 }, (_, i) => ({
      title: `Paged ${i}`,
      origin_uid: `paged-${i}`,
      start_date: `2028-0${1 + (i % 9)}-1${i % 10} 10:00:00`,
      end_date: `2028-0${1 + (i % 9)}-1${i % 10} 11:00:00`,
    }))
    const imported = await calendar.events.import(items)
    expect(imported.errors.slice(0, 1)).toEqual([])
    expect(imported.created).toBe(1100)
    const pages: (string | undefined)[] = []
    const query = pg.Client.prototype.query
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const config = args[0] as { name?: string; text?: string } | string
      const text = typeof config === 'string' ? config : config?.text
      if (text?.startsWith('with "page" as')) pages.push(typeof config === 'string' ? undefined : config.name)
      return (query as (...a: unknown[]) => unknown).apply(this, args) as never
    })
    try {
      // Five feeds of three pages each (one window, so no kept answer serves a later one).
      for (let i = 0; i < 5; i++) expect(vevents(await calendar.events.feed({ start_date: `2027-12-${10 + i}`, end_date: '2028-12-31' })).length).toBeGreaterThan(1000)
    } finally {
      spy.mockRestore()
    }
    expect(pages).toHaveLength(15)
    expect(pages.filter((name) => name !== undefined)).toEqual([])
  })

  it("gives every page's events their venue, organizers and categories (trashed ones left out, in their order)", async () => {
    const venue = (await calendar.venues.create({ venue: 'Shared Hall', city: 'Lyon' })).id
    const gone = (await calendar.organizers.create({ organizer: 'Gone', email: 'gone@example.org' })).id
    const noMail = (await calendar.organizers.create({ organizer: 'No mail' })).id
    const second = (await calendar.organizers.create({ organizer: 'Second', email: 'second@example.org' })).id
    const third = (await calendar.organizers.create({ organizer: 'Third', email: 'third@example.org' })).id
    const zeta = (await calendar.categories.create({ name: 'Zeta linked' })).id
    const alpha = (await calendar.categories.create({ name: 'Alpha linked' })).id
    // 520 events: two pages of the feed's statement.
    const items = Array.from({ length: 520 }, (_, i) => ({
      origin_uid: `linked-${i}`,
      title: `Linked ${i}`,
      start_date: `2029-03-${String(1 + (i % 28)).padStart(2, '0')} 10:00:00`,
      end_date: `2029-03-${String(1 + (i % 28)).padStart(2, '0')} 11:00:00`,
      venue,
      organizer: i % 2 === 0 ? [gone, noMail, third, second] : [second],
      categories: [zeta, alpha],
    }))
    expect((await calendar.events.import(items)).created).toBe(520)
    // A trashed organizer still linked (the API unlinks on delete; data from before that rule does not).
    await execSql(`update organizers set status = 'trash' where id = ${gone}`)
    const feed = await calendar.events.feed({ start_date: '2029-03-01', end_date: '2029-03-31' })
    const events = vevents(feed)
    expect(events).toHaveLength(520)
    for (const event of events) {
      const i = Number(event.summary.replace('Linked ', ''))
      expect(event.location).toBe('Shared Hall, Lyon')
      // The first organizer in the event's order that is readable and has an address.
      expect(event.component.getFirstPropertyValue('organizer')).toBe(i % 2 === 0 ? 'mailto:third@example.org' : 'mailto:second@example.org')
      expect(event.component.getFirstProperty('categories')!.getValues()).toEqual(['Alpha linked', 'Zeta linked'])
    }
    expect(feed).not.toContain('gone@example.org')
  })
})
