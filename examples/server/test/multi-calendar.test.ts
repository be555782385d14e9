import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig, runCalEvents, startCalendarsServer, type CalendarsServer } from '@cal-events/cli'
import { scratchDatabase } from '../../../test-support/scratch-db.js'

// CAL_MULTI_CALENDAR=1 (docs/multi-calendar.md): the calendars command creates, lists and deletes
// calendars, `tokens create --calendar KEY` issues a token of one, and the server serves each under
// /calendars/{key}/cal/events/v1 on one pool.

const scratch = scratchDatabase(`multi_cli_${process.env.VITEST_POOL_ID ?? 0}`)
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
  env = { DATABASE_URL: scratch.url, CAL_MULTI_CALENDAR: '1', CAL_DB_POOL_SIZE: '3', CAL_LOG_LEVEL: 'silent', PORT: '0', CAL_DB_WAIT_SECONDS: '0' }
})

afterAll(async () => {
  await server?.close()
  await scratch.drop()
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
})
