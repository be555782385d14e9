import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, Role, EventList, EventResource, OrganizerResource, TermResource, VenueResource } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type ErrorBody, type TestServer, venueOf } from '../../../../test-support/http.js'

const NOW = new Date('2026-11-21T03:39:06Z')
type Caller = 'anonymous' | Role
const CALLERS: Caller[] = ['anonymous', 'subscriber', 'contributor', 'author', 'editor', 'administrator']
const STATUSES = ['publish', 'future', 'draft', 'pending', 'private'] as const
const OWNERS = ['contributor', 'author'] as const

// CONTRACT 3.1, restated as a table so the test does not lean on the code it checks.
function mayRead(caller: Caller, owner: string, status: string): boolean {
  if (status === 'publish') return true
  if (caller === 'editor' || caller === 'administrator') return true
  return caller === owner
}
function mayEdit(caller: Caller, owner: string, status: string): boolean {
  if (caller === 'editor' || caller === 'administrator') return true
  if (caller !== owner) return false
  return status === 'publish' || status === 'future' ? caller === 'author' : true
}
const denied = (caller: Caller) => (caller === 'anonymous' ? 401 : 403)

/** A calendar behind a real HTTP server with one token per role; registers its own hooks. */
function withRoleTokens() {
  let calendar: Calendar
  let server: TestServer
  const tokens = {} as Record<Role, string>
  const userIds = {} as Record<Role, number>
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
    server = await startServer(calendar)
    for (const role of ['subscriber', 'contributor', 'author', 'editor', 'administrator'] as Role[]) {
      const { token, info } = await calendar.tokens.create({ role, login: role })
      tokens[role] = token
      userIds[role] = info.userId
    }
  })
  afterAll(async () => {
    await server.close()
    await calendar.close()
  })
  const request: TestServer['request'] = (...args) => server.request(...args)
  return { tokens, userIds, request }
}

describe('role × operation × status matrix for events', () => {
  const { tokens, userIds, request } = withRoleTokens()

  async function makeEvent(owner: (typeof OWNERS)[number], status: string, title: string): Promise<number> {
    const res = await request<EventResource>('POST', '/events', {
      token: tokens.administrator,
      body: {
        title,
        status,
        author: userIds[owner],
        start_date: '2027-05-01 10:00:00',
        end_date: '2027-05-01 11:00:00',
        ...(status === 'future' ? { date: '2027-01-01 00:00:00' } : {}),
      },
    })
    expect(res.status).toBe(201)
    expect(res.body.status).toBe(status)
    return res.body.id
  }
  const as = (caller: Caller) => (caller === 'anonymous' ? undefined : tokens[caller])

  it('reads, updates and deletes exactly as the contract allows', async () => {
    const mismatches: string[] = []
    for (const owner of OWNERS) {
      for (const status of STATUSES) {
        const shared = await makeEvent(owner, status, `Matrix ${owner} ${status}`)
        for (const caller of CALLERS) {
          const read = await request<Partial<ErrorBody>>('GET', `/events/${shared}`, { token: as(caller) })
          const wantRead = mayRead(caller, owner, status) ? 200 : 403
          if (read.status !== wantRead || (wantRead === 403 && read.body.code !== 'event-not-accessible')) {
            mismatches.push(`read ${caller} on ${owner}'s ${status}: ${read.status} ${read.body.code ?? ''}`)
          }
          const update = await request('PATCH', `/events/${shared}`, { token: as(caller), body: { excerpt: `by ${caller}` } })
          const wantEdit = mayEdit(caller, owner, status) ? 200 : denied(caller)
          if (update.status !== wantEdit) mismatches.push(`update ${caller} on ${owner}'s ${status}: ${update.status}`)
          const own = await makeEvent(owner, status, `Victim ${owner} ${status} ${caller}`)
          const del = await request('DELETE', `/events/${own}`, { token: as(caller) })
          if (del.status !== wantEdit) mismatches.push(`delete ${caller} on ${owner}'s ${status}: ${del.status}`)
          if (wantEdit !== 200) {
            const still = await request<EventResource>('GET', `/events/${own}`, { token: tokens.administrator })
            if (still.body.status !== status) mismatches.push(`denied delete changed ${owner}'s ${status}`)
          }
        }
      }
    }
    expect(mismatches).toEqual([])
  })

  it('lets contributors create but never publish, and nobody below them create', async () => {
    const body = { title: 'Made by', status: 'publish', start_date: '2027-05-02 10:00:00', end_date: '2027-05-02 11:00:00' }
    for (const caller of CALLERS) {
      const res = await request('POST', '/events', { token: as(caller), body })
      if (caller === 'anonymous' || caller === 'subscriber') {
        expect(res.status, caller).toBe(denied(caller))
        expect((res.body as ErrorBody).code).toBe('rest_forbidden')
      } else {
        expect(res.status, caller).toBe(201)
        expect((res.body as EventResource).status, caller).toBe(caller === 'contributor' ? 'pending' : 'publish')
        expect((res.body as EventResource).author).toBe(String(userIds[caller]))
      }
    }
  })

  it('lists what each caller may see (published, plus own items for contributors and authors)', async () => {
    const all = await request<EventList>('GET', '/events?per_page=50&search=Matrix', { token: tokens.administrator })
    const byTitle = new Map<string, { owner: string; status: string }>(
      all.body.events.map((e: { title: string; status: string }) => [e.title, { owner: e.title.split(' ')[1]!, status: e.status }]),
    )
    expect(byTitle.size).toBe(OWNERS.length * STATUSES.length)
    for (const caller of CALLERS) {
      const res = await request<EventList>('GET', '/events?per_page=50&search=Matrix', { token: as(caller) })
      const seen = res.body.events.map((e: { title: string }) => e.title).sort()
      const expected = [...byTitle]
        .filter(([, v]) => v.status === 'publish' || caller === 'editor' || caller === 'administrator' || caller === v.owner)
        .map(([t]) => t)
        .sort()
      expect(seen, caller).toEqual(expected)
    }
  })
})

