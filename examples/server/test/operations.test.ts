import { spawn } from 'node:child_process'
import net from 'node:net'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scratchDatabase } from '../../../test-support/scratch-db.js'
import { startTcpProxy, type TcpProxy } from '../../../test-support/tcp-proxy.js'
import { loadConfig } from '@cal-events/cli'
import { runMigrate } from '@cal-events/cli'
import { startServer, type CalendarServer } from '@cal-events/cli'

// Production operation of the example server: probes, migrate-then-start deploys, metrics,
// compression, proxies, token rotation, and starts that fail (busy port, no database).

const TOKEN_A = 'rotation-token-aaaaaaaaaaaa'
const TOKEN_B = 'rotation-token-bbbbbbbbbbbb'
const quiet = { PORT: '0', CAL_DEMO: '0', CAL_LOG_LEVEL: 'silent' }

/** GET with optional headers; the body as text (undecoded) and the headers. */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
    })
    req.on('error', reject)
    req.end()
  })
}
const json = (body: Buffer) => JSON.parse(body.toString('utf8'))
const root = (server: CalendarServer) => server.url.replace(/\/cal\/events\/v1$/, '')

async function freePort(): Promise<number> {
  const probe = net.createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as net.AddressInfo
  await new Promise((resolve) => probe.close(resolve))
  return port
}

