import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, CategoryList, OrganizerResource, TermResource, VenueResource, EventResource } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'

// Issue 29 item 11: a validating proxy (Stoplight Prism, `--errors`) between a client and the
// server, holding both sides to the OpenAPI document the server serves. Prism answers 422 for a
// request the document does not allow and 500 for a response it does not describe, and names the
// violations in `sl-violations`. The replay is what clients send: comma lists and repeated
// parameters, 1/0 flags, sync walks, feeds, reads and writes as an administrator, errors.

/** A page of a sync walk: the last one has the next sync token. */
type SyncPage = { next_rest_url?: string; next_sync_token?: string }

const PRISM = join(import.meta.dirname, '../../../../node_modules/.bin/prism')

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

async function startPrism(documentFile: string, upstream: string): Promise<{ base: string; process: ChildProcess }> {
  const port = await freePort()
  const child = spawn(PRISM, ['proxy', documentFile, upstream, '--errors', '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += String(chunk)))
  child.stderr!.on('data', (chunk) => (output += String(chunk)))
  const deadline = Date.now() + 90_000
  while (!/Prism is listening/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`prism did not start:\n${output.slice(-2000)}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  return { base: `http://127.0.0.1:${port}`, process: child }
}

describe('the OpenAPI document holds for a replay of real requests through a validating proxy (Prism)', () => {
  let calendar: Calendar
  let server: TestServer
  let prism: { base: string; process: ChildProcess }
  let dir: string
  let admin: string
  let ids: { venue: number; organizer: number; events: number[] }
  const violations: string[] = []

  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => new Date('2026-11-21T03:39:06Z') })
    server = await startServer(calendar)
    admin = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
    const venue = await calendar.venues.create({ venue: 'Town Hall', city: 'Springfield' })
    const organizer = await calendar.organizers.create({ organizer: 'Crew', email: 'crew@example.org' })
    const second = await calendar.organizers.create({ organizer: 'Second crew' })
    ids = { venue: venue.id, organizer: organizer.id, events: [] }
    for (let i = 1; i <= 6; i++) {
      const event = await calendar.events.create({
        title: `Talk ${i}`,
        status: 'publish',
        start_date: `2027-02-0${i} 10:00:00`,
        end_date: `2027-02-0${i} 11:00:00`,
        venue: venue.id,
        organizer: [organizer.id, second.id],
        categories: [i % 2 === 0 ? 'Jazz' : 'Rock'],
        tags: ['free'],
        featured: i === 1,
      })
      ids.events.push(event.id)
    }
    await calendar.events.create({ title: 'Weekly', status: 'publish', start_date: '2027-01-04 09:00:00', end_date: '2027-01-04 10:00:00', timezone: 'Europe/Berlin', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=5'] })
    dir = mkdtempSync(join(tmpdir(), 'cal-prism-'))
    const document = await (await fetch(`${server.base}/doc`)).text()
    writeFileSync(join(dir, 'openapi.json'), document)
    prism = await startPrism(join(dir, 'openapi.json'), server.base)
  }, 180_000)

  afterAll(async () => {
    prism?.process.kill('SIGTERM')
    await server?.close()
    await calendar?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  /** Sends one request through Prism; records what it found wrong on either side. */
  async function send(method: string, path: string, init: { body?: unknown; token?: string } = {}): Promise<Response> {
    const headers: Record<string, string> = {}
    if (init.token) headers.authorization = `Bearer ${init.token}`
    if (init.body !== undefined) headers['content-type'] = 'application/json'
    const res = await fetch(`${prism.base}${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) })
    const found = res.headers.get('sl-violations')
    const type = res.headers.get('content-type') ?? ''
    if (found) violations.push(`${method} ${path}: ${found}`)
    else if (type.includes('application/problem+json')) violations.push(`${method} ${path}: ${res.status} ${await res.clone().text()}`)
    return res
  }

  // `rest_url`s end a collection with a slash (`/events/?page=2`, as the reference writes them; the
  // server reads it as `/events`), a form the document's paths do not list: a validating proxy
  // matches it against `/events/{id}` with an empty id.
  /** The JSON body of a response, for a test's reading. */
  const json = async <B,>(res: Response | Promise<Response>): Promise<B> => (await res).json() as Promise<B>
  const relative = (url: string) => url.slice(server.base.length).replace(/\/\?/, '?')

  it('passes every replayed request and response with 0 violations', async () => {
    const window = 'start_date=2027-01-01&end_date=2027-12-31'
    const terms = (await json<CategoryList>(fetch(`${server.base}/categories`))).categories.map((t) => t.id).join(',')
    const reads = [
      '/',
      '/events',
      `/events?${window}`,
      `/events?${window}&per_page=2&page=2`,
      `/events?${window}&categories=jazz,rock`,
      `/events?${window}&categories=jazz&categories=rock`,
      `/events?${window}&tags=free&featured=1`,
      `/events?${window}&featured=false&geoloc=0`,
      `/events?${window}&status=publish`,
      `/events?${window}&venue=${ids.venue},${ids.venue}`,
      `/events?${window}&organizer=${ids.organizer}&organizer=${ids.organizer + 1}`,
      `/events?${window}&search=talk`,
      `/events?include=${ids.events.slice(0, 3).join(',')}`,
      '/venues',
      '/venues?only_with_upcoming=1&has_events=true',
      '/organizers?per_page=1',
      '/categories',
      `/categories?hide_empty=1&include=${terms}`,
      '/tags',
      `/events/${ids.events[0]}`,
      '/venues/by-slug/town-hall',
      '/events/ical',
      `/events/ical?${window}&categories=jazz,rock`,
    ]
    for (const path of reads) expect.soft((await send('GET', path)).status, path).toBeLessThan(400)
    // A sync walk, its pages and a delta with a tombstone.
    let page = await json<SyncPage>(send('GET', '/events/sync?per_page=3'))
    let token: string | undefined
    for (let guard = 0; guard < 10 && !token; guard++) {
      token = page.next_sync_token
      if (!token && !page.next_rest_url) break
      if (!token) page = await json<SyncPage>(send('GET', relative(page.next_rest_url!)))
    }
    expect.soft(token).toBeTruthy()
    if (token) await send('DELETE', `/events/${ids.events[1]}`, { token: admin })
    // The same caller as the walk (a token is bound to its caller): the trashed event is a tombstone.
    if (token) expect.soft((await send('GET', `/events/sync?sync_token=${encodeURIComponent(token)}`)).status).toBe(200)
    expect((await send('GET', '/venues/sync')).status).toBe(200)
    // Writes of every kind, as an administrator.
    const created = await json<EventResource>(send('POST', '/events', { token: admin, body: { title: 'Replay', start_date: '2027-05-01 10:00:00', end_date: '2027-05-01 11:00:00', categories: ['Jazz'], venue: { venue: 'Pier', city: 'Bay' } } }))
    await send('POST', `/events/${created.id}`, { token: admin, body: { featured: true } })
    await send('PATCH', `/events/${created.id}`, { token: admin, body: { excerpt: 'Short.' } })
    const venue = await json<VenueResource>(send('POST', '/venues', { token: admin, body: { venue: 'Hall 2', city: 'Rome' } }))
    await send('PUT', `/venues/${venue.id}`, { token: admin, body: { zip: '00100' } })
    const organizer = await json<OrganizerResource>(send('POST', '/organizers', { token: admin, body: { organizer: 'Band', email: 'band@example.org' } }))
    await send('DELETE', `/organizers/${organizer.id}`, { token: admin })
    const tag = await json<TermResource>(send('POST', '/tags', { token: admin, body: { name: 'replayed' } }))
    await send('POST', `/tags/${tag.id}`, { token: admin, body: { description: 'From the replay.' } })
    await send('DELETE', `/tags/${tag.id}?force=true`, { token: admin })
    await send('POST', '/categories', { token: admin, body: { name: 'Replay category', parent: 0 } })
    await send('DELETE', `/events/${created.id}`, { token: admin })
    // Errors the document lists (a write without credentials is not replayed: the document requires
    // them, so the proxy refuses it itself, as it refuses per_page=0).
    expect((await send('GET', '/events/999999')).status).toBe(404)
    expect((await send('GET', '/events/by-slug/no-such-event')).status).toBe(400)
    expect((await send('POST', `/events/${ids.events[0]}`, { token: admin, body: { start_date: 'not a date' } })).status).toBe(400)
    expect(violations).toEqual([])
  }, 120_000)
})
