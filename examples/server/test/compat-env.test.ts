import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scratchDatabase } from '../../../test-support/scratch-db.js'
import { loadConfig } from '@cal-events/cli'
import { startServer, type CalendarServer } from '@cal-events/cli'

// The example server's switches of issue 21, end to end: CAL_CORS_ORIGINS and CAL_WP_COMPAT reach
// the calendar, and the administrator token works as an application password for `admin`.

const ADMIN_TOKEN = 'compat-admin-token-0123456789'
const APP = 'https://app.example.org'
const database = scratchDatabase('compat_env')

describe('example server with CAL_CORS_ORIGINS and CAL_WP_COMPAT', () => {
  let server: CalendarServer

  beforeAll(async () => {
    await database.create()
    const env = { DATABASE_URL: new URL(database.url).href, PORT: '0', CAL_DEMO: '1', CAL_ADMIN_TOKEN: ADMIN_TOKEN, CAL_LOG_LEVEL: 'silent', CAL_CORS_ORIGINS: `${APP},*`, CAL_WP_COMPAT: '1' }
    server = await startServer(loadConfig(env))
  })
  afterAll(async () => {
    await server?.close()
    await database.drop()
  })

  it('answers preflights for the listed origin and serves the reference\'s path with Basic auth', async () => {
    const pre = await fetch(`${server.url}/events`, { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'POST' } })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe(APP)
    expect(pre.headers.get('access-control-allow-credentials')).toBe('true')
    const anyone = await fetch(`${server.url}/events`, { headers: { origin: 'https://other.example' } })
    expect(anyone.headers.get('access-control-allow-origin')).toBe('*')

    const wp = server.url.replace('/cal/events/v1', '/wp-json/tribe/events/v1')
    const basic = `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`
    const list = await fetch(`${wp}/events?status=draft,publish`, { headers: { authorization: basic } })
    expect(list.status).toBe(200)
    const body = (await list.json()) as { total: number; rest_url: string }
    expect(list.headers.get('x-tec-total')).toBe(String(body.total))
    expect(body.rest_url.startsWith(`${wp}/events/`)).toBe(true)
    expect(list.headers.get('cache-control')).toMatch(/no-store/)
  })
})