describe('example server in production', () => {
  const database = scratchDatabase('ops')
  const env = { ...quiet, DATABASE_URL: database.url }
  beforeAll(() => database.create())
  afterAll(() => database.drop())

  it('with CAL_MIGRATE_ON_START=0 refuses an unmigrated database by name; `migrate` migrates it; then live and ready', async () => {
    const unmigrated = await startServer(loadConfig({ ...env, CAL_MIGRATE_ON_START: '0', CAL_ADMIN_TOKEN: TOKEN_A })).catch((err: Error) => err)
    expect((unmigrated as Error).message).toMatch(/^Cannot start with migrate: false: the schema "cal_events" lacks \d+ migration\(s\) \(0001-initial-schema, .*\)\. Apply them first/)
    const lines: string[] = []
    expect(await runMigrate(env, (line) => lines.push(line))).toBe(0)
    expect(lines.join('\n')).toMatch(/^Applied \d+ migration\(s\) to cal_events: 0001-initial-schema, /)
    lines.length = 0
    expect(await runMigrate(env, (line) => lines.push(line))).toBe(0)
    expect(lines).toEqual(['Schema cal_events is up to date.'])

    const ready = await startServer(loadConfig({ ...env, CAL_MIGRATE_ON_START: '0', CAL_ADMIN_TOKEN: TOKEN_A }))
    try {
      const live = await get(`${root(ready)}/healthz`)
      expect([live.status, json(live.body)]).toEqual([200, { status: 'ok', eventLoop: { windowSeconds: expect.any(Number), maxDelayMs: expect.any(Number), p99DelayMs: expect.any(Number), meanDelayMs: expect.any(Number) } }])
      const readyz = await get(`${root(ready)}/readyz`)
      expect(readyz.status).toBe(200)
      expect(json(readyz.body)).toMatchObject({ ready: true, serving: true, database: 'up', pendingMigrations: [], pool: { total: expect.any(Number) } })
    } finally {
      await ready.close()
    }
  })

  it('readyz answers 503 while the database is away and 200 again when it is back; healthz stays 200', async () => {
    const direct = new URL(database.url)
    const proxy: TcpProxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) })
    const viaProxy = new URL(database.url)
    viaProxy.host = `127.0.0.1:${proxy.port}`
    const server = await startServer(loadConfig({ ...env, DATABASE_URL: viaProxy.href, CAL_ADMIN_TOKEN: TOKEN_A }))
    try {
      expect((await get(`${root(server)}/readyz`)).status).toBe(200)
      proxy.cut()
      const down = await get(`${root(server)}/readyz`)
      expect(down.status).toBe(503)
      expect(json(down.body)).toMatchObject({ ready: false, database: 'down' })
      expect(json(down.body).error).toBeUndefined()
      expect((await get(`${root(server)}/healthz`)).status).toBe(200)
      proxy.restore()
      expect((await get(`${root(server)}/readyz`)).status).toBe(200)
    } finally {
      await server.close()
      await proxy.close()
    }
  })

  it('a changed CAL_ADMIN_TOKEN revokes the one it replaces', async () => {
    const first = await startServer(loadConfig({ ...env, CAL_ADMIN_TOKEN: TOKEN_A }))
    await first.close()
    const second = await startServer(loadConfig({ ...env, CAL_ADMIN_TOKEN: TOKEN_B }))
    try {
      const write = (token: string) =>
        fetch(`${second.url}/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: 'Rotated', start_date: '2031-01-01 10:00:00', end_date: '2031-01-01 11:00:00' }),
        })
      expect((await write(TOKEN_B)).status).toBe(201)
      expect((await write(TOKEN_A)).status).toBe(401)
      const live = (await second.calendar.tokens.list()).filter((t) => t.name === 'CAL_ADMIN_TOKEN' && t.revokedUtc === null)
      expect(live).toHaveLength(1)
    } finally {
      await second.close()
    }
  })

  it('links use https behind a trusted proxy (X-Forwarded-Proto/Host) or with an https CAL_PUBLIC_URL, and ignore forwarded headers otherwise', async () => {
    const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'cal.example.org' }
    const plain = await startServer(loadConfig({ ...env, CAL_ADMIN_TOKEN: TOKEN_B }))
    const trusting = await startServer(loadConfig({ ...env, CAL_ADMIN_TOKEN: TOKEN_B, CAL_TRUST_PROXY: 'loopback' }))
    const port = await freePort()
    const publicUrl = await startServer(loadConfig({ ...env, PORT: String(port), CAL_ADMIN_TOKEN: TOKEN_B, CAL_PUBLIC_URL: `https://127.0.0.1:${port}` }))
    try {
      const links = async (server: CalendarServer, headers: Record<string, string> = {}) => {
        const res = await get(`${server.url}/events?per_page=1&start_date=2000-01-01&end_date=2040-01-01`, headers)
        return { rest: json(res.body).rest_url as string, next: String(res.headers.link ?? '') }
      }
      expect((await links(plain, forwarded)).rest).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/cal\/events\/v1\/events\//)
      expect((await links(trusting, forwarded)).rest).toMatch(/^https:\/\/cal\.example\.org\/cal\/events\/v1\/events\//)
      // A configured public URL is the root of every link.
      expect((await links(publicUrl)).rest).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/cal\/events\/v1\/events\//)
    } finally {
      await Promise.all([plain.close(), trusting.close(), publicUrl.close()])
    }
  })

  it('serves Prometheus metrics (requests by route pattern and status, latency, pool) and gzips large bodies for clients that ask', async () => {
    const server = await startServer(loadConfig({ ...env, CAL_ADMIN_TOKEN: TOKEN_B, CAL_METRICS: '1' }))
    try {
      for (let i = 0; i < 12; i++) {
        await server.calendar.events.create({ title: `Concert number ${i} with a long enough title`, description: 'x'.repeat(200), start_date: '2031-02-01 10:00:00', end_date: '2031-02-01 11:00:00' })
      }
      const list = `${server.url}/events?per_page=12&start_date=2031-01-01&end_date=2031-12-31`
      const gz = await get(list, { 'accept-encoding': 'gzip' })
      expect(gz.headers['content-encoding']).toBe('gzip')
      const identity = await get(list)
      expect(identity.headers['content-encoding']).toBeUndefined()
      expect(JSON.parse(gunzipSync(gz.body).toString('utf8'))).toEqual(json(identity.body))
      expect(gz.body.length * 3).toBeLessThan(identity.body.length)
      await get(`${server.url}/events/999999`)
      const metrics = (await get(`${root(server)}/metrics`)).body.toString('utf8')
      expect(metrics).toContain('cal_http_requests_total{method="GET",route="/cal/events/v1/events",status="200"} 2')
      expect(metrics).toContain('cal_http_requests_total{method="GET",route="/cal/events/v1/events/:id",status="404"} 1')
      expect(metrics).toMatch(/cal_http_request_duration_seconds_bucket\{le="0.1",method="GET",route="\/cal\/events\/v1\/events"\} \d/)
      expect(metrics).toMatch(/cal_db_pool_connections\{state="total"\} \d/)
      // The event loop's delay over the same window as /healthz reports (issue 28).
      for (const stat of ['max', 'p99', 'mean']) expect(metrics).toMatch(new RegExp(`cal_event_loop_delay_seconds\\{stat="${stat}"\\} \\d`))
      expect(metrics).toContain('process_cpu_seconds_total')
    } finally {
      await server.close()
    }
  })

  it('a busy port fails the first start without spending the generated administrator token', async () => {
    const fresh = scratchDatabase('ops_port')
    await fresh.create()
    const blocker = net.createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = String((blocker.address() as net.AddressInfo).port)
    try {
      await expect(startServer(loadConfig({ ...quiet, DATABASE_URL: fresh.url, PORT: port }))).rejects.toThrow(`Port ${port} is already in use`)
      const next = await startServer(loadConfig({ ...quiet, DATABASE_URL: fresh.url }))
      try {
        expect(next.generatedAdminToken).toMatch(/^cal_/)
      } finally {
        await next.close()
      }
    } finally {
      await new Promise((resolve) => blocker.close(resolve))
      await fresh.drop()
    }
  })

  it('names the server and gives a hint when PostgreSQL is not there, and waits for one that comes up shortly', async () => {
    const port = await freePort()
    const absent = `postgres://postgres:secret@127.0.0.1:${port}/nothing`
    const failed = await startServer(loadConfig({ ...quiet, DATABASE_URL: absent, CAL_DB_WAIT_SECONDS: '0' })).catch((err: Error) => err)
    expect(failed).toBeInstanceOf(Error)
    expect((failed as Error).message).toBe(
      `Could not connect to PostgreSQL at postgres://postgres:***@127.0.0.1:${port}/nothing: connect ECONNREFUSED 127.0.0.1:${port}. Is PostgreSQL running, and are the host and port of the URL right?`,
    )
    // A server that appears 1.5 s after the start: a forwarder on that port to the real one.
    const real = new URL(database.url)
    const late = new URL(database.url)
    late.host = `127.0.0.1:${port}`
    const forwarder = net.createServer((client) => {
      const upstream = net.connect(Number(real.port || 5432), real.hostname)
      client.pipe(upstream).pipe(client)
      client.on('error', () => upstream.destroy())
      upstream.on('error', () => client.destroy())
    })
    const timer = setTimeout(() => forwarder.listen(port, '127.0.0.1'), 1500)
    try {
      const started = Date.now()
      const server = await startServer(loadConfig({ ...quiet, DATABASE_URL: late.href, CAL_ADMIN_TOKEN: TOKEN_B, CAL_DB_WAIT_SECONDS: '20' }))
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400)
      await server.close()
    } finally {
      clearTimeout(timer)
      await new Promise((resolve) => forwarder.close(resolve))
    }
  })

  it('the pnpm-free start command of the README serves, and Ctrl-C (SIGINT) stops it cleanly with exit code 0', { timeout: 90_000 }, async () => {
    // From the repository root, as the README gives it.
    const rootDir = fileURLToPath(new URL('../../../', import.meta.url))
    const child = spawn('node_modules/.bin/tsx', ['--conditions=source', 'examples/server/src/main.ts'], {
      cwd: rootDir,
      env: { ...process.env, ...env, CAL_ADMIN_TOKEN: TOKEN_B, CAL_LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    const deadline = Date.now() + 60_000
    while (!/listening at (\S+)/.test(out) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100))
    const url = /listening at (\S+)/.exec(out)?.[1]
    expect(url, out).toBeDefined()
    expect((await get(`${url}/events`)).status).toBe(200)
    child.kill('SIGINT')
    expect(await exited).toBe(0)
    expect(out).toContain('Stopped.')
  })
})
