import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { getRequestListener } from '@hono/node-server'
import type { Calendar, Calendars, EventResource, VenueResource } from '@cal-events/core'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { setOf } from './test-db.js'
import { createCalendarRouter } from '@cal-events/http-express'
import { createFetchHandler } from '@cal-events/http-fetch'

/** The adapter the HTTP contract tests run against: `CAL_HTTP_ADAPTER=fetch` (the `http-fetch` project), else Express. */
export const ADAPTER: 'express' | 'fetch' = process.env.CAL_HTTP_ADAPTER === 'fetch' ? 'fetch' : 'express'

/**
 * A response as tests read it: `body` is the parsed JSON (the text when it is not JSON), of the
 * shape the test says it expects (`request<EventResource>(…)`, `ErrorBody` for refusals);
 * `unknown` when it says none, so a test that reads a body states what it reads.
 */
export interface TestResponse<B = unknown> {
  status: number
  headers: Headers
  body: B
}

/** The body of every refusal (CONTRACT 2.1): the wire code, a message, and `data` with the status and per-code members. */
export interface ErrorBody {
  code: string
  message: string
  data: { [member: string]: unknown; status: number; params?: Record<string, string>; retry_after?: number }
}

/** A real HTTP server around the calendar's router, on a free loopback port. */
export interface TestServer {
  /** `http://127.0.0.1:PORT/cal/events/v1` */
  base: string
  request<B = TestResponse['body']>(method: string, path: string, init?: { body?: unknown; token?: string; headers?: Record<string, string>; raw?: string }): Promise<TestResponse<B>>
  close(): Promise<void>
}

/** How {@link startServer} serves: which adapter, and static HTML pages beside the API (same origin, for browser tests). */
export interface ServerOptions {
  adapter?: 'express' | 'fetch'
  /** `pathname -> HTML`, answered before the adapter sees the request. */
  pages?: Record<string, string>
}

/** A Node request handler serving every calendar of `set` under `mount` (`/calendars/:key`) through the adapter's resolver. */
export function manyHandler(set: Calendars, mount: string, adapter: 'express' | 'fetch' = ADAPTER): (req: IncomingMessage, res: ServerResponse) => void {
  if (adapter === 'fetch') {
    return getRequestListener(createFetchHandler((_request, params) => set.resolve(params.key!), { basePath: mount }), { overrideGlobalObjects: false })
  }
  const app = express()
  app.use(mount, createCalendarRouter((req) => set.resolve(req.params.key as string)))
  return app
}

/**
 * Starts the calendar on 127.0.0.1:0 behind the adapter under test: `express()` +
 * `createCalendarRouter(calendar)`, or `createFetchHandler(calendar)` served by Node's http through
 * @hono/node-server (as a Hono or plain fetch app runs on Node).
 */
export async function startServer(calendar: Calendar, mount = '', { adapter = ADAPTER, pages = {} }: ServerOptions = {}): Promise<TestServer> {
  let handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void
  const set = setOf(calendar)
  if (set) {
    // A calendar of a set (`CAL_TEST_MULTI=1`): served through a resolver, under its key.
    handler = manyHandler(set, `${mount}/calendars/:key`, adapter)
    mount = `${mount}/calendars/main`
  } else if (adapter === 'fetch') {
    const fetchHandler = createFetchHandler(calendar, { basePath: mount })
    handler = getRequestListener(fetchHandler, { overrideGlobalObjects: false })
  } else {
    const app = express()
    app.use(mount || '/', createCalendarRouter(calendar))
    handler = app
  }
  const adapterHandler = handler
  handler = (req, res) => {
    const page = pages[new URL(req.url ?? '/', 'http://localhost').pathname]
    if (page === undefined) return adapterHandler(req, res)
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page)
  }
  const server = await new Promise<Server>((resolve) => {
    const s = createServer(handler).listen(0, '127.0.0.1', () => resolve(s))
  })
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${mount}/cal/events/v1`
  return {
    base,
    async request<B>(method: string, path: string, init: { body?: unknown; token?: string; headers?: Record<string, string>; raw?: string } = {}): Promise<TestResponse<B>> {
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
      return { status: res.status, headers: res.headers, body: parsed as B }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** An event's venue, or undefined when it has none (the wire sends `[]` then). */
export function venueOf(event: EventResource): VenueResource | undefined {
  return Array.isArray(event.venue) ? undefined : event.venue
}