describe('role × operation × status matrix for venues, organizers, categories and tags', () => {
  const { tokens, userIds, request } = withRoleTokens()
  const as = (caller: Caller) => (caller === 'anonymous' ? undefined : tokens[caller])

  for (const [collection, nameField, notAccessible] of [
    ['venues', 'venue', 'venue-not-accessible'],
    ['organizers', 'organizer', 'organizer-not-accessible'],
  ] as const) {
    it(`${collection}: reads, updates and deletes exactly as the contract allows`, async () => {
      const mismatches: string[] = []
      let n = 0
      const make = async (owner: string, status: string) => {
        const res = await request<{ id: number }>('POST', `/${collection}`, {
          token: tokens.administrator,
          body: { [nameField]: `${collection} ${owner} ${status} ${n++}`, status, author: userIds[owner as Role] },
        })
        expect(res.status).toBe(201)
        return res.body.id
      }
      for (const owner of OWNERS) {
        for (const status of ['publish', 'draft', 'pending', 'private']) {
          const shared = await make(owner, status)
          for (const caller of CALLERS) {
            const read = await request<Partial<ErrorBody>>('GET', `/${collection}/${shared}`, { token: as(caller) })
            const wantRead = mayRead(caller, owner, status) ? 200 : 403
            if (read.status !== wantRead || (wantRead === 403 && read.body.code !== notAccessible)) {
              mismatches.push(`read ${caller} on ${owner}'s ${status}: ${read.status} ${read.body.code ?? ''}`)
            }
            const wantEdit = mayEdit(caller, owner, status) ? 200 : denied(caller)
            const update = await request('PATCH', `/${collection}/${shared}`, { token: as(caller), body: { phone: caller } })
            if (update.status !== wantEdit) mismatches.push(`update ${caller} on ${owner}'s ${status}: ${update.status}`)
            const victim = await make(owner, status)
            const del = await request('DELETE', `/${collection}/${victim}`, { token: as(caller) })
            if (del.status !== wantEdit) mismatches.push(`delete ${caller} on ${owner}'s ${status}: ${del.status}`)
          }
        }
      }
      expect(mismatches).toEqual([])
    })
  }

  it('categories need author and up, tags editor and up; everybody reads', async () => {
    const mismatches: string[] = []
    for (const [collection, minimum] of [
      ['categories', 'author'],
      ['tags', 'editor'],
    ] as const) {
      const rank = (c: Caller) => CALLERS.indexOf(c)
      for (const caller of CALLERS) {
        const allowed = rank(caller) >= rank(minimum)
        const created = await request('POST', `/${collection}`, { token: as(caller), body: { name: `${collection} by ${caller}` } })
        if (created.status !== (allowed ? 201 : denied(caller))) mismatches.push(`create ${collection} as ${caller}: ${created.status}`)
        const target = (await request<TermResource>('POST', `/${collection}`, { token: tokens.administrator, body: { name: `${collection} target ${caller}` } })).body.id
        const read = await request('GET', `/${collection}/${target}`, { token: as(caller) })
        if (read.status !== 200) mismatches.push(`read ${collection} as ${caller}: ${read.status}`)
        const update = await request('PATCH', `/${collection}/${target}`, { token: as(caller), body: { description: 'x' } })
        if (update.status !== (allowed ? 200 : denied(caller))) mismatches.push(`update ${collection} as ${caller}: ${update.status}`)
        const del = await request('DELETE', `/${collection}/${target}`, { token: as(caller) })
        if (del.status !== (allowed ? 200 : denied(caller))) mismatches.push(`delete ${collection} as ${caller}: ${del.status}`)
      }
    }
    expect(mismatches).toEqual([])
  })
})

