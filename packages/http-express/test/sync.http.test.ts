import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCalendar, type Calendar } from '@cal-events/core'
import { freshCalendar, workerDatabaseUrl } from '../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../test-support/http.js'

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
    other = await createCalendar({ database: { url: await workerDatabaseUrl(), poolSize: 2 }, migrate: false })
    server = await startServer(calendar)
    for (let i = 1; i <= 3; i++) await calendar.events.create(event(`Sync ${i}`))
  })
  afterAll(async () => {
    await server.close()
    await other.close()
    await calendar.close()
  })

  it('walks to a token, then answers what another process wrote, past the response cache', async () => {
    let res = await server.request('GET', '/events?sync=1&per_page=2')
    const seen: number[] = res.body.events.map((e: { id: number }) => e.id)
    expect(res.headers.get('x-cal-next-sync-token')).toBeNull()
    res = await server.request('GET', `/events/${new URL(res.body.next_rest_url).search}`)
    seen.push(...res.body.events.map((e: { id: number }) => e.id))
    expect(seen).toHaveLength(3)
    const token = res.headers.get('x-cal-next-sync-token')!
    expect(token).toBe(res.body.next_sync_token)

    const path = `/events?sync_token=${encodeURIComponent(token)}`
    // Asked twice: the second answer may come from the cache.
    for (let i = 0; i < 2; i++) expect((await server.request('GET', path)).body.events).toEqual([])
    const created = await other.events.create(event('From the other process'))
    await other.events.delete(seen[0]!)
    const after = await server.request('GET', path)
    expect(after.status).toBe(200)
    expect(after.body.events).toMatchObject([{ id: seen[0], deleted: true }, { id: created.id, title: 'From the other process' }])
  })

  it('answers 410 in the error shape for a bad token, and exposes the token header to other origins', async () => {
    const res = await server.request('GET', '/events?sync_token=not-a-token', { headers: { origin: 'https://elsewhere.example' } })
    expect(res.status).toBe(410)
    expect(res.body).toEqual({ code: 'rest_sync_token_invalid', message: expect.any(String), data: { status: 410 } })
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Cal-Next-Sync-Token')
  })
})
