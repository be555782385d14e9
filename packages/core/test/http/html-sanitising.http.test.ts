import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, Role, EventResource, OrganizerResource, TermResource, VenueResource } from '@cal-events/core'
import { freshCalendar, querySql } from '../../../../test-support/test-db.js'
import { startServer, type ErrorBody, type TestServer, venueOf } from '../../../../test-support/http.js'

// Issue 15 item 9: stored-script vectors in HTML and URL fields, over real HTTP.
const NOW = new Date('2026-11-21T03:39:06Z')
const WHEN = { start_date: '2026-12-10 20:00:00', end_date: '2026-12-10 23:00:00' }
const EVIL =
  '<p onclick="steal()">Hello <strong>world</strong></p><script>alert(1)</script><img src="x.png" onerror="alert(2)">' +
  '<a href="javascript:alert(3)">link</a><a href="https://ok.example/">fine</a><iframe src="https://evil.example/"></iframe>' +
  '<svg onload="alert(4)"></svg><style>body{}</style><a href="data:text/html,<script>alert(5)</script>">d</a>'

/** No script can run from this HTML wherever a client inserts it. */
function expectInert(html: string | undefined, label: string): void {
  expect(html, label).not.toMatch(/<script|<iframe|<svg|<style|\son\w+=|javascript:|data:text/i)
}

describe('HTML and URL fields are sanitised on write', () => {
  let calendar: Calendar
  let server: TestServer
  const tokens = {} as Record<Role, string>
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
    server = await startServer(calendar)
    for (const role of ['contributor', 'author', 'editor', 'administrator'] as Role[]) {
      tokens[role] = (await calendar.tokens.create({ role, login: role })).token
    }
  })
  afterAll(async () => {
    await server.close()
    await calendar.close()
  })
  const post = <B = unknown,>(path: string, role: Role, body: Record<string, unknown>) => server.request<B>('POST', path, { token: tokens[role], body })

  it('reduces contributors’ and authors’ event HTML to the allow-list, in the response and in the database', async () => {
    for (const role of ['contributor', 'author'] as const) {
      const res = await post<EventResource>('/events', role, {
        title: '<b>Bold</b> <script>x()</script>night <img src=x onerror=alert(1)>',
        description: EVIL,
        excerpt: EVIL,
        ...WHEN,
        categories: ['<img src=x onerror=alert(1)>Cats'],
        venue: { venue: 'Hall <script>x</script>', description: EVIL },
        organizer: [{ organizer: 'Crew', description: EVIL }],
      })
      expect(res.status, role).toBe(201)
      for (const field of ['title', 'description', 'excerpt'] as const) expectInert(res.body[field], `${role} ${field}`)
      expect(res.body.title).toBe('<b>Bold</b> night')
      expect(res.body.description).toContain('<p>Hello <strong>world</strong></p>')
      expect(res.body.description).toContain('<a href="https://ok.example/">fine</a>')
      expect(res.body.description).toContain('<img src="x.png" />')
      expectInert(venueOf(res.body)?.venue, 'venue name')
      expectInert(venueOf(res.body)?.description, 'venue description')
      expectInert(res.body.organizer[0]!.description, 'organizer description')
      expect(res.body.categories[0]!.name).toBe('Cats')
      const [stored] = await querySql<{ d: string; x: string }>(`select description as d, excerpt as x from events where id = ${res.body.id}`)
      expectInert(stored!.d, 'stored description')
      expectInert(stored!.x, 'stored excerpt')
    }
  })

  it('sanitises venue, organizer and term writes, create and update', async () => {
    const venue = await post<VenueResource>('/venues', 'contributor', { venue: 'Cellar', description: EVIL })
    expect(venue.status).toBe(201)
    expectInert(venue.body.description, 'venue create')
    const updated = await server.request<VenueResource>('PATCH', `/venues/${venue.body.id}`, { token: tokens.contributor, body: { description: EVIL, venue: 'Cellar <svg onload=x()>' } })
    expect(updated.status).toBe(200)
    expectInert(updated.body.description, 'venue update')
    expect(updated.body.venue).toBe('Cellar')
    const organizer = await post<OrganizerResource>('/organizers', 'contributor', { organizer: 'Band', description: EVIL })
    expectInert(organizer.body.description, 'organizer create')
    const category = await post<TermResource>('/categories', 'author', { name: 'Jazz <script>x</script>', description: EVIL })
    expect(category.status).toBe(201)
    expect(category.body.name).toBe('Jazz ')
    expectInert(category.body.description, 'category create')
    const renamed = await server.request<TermResource>('PATCH', `/categories/${category.body.id}`, { token: tokens.author, body: { description: `${EVIL}!` } })
    expectInert(renamed.body.description, 'category update')
    // A name that is nothing but markup is refused rather than stored empty.
    const empty = await post<ErrorBody>('/categories', 'author', { name: '<script>x</script>' })
    expect(empty.status).toBe(400)
    expect(empty.body.data.params).toHaveProperty('name')
  })

  it('keeps plain text exactly and leaves editors and administrators unfiltered HTML (WordPress single site)', async () => {
    const plain = await post<EventResource>('/events', 'contributor', { title: 'Tom & Jerry', description: 'Fish & chips > 3', ...WHEN })
    expect(plain.body.title).toBe('Tom & Jerry')
    expect(plain.body.description).toBe('<p>Fish & chips > 3</p>')
    for (const role of ['editor', 'administrator'] as const) {
      const res = await post<EventResource>('/events', role, { title: 'Raw', description: '<script>trusted()</script>', ...WHEN })
      expect(res.body.description, role).toContain('<script>trusted()</script>')
    }
  })

  it('refuses non-http(s) URLs in website fields with a 400 that writes nothing', async () => {
    const before = await querySql<{ n: string }>(`select (select count(*) from events) + (select count(*) from venues) + (select count(*) from organizers) as n`)
    const bad = ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:msgbox(1)', 'ftp://files.example/x', 'mailto:a@b.example']
    for (const website of bad) {
      for (const [path, body] of [
        ['/events', { title: 'Bad link', ...WHEN, website }],
        ['/venues', { venue: 'Bad link venue', website }],
        ['/organizers', { organizer: 'Bad link organizer', website }],
        ['/events', { title: 'Bad inline', ...WHEN, venue: { venue: 'Inline bad', website } }],
      ] as const) {
        const res = await post<ErrorBody>(path, 'administrator', body)
        expect(res.status, `${path} ${website}`).toBe(400)
        expect(res.body.code).toBe('rest_invalid_param')
      }
    }
    const after = await querySql<{ n: string }>(`select (select count(*) from events) + (select count(*) from venues) + (select count(*) from organizers) as n`)
    expect(after[0]!.n).toBe(before[0]!.n)
    const good = await post<VenueResource>('/venues', 'contributor', { venue: 'Good link', website: 'https://venue.example/path?q=1' })
    expect(good.status).toBe(201)
    expect(good.body.website).toBe('https://venue.example/path?q=1')
  })
})

describe('unfilteredHtml: "nobody"', () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW, unfilteredHtml: 'nobody' })
  })
  afterAll(() => calendar.close())

  it('sanitises administrators’ HTML too', async () => {
    const event = await calendar.events.create({ title: 'Strict', description: EVIL, ...WHEN })
    expectInert(event.description, 'administrator under nobody')
  })
})
