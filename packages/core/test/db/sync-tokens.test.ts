import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, CalendarRequest } from '@cal-events/core'
import { BACKEND, execSql, freshCalendar, querySql, workerDatabaseUrl } from '../../../../test-support/test-db.js'

const NOW = new Date('2026-11-21T03:39:06Z')
const ROOT = '/cal/events/v1'

type Item = { id: number; deleted?: true } & Record<string, unknown>
/** A page of a walk, or a refusal, as these tests read it (docs/sync.md). */
interface Page {
  [collection: string]: unknown
  events: Item[]
  venues: Item[]
  total: number
  rest_url: string
  next_rest_url?: string
  next_sync_token?: string
  code?: string
}
interface Answer {
  status: number
  headers: Record<string, string>
  body: Page
}

// Incremental sync over the HTTP handler (docs/sync.md): walks over several pages with writes
// between the pages must end with exactly what a fresh full walk returns.
describe(`sync tokens (${BACKEND})`, () => {
  let calendar: Calendar

  /** A GET through the calendar's HTTP handler; `user` signs in through the host hook. */
  const get = async (collection: string, query: string, user?: string): Promise<Answer> => {
    const request: CalendarRequest = {
      method: 'GET',
      path: `${ROOT}/${collection}`,
      query,
      headers: user ? { 'x-test-user': user } : {},
      origin: 'http://cal.test',
    }
    const res = await calendar.handle(request)
    return { status: res.status, headers: res.headers as Record<string, string>, body: res.body as Page }
  }
  /** The query string of a `next_rest_url`. */
  const queryOf = (url: string) => new URL(url).search.slice(1)

  /**
   * Follows a walk to its end, applying each page to `mirror`; `between` runs before each next
   * page. Returns the next sync token and the number of pages.
   */
  const walk = async (
    collection: string,
    query: string,
    mirror: Map<number, Item>,
    between: (page: number) => Promise<void> = async () => {},
    user?: string,
  ): Promise<{ token: string; pages: number }> => {
    let res = await get(collection, query, user)
    for (let pages = 1; ; pages++) {
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      for (const item of res.body[collection] as Item[]) {
        if (item.deleted) mirror.delete(item.id)
        else mirror.set(item.id, item)
      }
      if (!res.body.next_rest_url) {
        expect(res.body.next_sync_token).toBeTypeOf('string')
        expect(res.headers['X-Cal-Next-Sync-Token']).toBe(res.body.next_sync_token)
        return { token: res.body.next_sync_token!, pages }
      }
      expect(res.body.next_sync_token).toBeUndefined()
      expect(res.headers['X-Cal-Next-Sync-Token']).toBeUndefined()
      await between(pages)
      res = await get(collection, queryOf(res.body.next_rest_url), user)
    }
  }
  /** What a fresh full walk returns now: the truth a mirror must end with. */
  const truth = async (collection: string, filters = '', user?: string) => {
    const fresh = new Map<number, Item>()
    await walk(collection, `sync=1&per_page=50${filters}`, fresh, undefined, user)
    return fresh
  }
  const event = (title: string, day: number, extra: Record<string, unknown> = {}) =>
    calendar.events.create({
      title,
      status: 'publish',
      start_date: `2026-12-${String(day).padStart(2, '0')} 10:00:00`,
      end_date: `2026-12-${String(day).padStart(2, '0')} 11:00:00`,
      ...extra,
    })
  const idOf = async (title: string) => (await querySql<{ id: number }>(`select id from events where title = '${title}'`))[0]!.id

  beforeAll(async () => {
    calendar = await freshCalendar({
      now: () => NOW,
      authenticate: async (request) => {
        const user = request.headers['x-test-user']
        if (typeof user !== 'string') return null
        const [id, role] = user.split(':')
        return { id: Number(id), role: role as 'editor' }
      },
    })
    // Past events too: a sync walk covers every date, the default window does not apply.
    await event('Past talk', 1, { start_date: '2025-01-10 10:00:00', end_date: '2025-01-10 11:00:00', venue: { venue: 'Main Hall' } })
    for (let day = 1; day <= 7; day++) await event(`Event ${day}`, day, { venue: { venue: day % 2 ? 'Main Hall' : 'Side Room' }, categories: ['Talks'] })
    await calendar.organizers.create({ organizer: 'Org One' })
  })
  afterAll(() => calendar.close())

  it('a full walk and then a delta walk, with writes between pages, end with exactly the current set', async () => {
    const mirror = new Map<number, Item>()
    // Full walk, 3 per page; between pages: a create, an update of a served event, a trash, an
    // unpublish and a permanent delete of events not yet served.
    const full = await walk('events', 'sync=1&per_page=3', mirror, async (page) => {
      if (page === 1) {
        await event('Created during walk', 20)
        await calendar.events.update(await idOf('Past talk'), { title: 'Past talk (renamed)' })
        await calendar.events.delete(await idOf('Event 6'))
      }
      if (page === 2) {
        await calendar.events.update(await idOf('Event 7'), { status: 'draft' })
        await execSql(`delete from events where title = 'Event 5'`)
      }
    })
    expect(full.pages).toBeGreaterThanOrEqual(3)
    // The default list shows only upcoming events; the walk has the past one too.
    expect([...mirror.values()].some((e) => e.title === 'Past talk' || e.title === 'Past talk (renamed)')).toBe(true)

    // Writes after the walk, and a delta walk, 2 per page, with more writes between its pages.
    const hall = (await querySql<{ id: number }>(`select id from venues where title = 'Main Hall'`))[0]!.id
    await calendar.venues.update(hall, { venue: 'Main Hall (renamed)' })
    await event('Created after walk', 21)
    await calendar.events.update(await idOf('Event 1'), { categories: ['Talks', 'Workshops'] })
    await calendar.events.delete(await idOf('Event 2'))
    await calendar.events.update(await idOf('Event 3'), { status: 'draft' })
    await execSql(`delete from events where title = 'Event 4'`)
    let deltaPages = 0
    const delta = await walk('events', `sync_token=${encodeURIComponent(full.token)}&per_page=2`, mirror, async (page) => {
      deltaPages = page
      if (page === 1) {
        await event('Created during delta', 22)
        await calendar.events.update(await idOf('Event 1'), { title: 'Event 1 (renamed)' })
      }
      if (page === 2) await execSql(`delete from events where title = 'Created after walk'`)
    })
    expect(deltaPages).toBeGreaterThanOrEqual(2)
    // The next delta picks up what changed during the walk; then the mirror is the server's set.
    await walk('events', `sync_token=${encodeURIComponent(delta.token)}&per_page=2`, mirror)
    const now = await truth('events')
    expect([...mirror.keys()].sort()).toEqual([...now.keys()].sort())
    expect(Object.fromEntries(mirror)).toEqual(Object.fromEntries(now))
    // The venue's rename reached the events that embed it.
    expect([...mirror.values()].filter((e) => (e.venue as { venue?: string }).venue === 'Main Hall (renamed)').length).toBeGreaterThan(0)
  })

  it('reports tombstones for trashed, unpublished and deleted items, and nothing when nothing changed', async () => {
    const mirror = new Map<number, Item>()
    const { token } = await walk('events', 'sync=1', mirror)
    const quiet = await get('events', `sync_token=${encodeURIComponent(token)}`)
    expect(quiet.status).toBe(200)
    expect(quiet.body.events).toEqual([])
    expect(quiet.body.total).toBe(0)
    const a = await event('Tomb A', 23)
    const b = await event('Tomb B', 24)
    const c = await event('Tomb C', 25)
    const afterCreate = await get('events', `sync_token=${encodeURIComponent(quiet.body.next_sync_token!)}`)
    expect(afterCreate.body.events.map((e: Item) => e.id)).toEqual([a.id, b.id, c.id])
    await calendar.events.delete(a.id)
    await calendar.events.update(b.id, { status: 'draft' })
    await execSql(`delete from events where id = ${c.id}`)
    const gone = await get('events', `sync_token=${encodeURIComponent(afterCreate.body.next_sync_token!)}`)
    expect(gone.body.events).toEqual([
      { id: a.id, deleted: true },
      { id: b.id, deleted: true },
      { id: c.id, deleted: true },
    ])
    // An editor still sees the draft: for them it is an update, not a tombstone.
    const editor = '9:editor'
    const editorWalk = await walk('events', 'sync=1', new Map(), undefined, editor)
    await calendar.events.update(b.id, { title: 'Tomb B (draft, renamed)' })
    const editorDelta = await get('events', `sync_token=${encodeURIComponent(editorWalk.token)}`, editor)
    expect(editorDelta.body.events).toMatchObject([{ id: b.id, title: 'Tomb B (draft, renamed)', status: 'draft' }])
  })

  it('pages a full walk by id and keeps the total counted on its first page', async () => {
    const first = await get('events', 'sync=1&per_page=2')
    const ids: number[] = first.body.events.map((e: Item) => e.id)
    await event('Created mid-walk', 18)
    const second = await get('events', queryOf(first.body.next_rest_url!))
    ids.push(...second.body.events.map((e: Item) => e.id))
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    expect(second.body.total).toBe(first.body.total)
    expect(second.headers['X-Cal-Total']).toBe(String(first.body.total))
    expect(second.body.rest_url).toContain('sync_page=')
  })

  it('syncs a recurring series as one item with its recurrence lines; deleting an occurrence reports the series', async () => {
    const series = await calendar.events.create({
      title: 'Weekly choir',
      status: 'publish',
      start_date: '2027-03-16 10:00:00',
      end_date: '2027-03-16 11:00:00',
      timezone: 'Europe/Berlin',
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'],
    })
    const single = await event('Choir concert', 1, { start_date: '2027-06-01 19:00:00', end_date: '2027-06-01 21:00:00' })
    const mirror = new Map<number, Item>()
    const { token } = await walk('events', 'sync=1&per_page=2&search=choir', mirror)
    expect([...mirror.values()]).toMatchObject([{ id: series.id, recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'] }, { id: single.id, title: 'Choir concert' }])
    await calendar.events.deleteOccurrence(series.id, '20270330T080000Z')
    const delta = await get('events', `search=choir&sync_token=${encodeURIComponent(token)}`)
    expect(delta.body.events).toMatchObject([{ id: series.id, recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5', 'EXDATE:20270330T080000Z'] }])
  })

  it('a split (this and following) reports the ended series, the new one and the moved changed occurrence; a delta leaves the mirror equal to a full walk', async () => {
    const series = await calendar.events.create({
      title: 'Split rehearsal', status: 'publish', start_date: '2027-04-06 18:00:00', end_date: '2027-04-06 19:00:00', timezone: 'UTC', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=6'],
    })
    await calendar.events.updateOccurrence(series.id, '20270427T180000Z', { title: 'Split rehearsal (dress)' })
    const mirror = new Map<number, Item>()
    const { token } = await walk('events', 'sync=1&per_page=2&search=split', mirror)
    const split = await calendar.events.updateFollowing(series.id, '20270420T180000Z', { start_date: '2027-04-20 19:00:00', end_date: '2027-04-20 20:00:00' })
    await walk('events', `search=split&per_page=2&sync_token=${encodeURIComponent(token)}`, mirror)
    expect(mirror).toEqual(await truth('events', '&search=split'))
    const items = [...mirror.values()] as unknown as Record<string, unknown>[]
    expect(items.find((e) => e.id === series.id)).toMatchObject({ recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'] })
    expect(items.find((e) => e.id === split.id)).toMatchObject({ recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'], start_date: '2027-04-20 19:00:00' })
    expect(items.find((e) => e.title === 'Split rehearsal (dress)')).toMatchObject({ series_id: split.id, occurrence: '20270427T190000Z' })
  })

  it('syncs venues and organizers, filters included', async () => {
    for (const collection of ['venues', 'organizers'] as const) {
      const mirror = new Map<number, Item>()
      const { token } = await walk(collection, 'sync=1&per_page=1', mirror)
      const created = collection === 'venues' ? await calendar.venues.create({ venue: 'New Place' }) : await calendar.organizers.create({ organizer: 'New Org' })
      const existing = [...mirror.keys()][0]!
      if (collection === 'venues') await calendar.venues.delete(existing)
      else await calendar.organizers.delete(existing)
      const { token: next } = await walk(collection, `sync_token=${encodeURIComponent(token)}&per_page=1`, mirror)
      expect(mirror.has(created.id)).toBe(true)
      expect(mirror.has(existing)).toBe(false)
      expect(Object.fromEntries(mirror)).toEqual(Object.fromEntries(await truth(collection)))
      expect((await get(collection, `sync_token=${encodeURIComponent(next)}`)).body[collection]).toEqual([])
    }
    // A search filter: an item that stops matching leaves the set as a tombstone.
    const mirror = new Map<number, Item>()
    const { token } = await walk('venues', 'sync=1&search=Place', mirror)
    const place = [...mirror.values()].find((v) => v.venue === 'New Place')!
    await calendar.venues.update(place.id, { venue: 'New Spot' })
    const res = await get('venues', `search=Place&sync_token=${encodeURIComponent(token)}`)
    expect(res.body.venues).toEqual([{ id: place.id, deleted: true }])
  })

  it('refuses a token from another caller, filter set or collection, and sync with moving windows', async () => {
    const anonymous = (await walk('events', 'sync=1', new Map())).token
    const searched = (await walk('events', 'sync=1&search=Event', new Map())).token
    const venues = (await walk('venues', 'sync=1', new Map())).token
    const editor = (await walk('events', 'sync=1', new Map(), undefined, '9:editor')).token
    const mismatch = [
      await get('events', `sync_token=${encodeURIComponent(anonymous)}`, '9:editor'),
      await get('events', `sync_token=${encodeURIComponent(editor)}`),
      await get('events', `sync_token=${encodeURIComponent(editor)}`, '10:editor'),
      await get('events', `sync_token=${encodeURIComponent(searched)}`),
      await get('events', `search=Talk&sync_token=${encodeURIComponent(searched)}`),
      await get('events', `sync_token=${encodeURIComponent(venues)}`),
      await get('organizers', `sync_token=${encodeURIComponent(venues)}`),
    ]
    for (const res of mismatch) {
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('rest_sync_token_mismatch')
    }
    // The same user with another role sees another set: the token stood for something that is gone.
    const promoted = await get('events', `sync_token=${encodeURIComponent(editor)}`, '9:administrator')
    expect(promoted.status).toBe(410)
    expect(promoted.body.code).toBe('rest_sync_token_expired')
    // per_page may change between requests; it is not a filter.
    expect((await get('events', `per_page=7&sync_token=${encodeURIComponent(anonymous)}`)).status).toBe(200)

    const refused = [
      await get('events', 'sync=1&start_date=2026-01-01'),
      await get('events', 'sync=1&page=2'),
      await get('events', `sync=1&sync_token=${encodeURIComponent(anonymous)}`),
      await get('venues', 'sync=1&has_events=1'),
      await get('organizers', 'sync=1&only_with_upcoming=1'),
      await get('venues', 'sync=1&event=1'),
    ]
    for (const res of refused) {
      expect(res.status, JSON.stringify(res.body)).toBe(400)
      expect(res.body.code).toBe('rest_invalid_param')
    }
    // A walk cursor is not a token, nor the other way round.
    const pageOne = await get('events', 'sync=1&per_page=1')
    const cursor = new URL(pageOne.body.next_rest_url!).searchParams.get('sync_page')!
    expect((await get('events', `sync_token=${encodeURIComponent(cursor)}`)).status).toBe(400)
    expect((await get('events', `sync_page=${encodeURIComponent(anonymous)}`)).status).toBe(400)
    // Without sync parameters the list is what it was: no token, no tombstones.
    const plain = await get('events', '')
    expect(plain.body.next_sync_token).toBeUndefined()
    expect(plain.headers['X-Cal-Next-Sync-Token']).toBeUndefined()
    const off = await get('events', 'sync=0')
    const withoutLinks = ({ rest_url: _r, next_rest_url: _n, ...rest }: Record<string, unknown>) => rest
    expect(withoutLinks(off.body)).toEqual(withoutLinks(plain.body))
    expect(off.headers['X-Cal-Next-Sync-Token']).toBeUndefined()
  })

  it.runIf(BACKEND === 'postgres')('reports a transaction that commits after a later one', async () => {
    const { token } = await walk('events', 'sync=1', new Map())
    const early = new pg.Client({ connectionString: await workerDatabaseUrl() })
    const late = new pg.Client({ connectionString: await workerDatabaseUrl() })
    await Promise.all([early.connect(), late.connect()])
    const [first, second] = [await event('Commit early', 27), await event('Commit late', 28)]
    const afterCreates = await walk('events', `sync_token=${encodeURIComponent(token)}`, new Map())
    try {
      await early.query('begin')
      await early.query(`update events set title = 'Commit early (edited)' where id = ${first.id}`)
      await late.query('begin')
      await late.query(`update events set title = 'Commit late (edited)' where id = ${second.id}`)
      await late.query('commit')
      // Read with the early transaction still open: only the late one's edit is there.
      const mirror = new Map<number, Item>()
      const middle = await walk('events', `sync_token=${encodeURIComponent(afterCreates.token)}`, mirror)
      expect([...mirror.values()].map((e) => e.title)).toEqual(['Commit late (edited)'])
      await early.query('commit')
      const next = new Map<number, Item>()
      await walk('events', `sync_token=${encodeURIComponent(middle.token)}`, next)
      expect([...next.values()].map((e) => e.title)).toContain('Commit early (edited)')
    } finally {
      await early.query('rollback').catch(() => {})
      await Promise.all([early.end(), late.end()])
    }
  })
  it('reports the events that embed a renamed venue, organizer or category, and only those', async () => {
    const venue = await calendar.venues.create({ venue: 'Embed Venue' })
    const organizer = await calendar.organizers.create({ organizer: 'Embed Org' })
    const withVenue = await event('Embeds venue', 12, { venue: venue.id })
    const withOrganizer = await event('Embeds organizer', 13, { organizer: [organizer.id] })
    const withCategory = await event('Embeds category', 14, { categories: ['Embedded'] })
    await event('Embeds nothing', 15)
    const mirror = new Map<number, Item>()
    let { token } = await walk('events', 'sync=1&per_page=50', mirror)
    const changedAfter = async (write: () => Promise<unknown>) => {
      await write()
      const res = await get('events', `sync_token=${encodeURIComponent(token)}&per_page=50`)
      token = res.body.next_sync_token!
      return (res.body.events as Item[]).map((e) => e.id)
    }
    expect(await changedAfter(() => calendar.venues.update(venue.id, { venue: 'Embed Venue 2' }))).toEqual([withVenue.id])
    expect(await changedAfter(() => calendar.organizers.update(organizer.id, { organizer: 'Embed Org 2' }))).toEqual([withOrganizer.id])
    const [category] = await querySql<{ id: number }>(`select id from terms where name = 'Embedded'`)
    expect(await changedAfter(() => calendar.categories.update(category!.id, { name: 'Embedded 2' }))).toEqual([withCategory.id])
    // A term's count moves with every published event that carries it; that alone reports nothing else.
    expect(await changedAfter(() => event('Also in category', 16, { categories: ['Embedded 2'] }))).toHaveLength(1)
  })

  // Last: pruning everything makes tokens taken while any other transaction of the server is open
  // count as expired (the horizon rule of change-log.ts), which later tests would trip over.
  it('answers 410 for a token older than the pruned log, and for tampered or unknown tokens', async () => {
    const { token } = await walk('events', 'sync=1', new Map())
    await event('After the token', 26)
    expect((await get('events', `sync_token=${encodeURIComponent(token)}`)).status).toBe(200)
    // Pruned up to a change the token needs: the log cannot answer it any more.
    await execSql(`select cal_prune_changes(now() + interval '1 hour')`)
    const pruned = await get('events', `sync_token=${encodeURIComponent(token)}`)
    expect(pruned.status).toBe(410)
    expect(pruned.body).toMatchObject({ code: 'rest_sync_token_expired', data: { status: 410 } })

    const fresh = (await walk('events', 'sync=1', new Map())).token
    // Tokens are sealed: any byte changed, anywhere, and it is no token of ours.
    const bytes = Buffer.from(fresh, 'base64url')
    const flip = (at: number) => Buffer.from(bytes.map((b, i) => (i === at ? b ^ 1 : b))).toString('base64url')
    // A token of the earlier, readable format whose point a client rewound: no valid signature.
    const rewound = `${Buffer.from(JSON.stringify({ c: 'events', u: 0, v: 'anonymous', f: 'x', g: 'x', k: 't', p: '1:1:' })).toString('base64url')}.${'A'.repeat(32)}`
    for (const bad of [flip(0), flip(20), flip(bytes.length - 1), fresh.slice(0, -2), rewound, 'garbage', `${fresh}.`, 'a.b']) {
      const res = await get('events', `sync_token=${encodeURIComponent(bad)}`)
      expect(res.status, bad).toBe(410)
      expect(res.body).toMatchObject({ code: 'rest_sync_token_invalid', data: { status: 410 } })
    }
    // After a truncate the ids it removed are unknown: older tokens expire.
    const beforeTruncate = (await walk('organizers', 'sync=1', new Map())).token
    await execSql(`truncate event_organizers`)
    expect((await get('organizers', `sync_token=${encodeURIComponent(beforeTruncate)}`)).body.code).toBe('rest_sync_token_expired')
  })


  it.runIf(BACKEND === 'postgres')('keeps tokens made after a prune valid while a transaction older than the prune stays open', async () => {
    const open = new pg.Client({ connectionString: await workerDatabaseUrl() })
    await open.connect()
    try {
      // An xid held open (by a host app, or any database of the server) holds every new point's xmin back.
      await open.query('begin')
      await open.query('select pg_current_xact_id()')
      await event('Before the prune', 27)
      await execSql(`select cal_prune_changes(now() + interval '1 hour')`)
      const { token } = await walk('events', 'sync=1', new Map())
      // The same rule serves list totals: a point taken now has not "changed since" itself.
      expect(await querySql(`select cal_changed_since(pg_current_snapshot()) as changed`)).toEqual([{ changed: false }])
      const later = await event('After the prune', 28)
      const res = await get('events', `sync_token=${encodeURIComponent(token)}`)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.events.map((e: Item) => e.id)).toEqual([later.id])
    } finally {
      await open.query('rollback').catch(() => {})
      await open.end()
    }
  })
})
