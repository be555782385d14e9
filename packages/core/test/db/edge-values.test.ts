import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { BACKEND, freshCalendar } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const invalid = (param: string) => ({ code: 'INVALID_PARAM', data: { params: { [param]: expect.any(String) } } })

// Values the boundary sweep (packages/core/test/http/boundary-sweep.http.test.ts) found
// answering 500, pinned here with what they answer now.
describe(`edge values on writes and lists (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
  })
  afterAll(() => calendar.close())

  const event = { title: 'Edge', start_date: '2027-03-01 18:00:00', end_date: '2027-03-01 20:00:00' }

  it('moves a wall time inside a DST gap forward by the gap, as RFC 5545 and Temporal do', async () => {
    // Europe/Berlin skips 02:00-03:00 on 2027-03-28.
    const created = await calendar.events.create({ ...event, timezone: 'Europe/Berlin', start_date: '2027-03-28 02:30:00', end_date: '2027-03-28 04:00:00' })
    expect(created).toMatchObject({ start_date: '2027-03-28 03:30:00', utc_start_date: '2027-03-28 01:30:00', end_date: '2027-03-28 04:00:00' })
    // An overlap keeps the earlier instant and the wall time as written.
    const overlap = await calendar.events.update(created.id, { start_date: '2027-10-31 02:30:00', end_date: '2027-10-31 03:30:00' })
    expect(overlap).toMatchObject({ start_date: '2027-10-31 02:30:00', utc_start_date: '2027-10-31 00:30:00' })
  })

  it('refuses dates outside years 1-9999, before or after the zone conversion, with a 400', async () => {
    for (const [field, value] of [
      ['start_date', '0000-01-01 00:00:00'],
      ['start_date', -62167219200],
      ['date', '0000-06-01'],
      ['date_utc', '0001-01-01T00:00:00+14:00'],
    ] as const) {
      await expect(calendar.events.create({ ...event, [field]: value })).rejects.toMatchObject(invalid(field))
    }
    await expect(calendar.events.create({ ...event, timezone: 'UTC+14', start_date: '0001-01-01 00:00:00' })).rejects.toMatchObject(invalid('start_date'))
    await expect(calendar.events.create({ ...event, timezone: 'UTC-12', end_date: '9999-12-31 23:00:00' })).rejects.toMatchObject(invalid('end_date'))
    await expect(calendar.venues.create({ venue: 'Old', date: '0000-01-01' })).rejects.toMatchObject(invalid('date'))
    // The edges themselves are fine.
    const first = await calendar.events.create({ ...event, start_date: '0001-01-01 00:00:00', end_date: '9999-12-31 23:59:59' })
    expect(first).toMatchObject({ utc_start_date: '0001-01-01 00:00:00', utc_end_date: '9999-12-31 23:59:59' })
  })

  it('lists with bounds at and beyond the stored years instead of failing', async () => {
    expect((await calendar.events.list({ start_date: '0001-01-01', end_date: '9999-12-31' })).total).toBeGreaterThan(0)
    await expect(calendar.events.list({ start_date: '0000-01-01' })).rejects.toMatchObject(invalid('start_date'))
  })

  it('refuses image ids and term numbers that can name nothing; ignores unknown int8 term ids', async () => {
    await expect(calendar.events.create({ ...event, image: -2147483649 })).rejects.toMatchObject(invalid('image'))
    await expect(calendar.venues.create({ venue: 'Pic', image: -1 })).rejects.toMatchObject(invalid('image'))
    await expect(calendar.events.create({ ...event, categories: 1.5 })).rejects.toMatchObject(invalid('categories'))
    await expect(calendar.events.create({ ...event, tags: [-0.5] })).rejects.toMatchObject(invalid('tags'))
    const created = await calendar.events.create({ ...event, categories: [2147483648, -2147483649], tags: ['99999999999999999999'] })
    expect(created).toMatchObject({ categories: [], tags: [] })
    await expect(calendar.events.list({ categories: '2147483648' })).rejects.toMatchObject(invalid('categories'))
    await expect(calendar.events.list({ tags: '9007199254740993' })).rejects.toMatchObject(invalid('tags'))
  })

  it('refuses empty list filters with a 400 (they name nothing)', async () => {
    for (const param of ['venue', 'organizer', 'include', 'status', 'categories', 'tags']) {
      for (const value of ['', ',', ' , ', []]) {
        await expect(calendar.events.list({ [param]: value })).rejects.toMatchObject(invalid(param))
      }
    }
    await expect(calendar.venues.list({ status: ',' })).rejects.toMatchObject(invalid('status'))
    await expect(calendar.organizers.list({ status: '' })).rejects.toMatchObject(invalid('status'))
  })
})

describe(`slugs and rest_url echoes (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
  })
  afterAll(() => calendar.close())

  it('gives a published post whose title or slug normalises to "" the post type as slug', async () => {
    const base = { start_date: '2027-03-01 18:00:00', end_date: '2027-03-01 20:00:00', status: 'publish' as const }
    const dots = await calendar.events.create({ ...base, title: '..' })
    const bangs = await calendar.events.create({ ...base, title: '!!!' })
    const emoji = await calendar.events.create({ ...base, title: 'Party', slug: '🎉' })
    expect([dots.slug, bangs.slug, emoji.slug]).toEqual(['event', 'event-2', 'event-3'])
    expect((await calendar.venues.create({ venue: '!!!' })).slug).toBe('venue')
    expect((await calendar.organizers.create({ organizer: '...' })).slug).toBe('organizer')
    const updated = await calendar.events.update(dots.id, { slug: '!!' })
    expect(updated.slug).not.toBe('')
  })

  it('echoes only declared parameters in rest_url, and never a password', async () => {
    const query = 'search=x&access_token=secret1&password=secret2&foo=bar'
    const res = await calendar.handle({ method: 'GET', path: '/cal/events/v1/events', query, headers: {}, origin: 'http://cal.test' })
    const body = res.body as { rest_url: string }
    expect(res.status).toBe(200)
    expect(body.rest_url).toContain('search=x')
    expect(body.rest_url).not.toMatch(/access_token|secret|password|foo/)
  })
})
