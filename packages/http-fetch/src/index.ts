import { CalendarError, type Calendar, type CalendarRequest, type CalendarResponse } from '@cal-events/core'
import { calendarPrefixes, readRequestBody, responseText, errorAnswer } from '@cal-events/core/internal'

/** Options of the fetch adapter. */
export interface FetchHandlerOptions {
  /**
   * The path the handler is mounted under (`/api`): requests arrive with it, `rest_url`s keep it.
   * Default: none. With a resolver it may hold `:name` segments (`/calendars/:key`), given to the resolver.
   */
  basePath?: string
  /**
   * The origin of `rest_url`s. Default: the request URL's protocol and the `Host` header as sent
   * (else the URL's host); `X-Forwarded-*` never count. Behind a proxy, return the public origin here.
   */
  origin?: (request: Request) => string
  /** The client's address (password guesses are counted per client). Default: read from the handler's second argument, else none. */
  client?: (request: Request, context?: unknown) => string | undefined
  /** With a resolver: told of a resolver's unexpected failure (answered 500). */
  onResolveError?: (err: unknown) => void
}

/**
 * The calendar as a fetch handler. The optional second argument is what the runtime passes beside
 * the request (Deno's `info`, @hono/node-server's `env`): the client's address is read from it.
 */
export type FetchHandler = (request: Request, context?: unknown) => Promise<Response>

/**
 * The fetch `Request` behind a calendar request, for an `authenticate` hook that reads the host's
 * session cookie or header; `undefined` when the request did not come through this adapter.
 *
 * @example
 * const calendar = await createCalendar({
 *   authenticate: (request) => principalOf(fetchRequest(request)?.headers.get('cookie')),
 * })
 */
export function fetchRequest(request: { native?: unknown }): Request | undefined {
  const native = request.native as Request | undefined
  // Duck-typed: runtimes and servers (@hono/node-server) bring their own Request classes.
  return typeof native === 'object' && native !== null && typeof native.url === 'string' && typeof native.headers?.get === 'function' && !('app' in native) ? native : undefined
}

/** The client's address from what Deno (`info.remoteAddr`) or @hono/node-server (`env.incoming`) pass beside the request. */
function clientOf(context: unknown): string | undefined {
  const c = context as { remoteAddr?: { hostname?: unknown }; incoming?: { socket?: { remoteAddress?: unknown } } } | undefined
  const address = c?.remoteAddr?.hostname ?? c?.incoming?.socket?.remoteAddress
  return typeof address === 'string' ? address : undefined
}

/** A streamed text answer (an iCalendar feed) as bytes, produced as the client reads. */
function streamed(source: NonNullable<CalendarResponse['stream']>, onError: (err: unknown) => void): ReadableStream<Uint8Array> {
  const iterator = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]()
  const encoder = new TextEncoder()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next()
        if (next.done) controller.close()
        else controller.enqueue(encoder.encode(next.value))
      } catch (err) {
        // The status line is sent: a failure part-way can only cut the response short.
        onError(err)
        controller.error(err)
      }
    },
    async cancel() {
      // The client went away: no error, but the producer stops (its database cursor is released).
      await iterator.return?.()
    },
  })
}

/** `handle`'s answer as a `Response`, with the bytes and headers the Express adapter writes. */
function toResponse(method: string, response: CalendarResponse, onError: (err: unknown) => void): Response {
  const headers = new Headers(response.headers)
  if (response.stream) {
    return new Response(method === 'HEAD' ? null : streamed(response.stream, onError), { status: response.status, headers })
  }
  const text = responseText(response)
  if (text === undefined) return new Response(null, { status: response.status, headers })
  const bytes = new TextEncoder().encode(text)
  headers.set('Content-Length', String(bytes.byteLength))
  return new Response(method === 'HEAD' ? null : bytes, { status: response.status, headers })
}

/**
 * A fetch handler serving the calendar under `<basePath>/cal/events/v1` (and
 * `/wp-json/tribe/events/v1` with `wpCompat`), answering exactly as the Express adapter does.
 * Other paths get the calendar's `404 rest_no_route`.
 *
 * @example
 * const handler = createFetchHandler(calendar, { basePath: '/api' })
 * app.all('/api/*', (c) => handler(c.req.raw, c.env))        // Hono
 * export { handler as GET, handler as POST }                 // Next.js: app/api/[...path]/route.ts
 */
export function createFetchHandler(calendar: Calendar | FetchCalendarResolver, options: FetchHandlerOptions = {}): FetchHandler {
  const basePath = (options.basePath ?? '').replace(/\/+$/, '')
  if (typeof calendar !== 'function') {
    const serve = servingOf(calendar, options)
    return (request, context) => serve(request, context, new URL(request.url), basePath)
  }
  const resolve = calendar
  const pattern = mountPattern(basePath)
  const servers = new WeakMap<Calendar, Serving>()
  return async function handleMany(request: Request, context?: unknown): Promise<Response> {
    const url = new URL(request.url)
    const mount = pattern(url.pathname)
    if (!mount) return toResponse(request.method, errorAnswer(new CalendarError('NO_ROUTE', 'No route was found matching the URL and request method.')), () => {})
    let picked: Calendar | undefined
    try {
      picked = await resolve(request, mount.params)
    } catch (err) {
      // A malformed key is the calendar set's 400; anything else is a failure of the host's (500).
      return toResponse(request.method, errorAnswer(err, options.onResolveError), () => {})
    }
    if (!picked) return toResponse(request.method, errorAnswer(new CalendarError('CALENDAR_NOT_FOUND', 'No calendar has this key.')), () => {})
    let serve = servers.get(picked)
    if (!serve) servers.set(picked, (serve = servingOf(picked, options)))
    return serve(request, context, url, mount.base)
  }
}

