import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express5 from 'express'
import express4 from 'express4'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { createCalendarRouter } from '@cal-events/http-express'
import { freshCalendar } from '../../../test-support/test-db.js'

// The adapter's peer range is Express 4 and 5. Both read the same request differently (Express 4's
// `req.host` is the hostname without the port, and deprecated); links must come out the same.

/** A link without its query: scheme, host, port and path. */
const where = (url: string) => url.split('?')[0]

const VERSIONS = [
  { major: 4, express: express4 },
  { major: 5, express: express5 },
] as const

describe.each(VERSIONS)('mounted under /api in an Express $major app', ({ major, express }) => {
  let calendar: Calendar
  let server: Server
  let port: number
  let id: number
  const deprecations: string[] = []
  const onDeprecation = (err: Error) => deprecations.push(err.message)
  const listen = (trustProxy: boolean) => {
    const app = express()
    if (trustProxy) app.set('trust proxy', true)
    app.use('/api', createCalendarRouter(calendar))
    return new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s))
    })
  }

  beforeAll(async () => {
    // depd (Express 4's deprecation notices) reports to these listeners instead of stderr.
    process.on('deprecation', onDeprecation)
    calendar = await freshCalendar()
    id = (await calendar.events.create({ title: 'Linked', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00', status: 'publish' })).id
    server = await listen(false)
    port = (server.address() as AddressInfo).port
  })
  afterAll(async () => {
    process.off('deprecation', onDeprecation)
    await new Promise((resolve) => server.close(resolve))
    await calendar.close()
  })

  it('runs on that Express', async () => {
    const { default: pkg } = await import(major === 4 ? 'express4/package.json' : 'express/package.json', { with: { type: 'json' } })
    expect(Number((pkg as { version: string }).version.split('.')[0])).toBe(major)
  })

  it('keeps the port in rest_url and the links, and prints no deprecation warning', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/cal/events/v1/events?start_date=2030-01-01&end_date=2030-01-02`)
    expect(res.status).toBe(200)
    const body = (await res.json()) as { rest_url: string; events: { id: number }[] }
    expect(where(body.rest_url)).toBe(`http://127.0.0.1:${port}/api/cal/events/v1/events/`)
    const one = (await (await fetch(`http://127.0.0.1:${port}/api/cal/events/v1/events/${id}`)).json()) as { rest_url?: string }
    const root = (await (await fetch(`http://127.0.0.1:${port}/api/cal/events/v1`)).json()) as { routes: Record<string, { _links?: { self?: { href: string }[] } }> }
    const self = Object.values(root.routes).find((r) => r._links?.self)?._links?.self?.[0]?.href
    expect(self).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/api/cal/events/v1`))
    expect(JSON.stringify(one)).not.toContain('http://127.0.0.1/')
    expect(deprecations).toEqual([])
  })

  it('reads X-Forwarded-Host (with its port) and -Proto only behind a trusted proxy', async () => {
    const forwarded = { 'x-forwarded-host': 'calendar.example:8443, inner.example', 'x-forwarded-proto': 'https' }
    const direct = (await (await fetch(`http://127.0.0.1:${port}/api/cal/events/v1/events?start_date=2030-01-01`, { headers: forwarded })).json()) as { rest_url: string }
    expect(where(direct.rest_url)).toBe(`http://127.0.0.1:${port}/api/cal/events/v1/events/`)
    const proxied = await listen(true)
    try {
      const proxiedPort = (proxied.address() as AddressInfo).port
      const behind = (await (await fetch(`http://127.0.0.1:${proxiedPort}/api/cal/events/v1/events?start_date=2030-01-01`, { headers: forwarded })).json()) as { rest_url: string }
      expect(where(behind.rest_url)).toBe('https://calendar.example:8443/api/cal/events/v1/events/')
    } finally {
      await new Promise((resolve) => proxied.close(resolve))
    }
    expect(deprecations).toEqual([])
  })
})
