import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, Role, CategoryList, EventList, EventResource } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type ErrorBody, type TestServer, venueOf } from '../../../../test-support/http.js'

// Issue 15 items 5 and 6: what password-protected and non-public events must not reveal through
// search, filters and relation lookups, over real HTTP.
const NOW = new Date('2026-11-21T03:39:06Z')
type Caller = 'anonymous' | Role
const ROLES: Role[] = ['subscriber', 'contributor', 'author', 'editor', 'administrator']

function setup(options: Parameters<typeof freshCalendar>[0] = {}) {
  const ctx = {} as { calendar: Calendar; server: TestServer; tokens: Record<Role, string>; userIds: Record<Role, number> }
  beforeAll(async () => {
    ctx.calendar = await freshCalendar({ variant: 'B', now: () => NOW, ...options })
    ctx.server = await startServer(ctx.calendar)
    ctx.tokens = {} as Record<Role, string>
    ctx.userIds = {} as Record<Role, number>
    for (const role of ROLES) {
      const { token, info } = await ctx.calendar.tokens.create({ role, login: role })
      ctx.tokens[role] = token
      ctx.userIds[role] = info.userId
    }
  })
  afterAll(async () => {
    await ctx.server.close()
    await ctx.calendar.close()
  })
  const as = (caller: Caller) => (caller === 'anonymous' ? undefined : ctx.tokens[caller])
  const get = <B = unknown,>(path: string, caller: Caller = 'anonymous') => ctx.server.request<B>('GET', path, { token: as(caller) })
  return { ctx, as, get }
}

const ids = (list: { id: number }[]) => list.map((e) => e.id)

