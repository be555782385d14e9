import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig, runCalEvents, startCalendarsServer, type CalendarsServer } from '@cal-events/cli'
import { scratchDatabase } from '../../../test-support/scratch-db.js'

// CAL_MULTI_CALENDAR=1 (docs/multi-calendar.md): the calendars command creates, lists and deletes
// calendars, `tokens create --calendar KEY` issues a token of one, and the server serves each under
// /calendars/{key}/cal/events/v1 on one pool, with Prometheus metrics labelled by calendar
// (CAL_METRICS=1) and a demo calendar seeded into an empty registry (CAL_DEMO=1).

const scratch = scratchDatabase(`multi_cli_${process.env.VITEST_POOL_ID ?? 0}`)
const demoScratch = scratchDatabase(`multi_demo_${process.env.VITEST_POOL_ID ?? 0}`)
let env: Record<string, string>
let server: CalendarsServer | undefined

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = []
  const err: string[] = []
  const code = await runCalEvents(argv, env, { out: (line) => out.push(line), err: (line) => err.push(line) })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

beforeAll(async () => {
  await scratch.create()
  await demoScratch.create()
  env = { DATABASE_URL: scratch.url, CAL_MULTI_CALENDAR: '1', CAL_DB_POOL_SIZE: '3', CAL_LOG_LEVEL: 'silent', PORT: '0', CAL_DB_WAIT_SECONDS: '0', CAL_METRICS: '1' }
})

afterAll(async () => {
  await server?.close()
  await scratch.drop()
  await demoScratch.drop()
})

describe('many calendars in the example server', () => {
  it('creates, lists and deletes calendars from the command line', async () => {
    expect(await run('calendars', 'create', 'chess', 'go-club', 'gone')).toMatchObject({ code: 0, out: expect.stringContaining('Created calendar go-club (schema cal_c_go_club).') })
    const list = await run('calendars', 'list')
    expect(list.code).toBe(0)
    expect(list.out.split('\n').map((line) => line.split(/\s+/)[0])).toEqual(['KEY', 'chess', 'go-club', 'gone'])
    expect(await run('calendars', 'delete', 'gone')).toMatchObject({ code: 0, out: 'Deleted calendar gone and all its data.' })
    expect((await run('calendars', 'delete', 'gone')).code).toBe(1)
    expect((await run('calendars', 'create', 'chess')).err).toContain('exists already')
    expect((await run('calendars', 'create', 'Bad_Key')).code).toBe(2)
    expect((await run('calendars', 'create')).code).toBe(2)
  })

  it('serves each calendar under /calendars/{key}, tokens bound to theirs', async () => {
    const created = await run('tokens', 'create', '--calendar', 'chess', '--role', 'editor', '--login', 'ed')
    expect(created.code).toBe(0)
    const token = created.out.split('\n').at(-1)!
    expect(token).toMatch(/^cal_/)
    expect((await run('tokens', 'list', '--calendar', 'nobody')).err).toContain('No calendar has the key "nobody"')

    server = await startCalendarsServer(loadConfig(env))
    const base = server.url.replace('{key}', 'chess')
    const event = { title: 'Blitz', start_date: '2027-03-01 19:00:00', end_date: '2027-03-01 22:00:00' }
    const post = (url: string) =>
      fetch(`${url}/events`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(event) })
    const res = await post(base)
    expect(res.status).toBe(201)
    expect(((await res.json()) as { rest_url: string }).rest_url).toContain('/calendars/chess/cal/events/v1/events/')
    expect((await post(server.url.replace('{key}', 'go-club'))).status).toBe(401)
    const unknown = await fetch(`${server.url.replace('{key}', 'nobody')}/events`)
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ code: 'rest_calendar_not_found', data: { status: 404 } })
    const malformed = await fetch(`${server.url.replace('{key}', 'No%20Key')}/events`)
    expect(malformed.status).toBe(400)
    expect(await malformed.json()).toMatchObject({ code: 'rest_invalid_calendar_key', data: { status: 400 } })
    const ready = await fetch(new URL('/readyz', base))
    expect(ready.status).toBe(200)
    // One pool for every calendar: never more connections than CAL_DB_POOL_SIZE.
    expect(server.calendars.poolStats()!.total).toBeLessThanOrEqual(3)
  })

  it('serves /metrics for every calendar of the set, each labelled by its key', async () => {
    const origin = new URL(server!.url.replace('{key}', 'chess')).origin
    await fetch(`${server!.url.replace('{key}', 'chess')}/events`)
    await fetch(`${server!.url.replace('{key}', 'chess')}/events/123456`)
    await fetch(`${server!.url.replace('{key}', 'go-club')}/events`)
    const res = await fetch(`${origin}/metrics`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await res.text()
    expect(text).toContain('cal_http_requests_total{calendar="chess",method="GET",route="/cal/events/v1/events",status="200"} 1')
    expect(text).toContain('cal_http_requests_total{calendar="chess",method="GET",route="/cal/events/v1/events/:id",status="404"} 1')
    expect(text).toContain('cal_http_requests_total{calendar="go-club",method="GET",route="/cal/events/v1/events",status="200"} 1')
    expect(text).toMatch(/cal_http_request_duration_seconds_bucket\{le="\+Inf",calendar="go-club",method="GET",route="\/cal\/events\/v1\/events"\} 1/)
    // A key no calendar has makes no series of its own: anonymous requests cannot grow the exposition.
    expect(text).not.toContain('calendar="nobody"')
    expect(text).toMatch(/cal_http_requests_total\{calendar="",method="GET",route="other",status="404"\} 1/)
    expect(text).toContain('cal_http_requests_total{calendar="",method="GET",route="/readyz",status="200"} 1')
    expect(text).toMatch(/cal_db_pool_connections\{state="total"\} [1-3]\n/)
    expect(text).toMatch(/cal_calendars_open \d/)
    expect(text).toContain('process_cpu_seconds_total')
  })
})

describe('the demo calendar of the multi-calendar server', () => {
  it('is created and seeded when the registry is empty, once', async () => {
    const demoEnv = { ...env, DATABASE_URL: demoScratch.url, CAL_DEMO: '1' }
    let demo = await startCalendarsServer(loadConfig(demoEnv))
    try {
      expect(demo.demo).toMatchObject({ key: 'demo', events: 15, venues: 4 })
      const list = await fetch(`${demo.url.replace('{key}', 'demo')}/events`)
      expect(list.status).toBe(200)
      expect(((await list.json()) as { total: number }).total).toBeGreaterThan(0)
      expect((await fetch(`${demo.url.replace('{key}', 'demo')}/events/by-slug/hudson-loft-jazz-jam`)).status).toBe(200)
      expect((await demo.calendars.list()).map((c) => c.key)).toEqual(['demo'])
    } finally {
      await demo.close()
    }
    // A registry holding calendars is not seeded again, also once the demo calendar is deleted.
    demo = await startCalendarsServer(loadConfig(demoEnv))
    try {
      expect(demo.demo).toBeUndefined()
      await demo.calendars.create('own')
      expect(await demo.calendars.delete('demo')).toBe(true)
    } finally {
      await demo.close()
    }
    demo = await startCalendarsServer(loadConfig(demoEnv))
    try {
      expect(demo.demo).toBeUndefined()
      expect((await demo.calendars.list()).map((c) => c.key)).toEqual(['own'])
    } finally {
      await demo.close()
    }
  })
})