describe('role matrix: author, linking, de-duplication and relation filters (issue 15 items 3, 4, 8)', () => {
  const { tokens, userIds, request } = withRoleTokens()
  const as = (caller: Caller) => (caller === 'anonymous' ? undefined : tokens[caller])
  const CREATORS = ['contributor', 'author', 'editor', 'administrator'] as const
  const isEditor = (caller: Caller) => caller === 'editor' || caller === 'administrator'
  const WHEN = { start_date: '2027-05-01 10:00:00', end_date: '2027-05-01 11:00:00' }
  const ids = {} as Record<'publicHall' | 'secretRoom' | 'hiddenOrg' | 'den', number>
  const admin = <B,>(method: string, path: string, body?: unknown) => request<B>(method, path, { token: tokens.administrator, body })
  const rowCount = async () => {
    const [e, v, o] = await Promise.all(['events', 'venues', 'organizers'].map((c) => request<{ total: number }>('GET', `/${c}?per_page=1&status=publish,draft,pending,private,future`, { token: tokens.administrator })))
    return `${e!.body.total}/${v!.body.total}/${o!.body.total}`
  }
  beforeAll(async () => {
    ids.publicHall = (await admin<VenueResource>('POST', '/venues', { venue: 'Public Hall', address: '1 Main St', status: 'publish', author: userIds.editor })).body.id
    ids.secretRoom = (await admin<VenueResource>('POST', '/venues', { venue: 'Secret Room', address: 'Behind the bar', status: 'draft', author: userIds.editor })).body.id
    ids.hiddenOrg = (await admin<OrganizerResource>('POST', '/organizers', { organizer: 'Hidden Org', email: 'secret@example.org', status: 'private', author: userIds.editor })).body.id
    ids.den = (await request<VenueResource>('POST', '/venues', { token: tokens.contributor, body: { venue: 'Contrib Den' } })).body.id
  })

  it('lets only editors and up name another author, on every write that takes one', async () => {
    const mismatches: string[] = []
    for (const caller of CREATORS) {
      const other = caller === 'editor' ? userIds.author : userIds.editor
      const own = (await request<EventResource>('POST', '/events', { token: as(caller), body: { title: `Own by ${caller}`, ...WHEN } })).body.id
      const writes: [string, string, Record<string, unknown>][] = [
        ['POST', '/events', { title: `Authored by ${caller}`, ...WHEN, author: other }],
        ['POST', '/venues', { venue: `Venue authored by ${caller}`, author: other }],
        ['POST', '/organizers', { organizer: `Organizer authored by ${caller}`, author: other }],
        ['PATCH', `/events/${own}`, { author: other }],
        ['POST', '/events', { title: `Inline by ${caller}`, ...WHEN, venue: { venue: `Inline venue of ${caller}`, author: other } }],
      ]
      for (const [method, path, body] of writes) {
        const before = await rowCount()
        const res = await request<{ code?: string; author?: string }>(method, path, { token: as(caller), body })
        const want = isEditor(caller) ? (method === 'POST' ? 201 : 200) : 403
        if (res.status !== want) mismatches.push(`${caller} ${method} ${path}: ${res.status}`)
        if (want === 403 && (res.body.code !== 'rest_forbidden' || (await rowCount()) !== before)) mismatches.push(`${caller} ${method} ${path} changed something`)
        if (want !== 403 && path !== `/events/${own}` && body.author !== undefined && res.body.author !== String(other)) mismatches.push(`${caller} ${path}: author ${res.body.author}`)
      }
      // Naming oneself is no change of author.
      const self = await request('POST', '/events', { token: as(caller), body: { title: `Self by ${caller}`, ...WHEN, author: userIds[caller] } })
      if (self.status !== 201) mismatches.push(`${caller} naming self: ${self.status}`)
    }
    expect(mismatches).toEqual([])
  })

  it('never overwrites nor returns a record the caller may not edit through name de-duplication', async () => {
    for (const caller of ['contributor', 'author'] as const) {
      const venue = await request<VenueResource>('POST', '/venues', { token: as(caller), body: { venue: 'public hall', address: 'EVIL' } })
      expect(venue.status).toBe(201)
      expect(venue.body.id, caller).not.toBe(ids.publicHall)
      const organizer = await request<OrganizerResource>('POST', '/organizers', { token: as(caller), body: { organizer: 'hidden org', phone: '1' } })
      expect(organizer.status).toBe(201)
      expect(organizer.body.id, caller).not.toBe(ids.hiddenOrg)
      expect(organizer.body).not.toHaveProperty('email')
      const event = await request<EventResource>('POST', '/events', {
        token: as(caller),
        body: { title: `Dedup ${caller}`, ...WHEN, venue: { venue: 'Secret Room', address: 'EVIL2' }, organizer: [{ organizer: 'Hidden Org', email: 'evil@example.org' }] },
      })
      expect(event.status).toBe(201)
      expect(venueOf(event.body)?.id).not.toBe(ids.secretRoom)
      expect(event.body.organizer[0]!.id).not.toBe(ids.hiddenOrg)
    }
    const hall = (await admin<VenueResource>('GET', `/venues/${ids.publicHall}`)).body
    expect(hall.address).toBe('1 Main St')
    expect((await admin<VenueResource>('GET', `/venues/${ids.secretRoom}`)).body.address).toBe('Behind the bar')
    expect((await admin<OrganizerResource>('GET', `/organizers/${ids.hiddenOrg}`)).body.email).toBe('secret@example.org')
    // Callers who may edit the match still reuse it (CONTRACT 11.2): its owner, and editors.
    const den = await request<VenueResource>('POST', '/venues', { token: tokens.contributor, body: { venue: 'contrib den', phone: '2' } })
    expect(den.body.id).toBe(ids.den)
    const edited = await request<VenueResource>('POST', '/venues', { token: tokens.editor, body: { venue: 'PUBLIC HALL', phone: '3' } })
    expect(edited.body.id).toBe(ids.publicHall)
  })

  it('links only venues and organizers the caller may read; others answer as missing ids', async () => {
    const mismatches: string[] = []
    for (const caller of CREATORS) {
      const tries: [string, unknown, unknown][] = [
        ['venue', ids.secretRoom, 999999],
        ['venue', { id: ids.secretRoom }, { id: 999999 }],
        ['organizer', [ids.hiddenOrg], [999999]],
        ['organizer', [{ id: ids.hiddenOrg }], [{ id: 999999 }]],
      ]
      for (const [field, hidden, missing] of tries) {
        const res = await request<ErrorBody>('POST', '/events', { token: as(caller), body: { title: `Link ${caller}`, ...WHEN, [field]: hidden } })
        if (isEditor(caller)) {
          if (res.status !== 201) mismatches.push(`${caller} linking ${JSON.stringify(hidden)}: ${res.status}`)
          continue
        }
        const gone = await request<ErrorBody>('POST', '/events', { token: as(caller), body: { title: `Link ${caller}`, ...WHEN, [field]: missing } })
        // Same status, code and data; the message names the id sent.
        const shape = (b: { code: string; data: unknown }) => JSON.stringify([b.code, b.data])
        if (res.status !== 400 || shape(res.body) !== shape(gone.body)) mismatches.push(`${caller} linking ${JSON.stringify(hidden)}: ${res.status} ${res.body.code}`)
      }
      const open = await request('POST', '/events', { token: as(caller), body: { title: `Link open ${caller}`, ...WHEN, venue: ids.publicHall } })
      if (open.status !== 201) mismatches.push(`${caller} linking a published venue: ${open.status}`)
    }
    const ownDraft = await request('POST', '/events', { token: tokens.contributor, body: { title: 'Own den', ...WHEN, venue: ids.den } })
    expect(ownDraft.status).toBe(201)
    expect(mismatches).toEqual([])
  })

  it('never shows a non-public linked record to callers who may not read it, in lists, single reads and json_ld', async () => {
    const event = await admin<EventResource>('POST', '/events', { title: 'Published with hidden links', status: 'publish', ...WHEN, venue: ids.secretRoom, organizer: [ids.hiddenOrg] })
    expect(event.status).toBe(201)
    for (const caller of CALLERS) {
      const single = await request<EventResource>('GET', `/events/${event.body.id}`, { token: as(caller) })
      const listed = (await request<EventList>('GET', '/events?search=hidden%20links', { token: as(caller) })).body.events[0]!
      const sees = isEditor(caller)
      for (const [label, e] of [['single', single.body], ['list', listed]] as const) {
        expect(Array.isArray(e.venue) ? undefined : e.venue.id, `${caller} ${label} venue`).toBe(sees ? ids.secretRoom : undefined)
        expect(e.organizer.map((o: { id: number }) => o.id), `${caller} ${label} organizer`).toEqual(sees ? [ids.hiddenOrg] : [])
      }
      expect(Boolean(single.body.json_ld!.location), `${caller} json_ld location`).toBe(sees)
      expect(Boolean(single.body.json_ld!.organizer), `${caller} json_ld organizer`).toBe(sees)
      const venues = await request<{ total: number }>('GET', `/venues?event=${event.body.id}`, { token: as(caller) })
      expect(venues.body.total, `${caller} /venues?event=`).toBe(sees ? 1 : 0)
      // The iCalendar file of the event says no more than its JSON.
      const ics = await request<string>('GET', `/events/${event.body.id}/ical`, { token: as(caller) })
      expect(ics.status, `${caller} ical`).toBe(200)
      expect(String(ics.body).includes('Secret Room'), `${caller} ical LOCATION`).toBe(sees)
      expect(String(ics.body).includes('secret@example.org'), `${caller} ical ORGANIZER`).toBe(sees)
    }
  })

  it('answers event filters naming a record the caller may not read as for a missing one', async () => {
    const mismatches: string[] = []
    for (const caller of CALLERS) {
      for (const [param, id] of [['venue', ids.secretRoom], ['organizer', ids.hiddenOrg]] as const) {
        const res = await request('GET', `/events?${param}=${id}`, { token: as(caller) })
        const missing = await request('GET', `/events?${param}=999999`, { token: as(caller) })
        const want = isEditor(caller) ? 200 : 400
        if (res.status !== want || (want === 400 && JSON.stringify(res.body) !== JSON.stringify(missing.body))) mismatches.push(`${caller} ?${param}=: ${res.status}`)
      }
    }
    expect(mismatches).toEqual([])
  })
})
