import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { pathToFileURL } from 'node:url'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { createCalendarRouter, createHealthRouter, createMetricsRouter, createReferenceRouter } from '@cal-events/http-express'
import { freshCalendar } from '../../../test-support/test-db.js'

const run = promisify(execFile)

// The operations routers a host mounts beside the calendar: Prometheus metrics and the reference page.
describe('metrics and reference routers', () => {
  let calendar: Calendar
  let server: import('node:http').Server
  let origin: string
  beforeAll(async () => {
    calendar = await freshCalendar()
    const app = express()
    app.use(await createMetricsRouter(calendar))
    app.use(createHealthRouter(calendar))
    app.use('/api', await createReferenceRouter({ title: 'Our <calendar>' }))
    app.use('/api', createCalendarRouter(calendar))
    server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s))
    })
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    if (server) await new Promise((resolve) => server.close(resolve))
    await calendar?.close()
  })

  it('counts requests by route pattern and status, times them, and reports the pool', async () => {
    await fetch(`${origin}/api/cal/events/v1/events`)
    await fetch(`${origin}/api/cal/events/v1/events/123456`)
    await fetch(`${origin}/healthz`)
    const res = await fetch(`${origin}/metrics`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await res.text()
    expect(text).toContain('cal_http_requests_total{method="GET",route="/cal/events/v1/events",status="200"} 1')
    expect(text).toContain('cal_http_requests_total{method="GET",route="/cal/events/v1/events/:id",status="404"} 1')
    expect(text).toContain('cal_http_requests_total{method="GET",route="/healthz",status="200"} 1')
    expect(text).toMatch(/cal_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/cal\/events\/v1\/events"\} 1/)
    expect(text).toContain('process_cpu_seconds_total')
  })

  it('serves the reference page under the mount, with its viewer from the package', async () => {
    const page = await fetch(`${origin}/api/cal/events/v1/reference`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const html = await page.text()
    expect(html).toContain('<title>Our &#60;calendar&#62;</title>')
    for (const asset of ['reference/assets/swagger-ui.css', 'reference/assets/swagger-ui-bundle.js', 'reference/assets/init.js']) {
      expect(html).toContain(asset)
      const res = await fetch(`${origin}/api/cal/events/v1/${asset}`)
      expect(res.status, asset).toBe(200)
    }
    expect(await (await fetch(`${origin}/api/cal/events/v1/reference/assets/init.js`)).text()).toContain("url: 'doc'")
  })

  it('imports without prom-client installed; only the metrics router asks for it', async () => {
    // A resolve hook that hides prom-client, as in an app that never installed it.
    const dir = mkdtempSync(join(tmpdir(), 'cal-no-prom-'))
    writeFileSync(
      join(dir, 'hooks.mjs'),
      `export async function resolve(specifier, context, next) {
  if (specifier === 'prom-client' || specifier.startsWith('prom-client/')) {
    throw Object.assign(new Error("Cannot find package 'prom-client'"), { code: 'ERR_MODULE_NOT_FOUND' })
  }
  return next(specifier, context)
}
`,
    )
    writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)})\n`)
    const script = `
const http = await import('@cal-events/http-express')
if (typeof http.createCalendarRouter !== 'function') throw new Error('no router')
try {
  await http.createMetricsRouter({ routes: [], poolStats: () => undefined })
  console.log('metrics: created')
} catch (err) {
  console.log('metrics: ' + err.message)
}
`
    const { stdout } = await run(process.execPath, ['--conditions=source', '--import', 'tsx', '--import', pathToFileURL(join(dir, 'register.mjs')).href, '--input-type=module', '-e', script], {
      cwd: new URL('..', import.meta.url).pathname,
    })
    expect(stdout).toContain('metrics: createMetricsRouter needs prom-client')
  })
})
