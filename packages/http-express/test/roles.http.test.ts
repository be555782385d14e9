import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, Role } from '@cal-events/core'
import { freshCalendar } from '../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../test-support/http.js'

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
    const res = await request('POST', '/events', {
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
          const read = await request('GET', `/events/${shared}`, { token: as(caller) })
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
            const still = await request('GET', `/events/${own}`, { token: tokens.administrator })
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
        expect(res.body.code).toBe('rest_forbidden')
      } else {
        expect(res.status, caller).toBe(201)
        expect(res.body.status, caller).toBe(caller === 'contributor' ? 'pending' : 'publish')
        expect(res.body.author).toBe(String(userIds[caller]))
      }
    }
  })

  it('lists what each caller may see (published, plus own items for contributors and authors)', async () => {
    const all = await request('GET', '/events?per_page=50&search=Matrix', { token: tokens.administrator })
    const byTitle = new Map<string, { owner: string; status: string }>(
      all.body.events.map((e: { title: string; status: string }) => [e.title, { owner: e.title.split(' ')[1]!, status: e.status }]),
    )
    expect(byTitle.size).toBe(OWNERS.length * STATUSES.length)
    for (const caller of CALLERS) {
      const res = await request('GET', '/events?per_page=50&search=Matrix', { token: as(caller) })
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
        const res = await request('POST', `/${collection}`, {
          token: tokens.administrator,
          body: { [nameField]: `${collection} ${owner} ${status} ${n++}`, status, author: userIds[owner as Role] },
        })
        expect(res.status).toBe(201)
        return res.body.id as number
      }
      for (const owner of OWNERS) {
        for (const status of ['publish', 'draft', 'pending', 'private']) {
          const shared = await make(owner, status)
          for (const caller of CALLERS) {
            const read = await request('GET', `/${collection}/${shared}`, { token: as(caller) })
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
        const target = (await request('POST', `/${collection}`, { token: tokens.administrator, body: { name: `${collection} target ${caller}` } })).body.id
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
