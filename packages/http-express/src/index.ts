import { Readable, type Duplex } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import express, { Router, type NextFunction, type Request, type Response } from 'express'
import { CalendarError, eventLoopDelay, type Calendar, type CalendarRequest, type CalendarResponse } from '@cal-events/core'
import { bodyReadError, calendarPrefixes, responseText, errorAnswer } from '@cal-events/core/internal'
import { BAD_REQUEST, CLIENT_ERRORS, REASONS } from './client-errors.js'

/** Options of the Express adapter. */
export interface CalendarRouterOptions {
  /** The origin of `rest_url`s. Default: protocol and host of the request, `X-Forwarded-Proto`/`-Host` honoured per Express's `trust proxy`. */
  origin?: (req: Request) => string
}

/**
 * The Express request behind a calendar request, for an `authenticate` hook that reads the host's
 * session or user; `undefined` when the request did not come through this adapter.
 *
 * @example
 * const calendar = await createCalendar({
 *   authenticate: (request) => principalOf(expressRequest(request)?.session.user),
 * })
 */
export function expressRequest(request: { native?: unknown }): Request | undefined {
  const native = request.native as Request | undefined
  // An Express request knows its app (a function); anything else came from another adapter.
  return typeof native === 'object' && native !== null && typeof native.app === 'function' ? native : undefined
}

