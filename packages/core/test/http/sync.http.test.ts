import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCalendar, type Calendar } from '@cal-events/core'
import { createHmac } from 'node:crypto'
import { freshCalendar, querySql, workerCalendarDatabase } from '../../../../test-support/test-db.js'
import { startServer, type ErrorBody, type TestServer } from '../../../../test-support/http.js'
import { openSealedState } from '../../src/sync/sync-token.js'

/** Everything a client could decode from a token: each `.`-separated part read as base64url text. */
const readable = (token: string) => token.split('.').map((part) => Buffer.from(part, 'base64url').toString('latin1')).join(' ')
// pg_current_snapshot()'s text: xmin:xmax:xip-list.
const SNAPSHOT = /\d+:\d+:/
/** A sync answer as these tests read it: items and tombstones (`{ id, deleted: true }`), page links, the next token on the last page. */
type SyncPage = { events: { id: number; title?: string; deleted?: true }[]; rest_url: string; next_rest_url?: string; next_sync_token?: string }

// Sync tokens over a real HTTP server (docs/sync.md), with the hot-read cache on (the default):
// a repeated anonymous sync request must still see a write made by another server process, and
// a page on another origin can read the token header.
describe('sync tokens over HTTP', () => {
  let calendar: Calendar
  let other: Calendar
  let server: TestServer
  const event = (title: string) => ({ title, status: 'publish' as const, start_date: '2026-12-01 10:00:00', end_date: '2026-12-01 12:00:00' })

  beforeAll(async () => {
    calendar = await freshCalendar({ cors: { origins: ['*'] } })
    other = await createCalendar({ database: await workerCalendarDatabase(2), migrate: false })
    server = await startServer(calendar)
    for (let i = 1; i <= 3; i++) await calendar.events.create(event(`Sync ${i}`))
  })
  afterAll(async () => {
    await server.close()
    await other.close()
    await calendar.close()
  })

  it('walks to a token, then answers what another process wrote, past the response cache', async () => {
    let res = await server.request<SyncPage>('GET', '/events?sync=1&per_page=2')
    const seen: number[] = res.body.events.map((e: { id: number }) => e.id)
    expect(res.headers.get('x-cal-next-sync-token')).toBeNull()
    res = await server.request<SyncPage>('GET', `/events/${new URL(res.body.next_rest_url!).search}`)
    seen.push(...res.body.events.map((e: { id: number }) => e.id))
    expect(seen).toHaveLength(3)
    const token = res.headers.get('x-cal-next-sync-token')!
    expect(token).toBe(res.body.next_sync_token)

    const path = `/events?sync_token=${encodeURIComponent(token)}`
    // Asked twice: the second answer may come from the cache.
    for (let i = 0; i < 2; i++) expect((await server.request<SyncPage>('GET', path)).body.events).toEqual([])
    const created = await other.events.create(event('From the other process'))
    await other.events.delete(seen[0]!)
    const after = await server.request<SyncPage>('GET', path)
    expect(after.status).toBe(200)
    expect(after.body.events).toMatchObject([{ id: seen[0], deleted: true }, { id: created.id, title: 'From the other process' }])
  })

  it('hands out opaque tokens and cursors: no transaction id can be read from them, nor from an ETag', async () => {
    const first = await server.request<SyncPage>('GET', '/events?sync=1&per_page=2')
    const cursor = new URL(first.body.next_rest_url!).searchParams.get('sync_page')!
    const last = await server.request<SyncPage>('GET', `/events/${new URL(first.body.next_rest_url!).search}`)
    const token = last.body.next_sync_token as string
    const item = await server.request('GET', `/events/${last.body.events[0]!.id}`)
    for (const [what, text] of [['cursor', cursor], ['token', token], ['list ETag', first.headers.get('etag')!], ['item ETag', item.headers.get('etag')!]]) {
      expect(readable(text!), what).not.toMatch(SNAPSHOT)
      expect(readable(text!), what).not.toMatch(/"[ps]":/)
    }
    // The same state is the same token: a repeated sync answers the same bytes (and ETag).
    const again = await server.request<SyncPage>('GET', `/events/${new URL(first.body.next_rest_url!).search}`)
    expect(again.body.next_sync_token).toBe(token)
    expect(again.headers.get('etag')).toBe(last.headers.get('etag'))
  })

  it('still takes tokens and cursors of the earlier signed-JSON format, and refuses them altered', async () => {
    const key = Buffer.from((await querySql<{ secret: string }>('select secret from cal_sync_secret'))[0]!.secret, 'utf8')
    // How tokens looked before they were opaque: JSON, base64url, then 24 bytes of HMAC-SHA256.
    const legacy = (state: unknown) => {
      const text = Buffer.from(JSON.stringify(state), 'utf8').toString('base64url')
      return `${text}.${createHmac('sha256', key).update(text).digest().subarray(0, 24).toString('base64url')}`
    }
    const first = await server.request<SyncPage>('GET', '/events?sync=1&per_page=2')
    const cursor = new URL(first.body.next_rest_url!).searchParams.get('sync_page')!
    const viaCursor = await server.request<SyncPage>('GET', `/events?per_page=2&sync_page=${encodeURIComponent(legacy(openSealedState(key, cursor)))}`)
    expect(viaCursor.status).toBe(200)
    const token = viaCursor.body.next_sync_token as string
    expect(token).toBe((await server.request<SyncPage>('GET', `/events/${new URL(first.body.next_rest_url!).search}`)).body.next_sync_token)
    await calendar.events.create(event('After the legacy token'))
    const state = openSealedState(key, token)
    const viaLegacy = await server.request<SyncPage>('GET', `/events?sync_token=${encodeURIComponent(legacy(state))}`)
    const viaNew = await server.request<SyncPage>('GET', `/events?sync_token=${encodeURIComponent(token)}`)
    expect(viaLegacy.status).toBe(200)
    // The same answer but for rest_url, which echoes the token sent, and the next token, whose
    // point is when each was read (other databases of the server move it on).
    const without = (body: Record<string, unknown>) => ({ ...body, rest_url: undefined, next_sync_token: undefined })
    expect(without(viaLegacy.body)).toEqual(without(viaNew.body))
    expect(viaLegacy.body.events.map((e) => e.title)).toEqual(['After the legacy token'])
    // A legacy token whose point was rewound no longer carries our signature.
    const forged = `${legacy({ ...state, p: '1:1:' }).split('.')[0]}.${legacy(state).split('.')[1]}`
    const refused = await server.request<ErrorBody>('GET', `/events?sync_token=${encodeURIComponent(forged)}`)
    expect(refused.status).toBe(410)
    expect(refused.body.code).toBe('rest_sync_token_invalid')
  })

  it('walks on a path of its own: /events/sync starts a walk, keeps its links there, and its token answers a delta there and on the list', async () => {
    let res = await server.request<SyncPage>('GET', '/events/sync?per_page=2')
    expect(res.status).toBe(200)
    expect(res.body.next_rest_url!.startsWith(`${server.base}/events/sync/?`)).toBe(true)
    const seen: number[] = res.body.events.map((e: { id: number }) => e.id)
    for (let guard = 0; guard < 10 && res.body.next_rest_url; guard++) {
      res = await server.request<SyncPage>('GET', `/events/sync${new URL(res.body.next_rest_url!).search}`)
      seen.push(...res.body.events.map((e: { id: number }) => e.id))
    }
    const token = res.body.next_sync_token as string
    expect(token).toBe(res.headers.get('x-cal-next-sync-token'))
    const listed = await calendar.events.list({ start_date: '2000-01-01', end_date: '2100-01-01', per_page: 50 })
    expect(seen.sort((a, b) => a - b)).toEqual(listed.events.map((e) => e.id).sort((a, b) => a - b))
    // Never kept by the hot-read cache: a write in between shows at once, on both paths.
    expect((await server.request<SyncPage>('GET', `/events/sync?sync_token=${encodeURIComponent(token)}`)).body.events).toEqual([])
    const created = await other.events.create(event('Seen by the sync path'))
    for (const path of ['/events/sync', '/events']) {
      const delta = await server.request<SyncPage>('GET', `${path}?sync_token=${encodeURIComponent(token)}`)
      expect(delta.status, path).toBe(200)
      expect(delta.body.events, path).toMatchObject([{ id: created.id, title: 'Seen by the sync path' }])
    }
    // Date windows are no sync parameter: ignored there, as any parameter a route does not declare.
    expect((await server.request<SyncPage>('GET', '/events/sync?start_date=2030-01-01&per_page=50')).body.events.length).toBeGreaterThan(1)
    expect((await server.request('GET', '/venues/sync')).status).toBe(200)
    expect((await server.request('GET', '/organizers/sync')).status).toBe(200)
  })

  it('answers 410 in the error shape for a bad token, and exposes the token header to other origins', async () => {
    const res = await server.request('GET', '/events?sync_token=not-a-token', { headers: { origin: 'https://elsewhere.example' } })
    expect(res.status).toBe(410)
    expect(res.body).toEqual({ code: 'rest_sync_token_invalid', message: expect.any(String), data: { status: 410 } })
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Cal-Next-Sync-Token')
  })
})
