import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { createHealthRouter } from '@cal-events/http-express'
import { freshCalendar } from '../../../test-support/test-db.js'

// The Express health router reports the event loop's delay (issue 28 item 5); only this adapter
// ships an ops router, so the test lives with it.

describe('/healthz', () => {
  let calendar: Calendar
  let base: string
  let close: () => Promise<void>

  beforeAll(async () => {
    calendar = await freshCalendar()
    const app = express()
    app.use(createHealthRouter(calendar))
    const server = await new Promise<import('node:http').Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s))
    })
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    close = () => new Promise((resolve) => server.close(() => resolve()))
  })
  afterAll(async () => {
    await close()
    await calendar.close()
  })

  it("includes the event loop's delay", async () => {
    // A 120 ms block the monitor must see.
    await new Promise((resolve) => setTimeout(resolve, 50))
    const until = Date.now() + 120
    while (Date.now() < until) {
      // busy
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
    const res = await fetch(`${base}/healthz`)
    expect(res.status).toBe(200)
    const body = (await res.json()) as { status: string; eventLoop?: { maxDelayMs: number; p99DelayMs: number; meanDelayMs: number; windowSeconds: number } }
    expect(body.status).toBe('ok')
    expect(body.eventLoop).toBeDefined()
    expect(body.eventLoop!.maxDelayMs).toBeGreaterThanOrEqual(100)
    expect(body.eventLoop!.p99DelayMs).toBeGreaterThan(0)
    expect(body.eventLoop!.windowSeconds).toBeGreaterThan(0)
  })
})