/**
 * Picks the calendar of a request, given the values of the `:name` segments of `basePath`
 * (`/calendars/:key`): `undefined` answers 404 `rest_calendar_not_found`; a thrown `CalendarError`
 * answers as itself (a calendar set's malformed key: 400).
 */
export type FetchCalendarResolver = (request: Request, params: Record<string, string>) => Calendar | undefined | Promise<Calendar | undefined>

/**
 * A base path with `:name` segments as a matcher: the part of a path it covers (segments compared
 * case-insensitively, as Express mounts) and the segments' values (percent-decoded).
 */
function mountPattern(basePath: string): (path: string) => { base: string; params: Record<string, string> } | undefined {
  const parts = basePath.split('/').slice(1)
  return (path) => {
    const segments = path.split('/').slice(1)
    if (segments.length < parts.length) return undefined
    const params: Record<string, string> = {}
    for (const [i, part] of parts.entries()) {
      const segment = segments[i]!
      if (part.startsWith(':')) {
        if (segment === '') return undefined
        try {
          params[part.slice(1)] = decodeURIComponent(segment)
        } catch {
          return undefined
        }
      } else if (segment.toLowerCase() !== part.toLowerCase()) return undefined
    }
    return { base: parts.length === 0 ? '' : `/${segments.slice(0, parts.length).join('/')}`, params }
  }
}

/** One calendar's answering, for a request whose mount (`basePath`, its `:name` segments filled in) is known. */
type Serving = (request: Request, context: unknown, url: URL, basePath: string) => Promise<Response>

function servingOf(calendar: Calendar, options: FetchHandlerOptions): Serving {
  const prefixes = calendarPrefixes(calendar.options)
  const lowerPrefixes = prefixes.map((p) => p.toLowerCase())
  const onError = (err: unknown) => calendar.options.onError?.(err)
  // With the cache off, or callers told apart by a host hook, there is never a kept answer to find.
  const fastPath = calendar.options.responseCache !== false && !calendar.options.authenticate

  /** The request line as the Express adapter builds it: the calendar's path below the mount, raw query, headers. */
  function requestLine(request: Request, url: URL, basePath: string): CalendarRequest | undefined {
    let below = url.pathname
    if (basePath) {
      // As Express's mounting: a whole path segment, case-insensitive.
      if (below.slice(0, basePath.length).toLowerCase() !== basePath.toLowerCase()) return undefined
      below = below.slice(basePath.length)
      if (below !== '' && below[0] !== '/') return undefined
    }
    const lower = below.toLowerCase()
    const at = lowerPrefixes.findIndex((p) => lower === p || lower.startsWith(`${p}/`))
    if (at === -1) return undefined
    const matched = below.slice(0, prefixes[at]!.length)
    // Express names the prefix by the path as sent; one in other letters is answered in the first namespace.
    const prefix = prefixes.find((p) => p === matched) ?? prefixes[0]!
    const rest = below.slice(matched.length)
    const host = request.headers.get('host')
    return {
      method: request.method,
      path: `${prefix}${rest === '/' ? '' : rest}`,
      query: url.search.slice(1),
      headers: Object.fromEntries(request.headers),
      // An empty or malformed Host is passed on for the calendar to refuse (400); as in the
      // Express adapter, a `/`, `?`, `#` or `\\` in it is escaped so it cannot read as a path.
      origin: options.origin ? options.origin(request) : `${url.protocol}//${(host ?? url.host).replace(/[/?#\\]/g, encodeURIComponent)}`,
      mountPath: basePath,
    }
  }

  return async function handleFetch(request, context, url, basePath): Promise<Response> {
    const line = requestLine(request, url, basePath)
    const client = (options.client ? options.client(request, context) : clientOf(context)) ?? ''
    if (!line) {
      // Outside the calendar's paths: its own "no route" answer, as under its namespace.
      const lost: CalendarRequest = { method: request.method, path: url.pathname, query: '', headers: Object.fromEntries(request.headers), mountPath: basePath, client }
      return toResponse(request.method, await calendar.handle(lost), onError)
    }
    // The hot-read cache's fast path first: a kept anonymous answer, without reading the body.
    if (fastPath && (request.method === 'GET' || request.method === 'HEAD')) {
      const answer = await calendar.cachedAnswer(line)
      if (answer) return new Response(answer.body ?? null, { status: answer.status, headers: answer.headers })
    }
    const full: CalendarRequest = { ...line, client, native: request }
    if (request.body) {
      try {
        full.body = await readRequestBody(
          request.body,
          { contentEncoding: request.headers.get('content-encoding'), contentLength: request.headers.get('content-length') },
          calendar.options.maxBodyBytes,
        )
      } catch (err) {
        return toResponse(request.method, calendar.toErrorResponse(err, full), onError)
      }
    }
    return toResponse(request.method, await calendar.handle(full), onError)
  }
}
