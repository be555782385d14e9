import type { AddressInfo } from 'node:net'
import express from 'express'
import type { Calendar } from '@cal-events/core'
import { createCalendarRouter } from '@cal-events/http-express'

/** A response as tests read it. */
export interface TestResponse {
  status: number
  headers: Headers
  body: any
}

/** A real HTTP server around the calendar's router, on a free loopback port. */
export interface TestServer {
  /** `http://127.0.0.1:PORT/cal/events/v1` */
  base: string
  request(method: string, path: string, init?: { body?: unknown; token?: string; headers?: Record<string, string>; raw?: string }): Promise<TestResponse>
  close(): Promise<void>
}

/** Starts `express()` + `createCalendarRouter(calendar)` on 127.0.0.1:0. */
export async function startServer(calendar: Calendar, mount = ''): Promise<TestServer> {
  const app = express()
  app.use(mount || '/', createCalendarRouter(calendar))
  const server = await new Promise<import('node:http').Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${mount}/cal/events/v1`
  return {
    base,
    async request(method, path, init = {}) {
      const headers: Record<string, string> = { ...init.headers }
      if (init.token) headers.authorization = `Bearer ${init.token}`
      let body: string | undefined = init.raw
      if (init.body !== undefined) {
        body = JSON.stringify(init.body)
        headers['content-type'] ??= 'application/json'
      }
      const res = await fetch(`${base}${path}`, { method, headers, body })
      const text = await res.text()
      let parsed: unknown = text
      try {
        parsed = text === '' ? undefined : JSON.parse(text)
      } catch {
        // Left as text: a test asserting JSON will fail on it.
      }
      return { status: res.status, headers: res.headers, body: parsed }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
