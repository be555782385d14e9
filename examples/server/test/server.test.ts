import { execFile } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scratchDatabase } from '../../../test-support/scratch-db.js'
import { loadConfig } from '@cal-events/cli'
import { startServer, type CalendarServer } from '@cal-events/cli'
import { formatTokenTable, listTokensCommand, parseTokensArgs, revokeTokenCommand, runTokensCli, UsageError } from '@cal-events/cli'

const ADMIN_TOKEN = 'example-admin-token-0123456789'
const database = scratchDatabase('example')


interface Reply {
  status: number
  headers: Headers
  // JSON bodies are checked field by field; a loose type keeps the assertions short.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: Record<string, any>
}

async function request(base: string, method: string, path: string, init: { token?: string; body?: unknown } = {}): Promise<Reply> {
  const headers: Record<string, string> = {}
  if (init.token) headers.authorization = `Bearer ${init.token}`
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(`${base}${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) })
  return { status: res.status, headers: res.headers, body: (await res.json()) as Reply['body'] }
}

const newEvent = { title: 'Added over HTTP', start_date: '2031-05-01 10:00:00', end_date: '2031-05-01 11:00:00' }

describe('example server on PostgreSQL', () => {
  const url = new URL(database.url)
  const env = { DATABASE_URL: url.href, PORT: '0', CAL_DEMO: '1', CAL_ADMIN_TOKEN: ADMIN_TOKEN, CAL_LOG_LEVEL: 'silent' }
  let server: CalendarServer

  beforeAll(async () => {
    await database.create()
    server = await startServer(loadConfig(env))
  })
  afterAll(async () => {
    await server?.close()
    await database.drop()
  })

  it('seeds the demo calendar into the empty database and serves it', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/cal\/events\/v1$/)
    expect(server.demo).toMatchObject({ events: 15 })
    expect(server.generatedAdminToken).toBeUndefined()

    const list = await request(server.url, 'GET', '/events')
    expect(list.status).toBe(200)
    expect(list.body.total).toBeGreaterThan(0)
    expect(list.headers.get('x-cal-total')).toBe(String(list.body.total))
    expect(list.body.events.length).toBeGreaterThan(0)

    const bySlug = await request(server.url, 'GET', '/events/by-slug/hudson-loft-jazz-jam')
    expect(bySlug.status).toBe(200)
    expect(bySlug.body).toMatchObject({ title: 'Hudson Loft Jazz Jam', timezone: 'America/New_York', venue: { venue: 'Hudson Loft' } })
    const allDay = await request(server.url, 'GET', '/events/by-slug/community-book-fair')
    expect(allDay.body.all_day).toBe(true)

    expect((await request(server.url, 'GET', '/venues')).body.total).toBe(4)
    expect((await request(server.url, 'GET', '/organizers')).body.total).toBe(3)
    const { categories } = (await request(server.url, 'GET', '/categories?per_page=50')).body
    const music = categories.find((c: { name: string }) => c.name === 'Music')
    expect(categories.find((c: { name: string }) => c.name === 'Jazz')).toMatchObject({ parent: music.id })
  })

  it('accepts CAL_ADMIN_TOKEN for writes and rejects a wrong token', async () => {
    const created = await request(server.url, 'POST', '/events', { token: ADMIN_TOKEN, body: newEvent })
    expect(created.status).toBe(201)
    expect(created.body.title).toBe('Added over HTTP')

    const wrong = await request(server.url, 'POST', '/events', { token: `${ADMIN_TOKEN}x`, body: newEvent })
    expect(wrong.status).toBe(401)
    expect(wrong.body.code).toBe('rest_invalid_token')
  })

  it('issues, lists and revokes tokens through the CLI functions', async () => {
    const out: string[] = []
    expect(await runTokensCli(['create', '--role', 'editor', '--name', 'ci'], server.calendar, (l) => out.push(l))).toBe(0)
    const token = out.at(-1)!
    expect(token).toMatch(/^cal_[a-z0-9]{10}_/)

    const created = await request(server.url, 'POST', '/events', { token, body: newEvent })
    expect(created.status).toBe(201)

    const tokens = await listTokensCommand(server.calendar)
    const ci = tokens.find((t) => t.name === 'ci')!
    expect(ci).toMatchObject({ role: 'editor', revokedUtc: null })
    expect(token.startsWith(`cal_${ci.prefix}_`)).toBe(true)
    const listed: string[] = []
    expect(await runTokensCli(['list'], server.calendar, (l) => listed.push(l))).toBe(0)
    expect(listed.join('\n')).toContain(ci.prefix)
    expect(formatTokenTable(tokens).split('\n')).toHaveLength(tokens.length + 1)

    expect(await revokeTokenCommand(server.calendar, ci.prefix)).toBe(true)
    expect(await revokeTokenCommand(server.calendar, ci.prefix)).toBe(false)
    // A prefix of digits only (1 in 110 random prefixes) reads as an id first, past the id range.
    const digits = await server.calendar.tokens.register(`cal_3299362573_${'a'.repeat(43)}`, { role: 'editor', login: 'digits' })
    expect(digits.prefix).toBe('3299362573')
    expect(await revokeTokenCommand(server.calendar, '3299362573')).toBe(true)
    const revoked = await request(server.url, 'POST', '/events', { token, body: newEvent })
    expect(revoked.status).toBe(401)
    expect(revoked.body.code).toBe('rest_invalid_token')

    await expect(runTokensCli(['create', '--role', 'king'], server.calendar, () => {})).rejects.toBeInstanceOf(UsageError)
    await expect(runTokensCli(['create'], server.calendar, () => {})).rejects.toBeInstanceOf(UsageError)
    expect(await runTokensCli(['revoke', 'nosuchprefix'], server.calendar, () => {})).toBe(1)
    // Arguments are checked before any database is opened.
    expect(parseTokensArgs(['revoke', '12'])).toEqual({ command: 'revoke', idOrPrefix: '12' })
    expect(() => parseTokensArgs(['list', '--bogus'])).toThrow(UsageError)
    expect(() => parseTokensArgs([])).toThrow(UsageError)
  })

  it('lets an in-flight request finish on close, then restarts without reseeding', async () => {
    const { total } = (await request(server.url, 'GET', '/events')).body
    const arrived = once(server.server, 'request')
    const inFlight = fetch(`${server.url}/events`)
    await arrived
    const closed = server.close()
    expect((await inFlight).status).toBe(200)
    await closed
    await expect(fetch(`${server.url}/events`)).rejects.toThrow()

    // Without CAL_ADMIN_TOKEN the registered administrator token still counts: nothing generated.
    server = await startServer(loadConfig({ ...env, CAL_ADMIN_TOKEN: undefined }))
    expect(server.demo).toBeUndefined()
    expect(server.generatedAdminToken).toBeUndefined()
    expect((await request(server.url, 'GET', '/events')).body.total).toBe(total)

    // Once the last administrator token is revoked, the next start generates one.
    const out: string[] = []
    const adminId = (await listTokensCommand(server.calendar)).find((t) => t.role === 'administrator')!.id
    expect(await runTokensCli(['revoke', String(adminId)], server.calendar, (l) => out.push(l))).toBe(0)
    await server.close()
    server = await startServer(loadConfig({ ...env, CAL_ADMIN_TOKEN: undefined }))
    expect(server.generatedAdminToken).toMatch(/^cal_/)
    const created = await request(server.url, 'POST', '/events', { token: server.generatedAdminToken, body: newEvent })
    expect(created.status).toBe(201)
  })
})

// Instances of one deployment start together (the cluster starts three): each registers
// CAL_ADMIN_TOKEN on start. Started at once, two instances must both come up, and the token must
// stay live (one instance's registration must not delete or revoke the other's).
describe('two example servers started at once on one PostgreSQL database', () => {
  const pair = scratchDatabase('example_pair')
  const servers: CalendarServer[] = []

  beforeAll(async () => {
    await pair.create()
    // Migrated first, so that the two starts meet at the token rather than at the migration lock.
    const first = await startServer(loadConfig({ DATABASE_URL: pair.url, PORT: '0', CAL_DEMO: '0', CAL_LOG_LEVEL: 'silent' }))
    await first.close()
  })
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()))
    await pair.drop()
  })

  it('both start with the same CAL_ADMIN_TOKEN, round after round of a new token, and the token works on both', async () => {
    for (let round = 0; round < 4; round++) {
      const token = `pair-admin-token-${round}-0123456789`
      const env = { DATABASE_URL: pair.url, PORT: '0', CAL_DEMO: '0', CAL_ADMIN_TOKEN: token, CAL_LOG_LEVEL: 'silent' }
      const started = await Promise.allSettled([startServer(loadConfig(env)), startServer(loadConfig(env))])
      for (const s of started) if (s.status === 'fulfilled') servers.push(s.value)
      expect(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'started'))).toEqual(['started', 'started'])
      for (const server of servers) {
        expect((await request(server.url, 'POST', '/events', { token, body: newEvent })).status).toBe(201)
      }
      // The token of the round before is revoked by the new one.
      if (round > 0) expect((await request(servers[0]!.url, 'POST', '/events', { token: `pair-admin-token-${round - 1}-0123456789`, body: newEvent })).status).toBe(401)
      await Promise.all(servers.splice(0).map((s) => s.close()))
    }
  })
})

describe('example server on embedded PGlite', () => {
  it('persists into CAL_DATA_DIR, seeds the demo and keeps a second process out', { timeout: 90_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cal-example-'))
    const dataDir = join(dir, 'pglite')
    const server = await startServer(loadConfig({ CAL_DATA_DIR: dataDir, PORT: '0', CAL_LOG_LEVEL: 'silent' }))
    try {
      expect(server.generatedAdminToken).toMatch(/^cal_/)
      const list = await request(server.url, 'GET', '/events')
      expect(list.status).toBe(200)
      expect(list.body.total).toBeGreaterThan(0)

      // A second process on the same directory must refuse to start (PGlite would corrupt it).
      const main = fileURLToPath(new URL('../src/main.ts', import.meta.url))
      const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url))
      const childEnv = { ...process.env, DATABASE_URL: '', CAL_DATA_DIR: dataDir, PORT: '0', CAL_DEMO: '0', CAL_ADMIN_TOKEN: '' }
      const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        execFile(tsx, ['--conditions=source', main], { env: childEnv, timeout: 30_000 }, (err, _stdout, stderr) => {
          resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stderr })
        })
      })
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(/Could not start the server: The data directory .* is in use by process \d+/)
    } finally {
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