describe('password-protected events: search, filters and relation lookups (issue 15 item 5)', () => {
  const { ctx, get } = setup()
  let secret: number
  let venue: number
  let organizer: number
  beforeAll(async () => {
    const res = await ctx.server.request<EventResource>('POST', '/events', {
      token: ctx.tokens.author,
      body: {
        title: 'Secret party',
        description: 'The moonlight cobalt code',
        excerpt: 'Bring saffron',
        start_date: '2026-12-10 20:00:00',
        end_date: '2026-12-10 23:00:00',
        venue: { venue: 'Open hall', status: 'publish' },
        organizer: [{ organizer: 'Open crew', status: 'publish' }],
        categories: ['Parties'],
        tags: ['nightlife'],
        featured: true,
      },
    })
    expect(res.status).toBe(201)
    secret = res.body.id
    venue = venueOf(res.body)!.id
    organizer = res.body.organizer[0]!.id
    const locked = await ctx.server.request('PATCH', `/events/${secret}`, { token: ctx.tokens.author, body: { password: 'Open Sesame' } })
    expect(locked.status).toBe(200)
  })

  it('does not match protected text in search for callers who cannot unlock the event', async () => {
    for (const word of ['cobalt', 'saffron', 'moonlight', 'Secret cobalt']) {
      for (const caller of ['anonymous', 'subscriber', 'contributor'] as const) {
        const res = await get<EventList>(`/events?search=${encodeURIComponent(word)}`, caller)
        expect(res.status).toBe(200)
        expect(ids(res.body.events), `${caller} searching ${word}`).not.toContain(secret)
      }
      // Its author and editors may edit it, so they search all of it.
      for (const caller of ['author', 'editor', 'administrator'] as const) {
        expect(ids((await get<EventList>(`/events?search=${encodeURIComponent(word)}`, caller)).body.events), caller).toContain(secret)
      }
    }
    // The title is not blanked, so it stays searchable.
    expect(ids((await get<EventList>('/events?search=secret')).body.events)).toEqual([secret])
  })

  it('keeps blanked relations and flags out of the event filters', async () => {
    const filters = [`venue=${venue}`, `organizer=${organizer}`, 'categories=parties', 'tags=nightlife', 'featured=true', 'featured=false', 'geoloc=false']
    for (const filter of filters) {
      const anon = await get<EventList>(`/events?${filter}`)
      expect(anon.status, filter).toBe(200)
      expect(ids(anon.body.events), filter).not.toContain(secret)
    }
    for (const filter of filters.filter((f) => f !== 'featured=false')) {
      expect(ids((await get<EventList>(`/events?${filter}`, 'editor')).body.events), filter).toContain(secret)
    }
  })

  it('answers relation lookups of a protected event with empty lists unless the caller may edit it', async () => {
    for (const path of [`/venues?event=${secret}`, `/organizers?event=${secret}`, `/categories?event=${secret}&hide_empty=0`, `/tags?post=${secret}&hide_empty=0`]) {
      const anon = await get<{ total: number }>(path)
      expect(anon.status, path).toBe(200)
      expect(anon.body.total, path).toBe(0)
      expect((await get<{ total: number }>(path, 'subscriber')).body.total, path).toBe(0)
      expect((await get<{ total: number }>(path, 'author')).body.total, path).toBe(1)
      expect((await get<{ total: number }>(path, 'editor')).body.total, path).toBe(1)
    }
  })

  it('does not count a protected event for only_with_upcoming unless the caller may edit it', async () => {
    for (const [path, id] of [['/venues?only_with_upcoming=1', venue], ['/organizers?only_with_upcoming=1', organizer]] as const) {
      const key = path.startsWith('/venues') ? 'venues' : 'organizers'
      expect(ids((await get<Record<string, { id: number }[]>>(path)).body[key]!), path).not.toContain(id)
      expect(ids((await get<Record<string, { id: number }[]>>(path, 'editor')).body[key]!), path).toContain(id)
    }
  })

  it('rate-limits wrong password guesses per event and client with a 429 in the error shape', async () => {
    const other = await ctx.calendar.events.create({ title: 'Other secret', start_date: '2026-12-11 20:00:00', end_date: '2026-12-11 21:00:00' })
    await ctx.calendar.events.update(other.id, { password: 'pw' })
    for (let i = 0; i < 10; i++) {
      const res = await get<ErrorBody>(`/events/${secret}?password=guess${i}`)
      expect(res.status).toBe(403)
      expect(res.body.code).toBe('event-password-protected')
    }
    const limited = await get<ErrorBody>(`/events/${secret}?password=guess-again`)
    expect(limited.status).toBe(429)
    expect(limited.body).toMatchObject({ code: 'rest_too_many_requests', data: { status: 429 } })
    expect(typeof limited.body.message).toBe('string')
    // Even the right password is refused while the window lasts, or guessing would go on.
    expect((await get(`/events/${secret}?password=Open%20Sesame`)).status).toBe(429)
    expect((await get(`/events/by-slug/secret-party?password=Open%20Sesame`)).status).toBe(429)
    // Reading without a password is no guess; another event has its own count; editors pass.
    expect((await get(`/events/${secret}`)).status).toBe(403)
    expect((await get(`/events/${other.id}?password=nope`)).status).toBe(403)
    expect((await get(`/events/${other.id}?password=pw`)).status).toBe(200)
    expect((await get(`/events/${secret}`, 'editor')).status).toBe(200)
  })
})