/** A text response (an iCalendar feed) written as it is produced, at the pace the client reads. */
async function sendStream(req: Request, res: Response, response: CalendarResponse, stream: NonNullable<CalendarResponse['stream']>, onError: (err: unknown) => void): Promise<void> {
  res.status(response.status).set(response.headers)
  if (req.method === 'HEAD') {
    res.end()
    return
  }
  try {
    await pipeline(Readable.from(stream, { objectMode: false }), res)
  } catch (err) {
    // The status line is sent: a failure part-way can only cut the response short (pipeline has
    // destroyed it), and a client that went away is not an error at all.
    if ((err as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') onError(err)
  }
}

function send(req: Request, res: Response, response: CalendarResponse): void {
  // res.send() would rewrite the contract's `charset=UTF-8`; write the body ourselves. As a string,
  // Node sends it in one write with the headers and never copies it into a Buffer first.
  res.status(response.status).set(response.headers)
  const text = responseText(response)
  // A preflight answer (204) has no body at all.
  if (text === undefined) {
    res.end()
    return
  }
  res.set('Content-Length', String(Buffer.byteLength(text, 'utf8')))
  if (req.method === 'HEAD') res.end()
  else res.end(text, 'utf8')
}

/**
 * The Host the client asked for, port included, as Express 5's `req.host` reads it: the first
 * X-Forwarded-Host when the app's `trust proxy` trusts the peer, else the Host header. Express 4's
 * `req.host` is the hostname without the port (and deprecated), so neither is read.
 */
function requestHost(req: Request): string | undefined {
  const trust = req.app.get('trust proxy fn') as ((address: string | undefined, hop: number) => boolean) | undefined
  const forwarded = req.get('x-forwarded-host')
  // An empty Host stays empty, for the calendar to refuse; only a missing one falls back.
  return forwarded && trust?.(req.socket.remoteAddress, 0) ? forwarded.split(',')[0]!.trimEnd() : req.get('host')
}

/**
 * The request's own origin. A Host is only `host[:port]`, but an origin a hook returns may carry a
 * path, so a `/`, `?`, `#` or `\\` in the Host (`evil.example/../x`) would read as one and be
 * reflected into every link: escaped, it is a malformed Host that the calendar refuses.
 */
function defaultOrigin(req: Request): string {
  const host = requestHost(req) ?? 'localhost'
  return `${req.protocol}://${host.replace(/[/?#\\]/g, encodeURIComponent)}`
}

/**
 * Picks the calendar of a request (a calendar set's `resolve(req.params.key)`, say): `undefined`
 * answers 404 `rest_calendar_not_found`; a thrown `CalendarError` answers as itself (a malformed
 * key 400). The router is created with `mergeParams`, so the mount's parameters are in `req.params`.
 */
export type CalendarResolver = (req: Request) => Calendar | undefined | Promise<Calendar | undefined>

/** Every prefix a calendar may answer under; with a resolver, each calendar's own (`wpCompat`) decide. */
const ALL_PREFIXES = calendarPrefixes({ wpCompat: true })

/**
 * An `express.Router` serving the calendar under `/cal/events/v1` (and `/wp-json/tribe/events/v1`
 * with the `wpCompat` option); mount it with `app.use(router)` or under a prefix (`app.use('/api', router)`).
 * Given a resolver instead of a calendar, it serves many (docs/multi-calendar.md): each request
 * goes to the calendar the resolver picks, and its links keep the mount (`/groups/chess/cal/events/v1/…`).
 *
 * @example
 * const calendar = await createCalendar({ database: { url: process.env.DATABASE_URL! } })
 * app.use('/api', createCalendarRouter(calendar))
 * // Many calendars: app.use('/groups/:group', createCalendarRouter((req) => calendars.resolve(req.params.group!)))
 */
export function createCalendarRouter(calendar: Calendar | CalendarResolver, options: CalendarRouterOptions = {}): Router {
  const router = Router({ mergeParams: true })
  if (typeof calendar !== 'function') {
    const serve = servingOf(calendar, options)
    router.use(serve.prefixes, serve.handlers)
    router.use(serve.prefixes, serve.onError)
    return router
  }
  const resolve = calendar
  // One set of handlers per calendar object, made when it is first served.
  const servers = new WeakMap<Calendar, Serving>()
  router.use(ALL_PREFIXES, (req: Request, res: Response, next: NextFunction) => {
    let found: Calendar | undefined | Promise<Calendar | undefined>
    try {
      found = resolve(req)
    } catch (err) {
      found = Promise.reject(err)
    }
    Promise.resolve(found).then(
      (picked) => {
        if (!picked) return send(req, res, errorAnswer(new CalendarError('CALENDAR_NOT_FOUND', 'No calendar has this key.')))
        let serve = servers.get(picked)
        if (!serve) servers.set(picked, (serve = servingOf(picked, options)))
        // The WordPress path of a calendar without `wpCompat` is not served: the host's 404.
        if (!serve.prefixes.some((p) => req.baseUrl.endsWith(p))) return next()
        runChain(serve, req, res, next)
      },
      // Unexpected failures of the resolver (the registry's database away) go to the host's handler.
      (err: unknown) => (err instanceof CalendarError ? send(req, res, errorAnswer(err)) : next(err)),
    )
  })
  return router
}

/** One calendar's handlers: the prefixes it answers under, its request chain and its error handler. */
interface Serving {
  prefixes: string[]
  handlers: ((req: Request, res: Response, next: NextFunction) => unknown)[]
  onError: (err: unknown, req: Request, res: Response, next: NextFunction) => void
}

/** Runs a calendar's chain by hand (the resolver picked it inside one middleware); an error goes to its error handler. */
function runChain(serve: Serving, req: Request, res: Response, next: NextFunction): void {
  let at = 0
  const step = (err?: unknown): void => {
    if (err !== undefined && err !== null && err !== 'route' && err !== 'router') return serve.onError(err, req, res, next)
    const handler = serve.handlers[at++]
    if (!handler) return next()
    try {
      const result = handler(req, res, step)
      if (result instanceof Promise) result.catch(step)
    } catch (thrown) {
      step(thrown)
    }
  }
  step()
}

function servingOf(calendar: Calendar, options: CalendarRouterOptions): Serving {
  // With `wpCompat` the reference plugin's path is served too, by the same handler.
  const prefixes = calendarPrefixes(calendar.options)
  // Bytes go to the calendar unparsed: it owns content types, JSON errors and the size limit.
  const readBody = express.raw({ type: () => true, limit: calendar.options.maxBodyBytes })
  /** What the calendar reads of every request; the fast path reads nothing else. */
  const requestLine = (req: Request): CalendarRequest => {
    const prefix = prefixes.find((p) => req.baseUrl.endsWith(p)) ?? prefixes[0]!
    const url = req.originalUrl
    const queryStart = url.indexOf('?')
    return {
      method: req.method,
      path: `${prefix}${req.path === '/' ? '' : req.path}`,
      query: queryStart === -1 ? '' : url.slice(queryStart + 1),
      headers: req.headers,
      // req.protocol and req.host read X-Forwarded-Proto and X-Forwarded-Host only when the app's
      // `trust proxy` setting trusts the peer; otherwise a client could forge the links.
      // An empty or malformed Host is passed on for the calendar to refuse (400).
      origin: options.origin ? options.origin(req) : defaultOrigin(req),
      mountPath: req.baseUrl.slice(0, req.baseUrl.length - prefix.length),
    }
  }
  const calendarRequest = (req: Request): CalendarRequest => ({
    ...requestLine(req),
    body: req.body,
    client: req.ip ?? req.socket.remoteAddress ?? '',
    native: req,
  })
  // The hot-read cache's fast path first: a kept anonymous answer is written without reading the
  // body, building the full request or routing (docs/response-cache.md). Everything else goes on.
  const fromCache = (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next()
    const found = calendar.cachedAnswer(requestLine(req))
    if (!found) return next()
    found.then((answer) => {
      if (!answer) return next()
      res.writeHead(answer.status, answer.headers)
      res.end(answer.body)
    }, next)
  }
  // With the cache off, or callers told apart by a host hook, there is never a kept answer to find.
  const first = calendar.options.responseCache === false || calendar.options.authenticate ? [] : [fromCache]
  const answer = async (req: Request, res: Response) => {
    const response = await calendar.handle(calendarRequest(req))
    if (response.stream) await sendStream(req, res, response, response.stream, (err) => calendar.options.onError?.(err))
    else send(req, res, response)
  }
  return {
    prefixes,
    handlers: [...first, readBody, answer],
    onError: (err: unknown, req: Request, res: Response, next: NextFunction) => {
      if (res.headersSent) return next(err)
      // Failures of Express's body reader, told in the calendar's own error shape; with the
      // request, so a browser on a CORS-listed origin can read this answer too.
      send(req, res, calendar.toErrorResponse(bodyReadError(err), calendarRequest(req)))
    },
  }
}

/** Options of the health router. */
export interface HealthRouterOptions {
  /** How long `/readyz` waits for the database. Default 2000 ms. */
  timeoutMs?: number
  /** The host's own readiness on top of the database's (false while starting or draining). */
  ready?: () => boolean
}

/**
 * Probes for orchestrators and load balancers: `GET /healthz` answers 200 while the process serves
 * requests (liveness, never touches the database), with the event loop's delay over the last 10 to
 * 20 seconds (`eventLoop`: `maxDelayMs`, `p99DelayMs`, `meanDelayMs`, `windowSeconds`); `GET /readyz` answers 200 when the database
 * answers and every migration is applied, else 503, with the calendar's health report as JSON.
 * A calendar set (`createCalendars`) has a `health` too: the shared database answering.
 *
 * @example
 * app.use(createHealthRouter(calendar))
 */
export function createHealthRouter(calendar: Pick<Calendar, 'health'>, options: HealthRouterOptions = {}): Router {
  const router = Router()
  router.get('/healthz', (_req: Request, res: Response) => {
    // The loop's recent delay: a process that answers but stalls its host shows it here.
    res.set('Cache-Control', 'no-store').json({ status: 'ok', eventLoop: eventLoopDelay() })
  })
  router.get('/readyz', async (_req: Request, res: Response) => {
    const host = options.ready ? options.ready() : true
    // The error text stays out of the body: it can name internal hosts.
    const { error: _error, ...health } = await calendar.health(options.timeoutMs)
    const ready = host && health.ready
    res.status(ready ? 200 : 503).set('Cache-Control', 'no-store').json({ ...health, ready, serving: host })
  })
  return router
}


/**
 * A `clientError` listener for the Node HTTP server: requests Node rejects before Express sees them
 * (malformed request line, headers too large) are answered in the calendar's JSON error shape
 * instead of Node's bare status line.
 *
 * @example
 * const server = app.listen(3000)
 * server.on('clientError', answerClientError)
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  // A reset peer or a response already under way cannot take an answer: just drop the connection.
  const busy = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true
  if (err.code === 'ECONNRESET' || !socket.writable || busy) {
    socket.destroy()
    return
  }
  const { status, code, message } = (err.code && CLIENT_ERRORS[err.code]) || BAD_REQUEST
  const body = JSON.stringify({ code, message, data: { status } })
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  )
  // end() flushes the answer first; destroy() after it stops a peer that never reads from holding the socket.
  socket.once('finish', () => socket.destroy())
}

export { createMetricsRouter } from './metrics.js'
export type { MetricsRegistry, MetricsRouter, MetricsRouterOptions, RequestObserver } from './metrics.js'
export { createReferenceRouter } from './reference.js'
export type { ReferenceRouterOptions } from './reference.js'