describe('relations of non-public events are not public (issue 15 item 6)', () => {
  const { ctx, get } = setup()
  const HIDDEN = ['draft', 'pending', 'private', 'future', 'trash'] as const
  const events = {} as Record<(typeof HIDDEN)[number], { id: number; venue: number; organizer: number }>
  let hiddenVenue: number
  let hiddenOrganizer: number
  beforeAll(async () => {
    for (const status of HIDDEN) {
      const res = await ctx.server.request<EventResource>('POST', '/events', {
        token: ctx.tokens.administrator,
        body: {
          title: `Hidden ${status}`,
          status: status === 'trash' ? 'draft' : status,
          author: ctx.userIds.contributor,
          ...(status === 'future' ? { date: '2027-01-01 00:00:00' } : {}),
          start_date: '2026-12-10 20:00:00',
          end_date: '2026-12-10 23:00:00',
          venue: { venue: `Venue of ${status}`, status: 'publish' },
          organizer: { organizer: `Organizer of ${status}`, status: 'publish' },
          categories: [`Plan ${status}`],
        },
      })
      expect(res.status).toBe(201)
      events[status] = { id: res.body.id, venue: venueOf(res.body)!.id, organizer: res.body.organizer[0]!.id }
      if (status === 'trash') expect((await ctx.server.request('DELETE', `/events/${res.body.id}`, { token: ctx.tokens.administrator })).status).toBe(200)
    }
    hiddenVenue = (await ctx.calendar.venues.create({ venue: 'Draft venue', status: 'draft', author: ctx.userIds.contributor })).id
    hiddenOrganizer = (await ctx.calendar.organizers.create({ organizer: 'Draft organizer', status: 'draft', author: ctx.userIds.contributor })).id
  })

  it('answers relation lookups of a hidden event exactly as for a missing one', async () => {
    for (const status of HIDDEN) {
      const { id } = events[status]
      for (const [param, path] of [['event', '/venues?event='], ['event', '/organizers?event='], ['event', '/categories?hide_empty=0&event='], ['post', '/tags?hide_empty=0&post=']] as const) {
        for (const caller of ['anonymous', 'subscriber', 'author'] as const) {
          const hidden = await get<ErrorBody>(`${path}${id}`, caller)
          const missing = await get(`${path}999999`, caller)
          expect(hidden.status, `${caller} ${path}${id} (${status})`).toBe(400)
          expect(hidden.body, `${caller} ${path}${id} (${status})`).toEqual(missing.body)
          expect(hidden.body.data.params).toHaveProperty(param)
        }
      }
      const parent = await get(`/events?post_parent=${id}`)
      expect(parent.status).toBe(400)
      expect(parent.body).toEqual((await get('/events?post_parent=999999')).body)
    }
  })

  it('shows them to the owner (except in the trash) and to editors', async () => {
    for (const status of HIDDEN) {
      const { id } = events[status]
      expect((await get<{ total: number }>(`/venues?event=${id}`, 'editor')).body.total, status).toBe(1)
      expect((await get<{ total: number }>(`/categories?hide_empty=0&event=${id}`, 'administrator')).body.total, status).toBe(1)
      const own = await get(`/organizers?event=${id}`, 'contributor')
      expect(own.status, status).toBe(status === 'trash' ? 400 : 200)
    }
  })

  it('does not list terms created implicitly by events the caller cannot see', async () => {
    const names = async (caller: Caller) => (await get<CategoryList>('/categories?hide_empty=0&per_page=50', caller)).body.categories.map((c: { name: string }) => c.name)
    for (const caller of ['anonymous', 'subscriber', 'author'] as const) {
      expect((await names(caller)).filter((n: string) => n.startsWith('Plan')), caller).toEqual([])
    }
    expect((await names('editor')).filter((n: string) => n.startsWith('Plan')).length).toBe(HIDDEN.length)
    // The contributor owns the drafts (not the trashed one).
    expect((await names('contributor')).filter((n: string) => n.startsWith('Plan')).sort()).toEqual(['Plan draft', 'Plan future', 'Plan pending', 'Plan private'])
    // A single read of such a term answers as a missing id does.
    const draftTerm = (await get<CategoryList>('/categories?hide_empty=0&search=plan-draft', 'editor')).body.categories[0]!.id
    const hidden = await get(`/categories/${draftTerm}`)
    expect(hidden.status).toBe(400)
    expect(hidden.body).toEqual((await get('/categories/999999')).body)
    expect((await get(`/categories/${draftTerm}`, 'contributor')).status).toBe(200)
    expect((await get(`/categories/${draftTerm}`, 'editor')).status).toBe(200)
  })

  it('answers venue and organizer filters naming a hidden record exactly as for a missing one', async () => {
    for (const [param, id] of [['venue', hiddenVenue], ['organizer', hiddenOrganizer]] as const) {
      for (const caller of ['anonymous', 'subscriber', 'author'] as const) {
        const hidden = await get(`/events?${param}=${id}`, caller)
        expect(hidden.status, `${caller} ${param}`).toBe(400)
        expect(hidden.body).toEqual((await get(`/events?${param}=999999`, caller)).body)
      }
      expect((await get(`/events?${param}=${id}`, 'contributor')).status).toBe(200)
      expect((await get(`/events?${param}=${id}`, 'editor')).status).toBe(200)
    }
  })
})
