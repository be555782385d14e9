import { Calendar } from '@cal-events/core';

/** Options of the fetch adapter. */
interface FetchHandlerOptions {
    /**
     * The path the handler is mounted under (`/api`): requests arrive with it, `rest_url`s keep it.
     * Default: none. With a resolver it may hold `:name` segments (`/calendars/:key`), given to the resolver.
     */
    basePath?: string;
    /**
     * The origin of `rest_url`s. Default: the request URL's protocol and the `Host` header as sent
     * (else the URL's host); `X-Forwarded-*` never count. Behind a proxy, return the public origin here.
     */
    origin?: (request: Request) => string;
    /** The client's address (password guesses are counted per client). Default: read from the handler's second argument, else none. */
    client?: (request: Request, context?: unknown) => string | undefined;
    /** With a resolver: told of a resolver's unexpected failure (answered 500). */
    onResolveError?: (err: unknown) => void;
}
/**
 * The calendar as a fetch handler. The optional second argument is what the runtime passes beside
 * the request (Deno's `info`, @hono/node-server's `env`): the client's address is read from it.
 */
type FetchHandler = (request: Request, context?: unknown) => Promise<Response>;
/**
 * The fetch `Request` behind a calendar request, for an `authenticate` hook that reads the host's
 * session cookie or header; `undefined` when the request did not come through this adapter.
 *
 * @example
 * const calendar = await createCalendar({
 *   authenticate: (request) => principalOf(fetchRequest(request)?.headers.get('cookie')),
 * })
 */
declare function fetchRequest(request: {
    native?: unknown;
}): Request | undefined;
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
declare function createFetchHandler(calendar: Calendar | FetchCalendarResolver, options?: FetchHandlerOptions): FetchHandler;
/**
 * Picks the calendar of a request, given the values of the `:name` segments of `basePath`
 * (`/calendars/:key`): `undefined` answers 404 `rest_calendar_not_found`; a thrown `CalendarError`
 * answers as itself (a calendar set's malformed key: 400).
 */
type FetchCalendarResolver = (request: Request, params: Record<string, string>) => Calendar | undefined | Promise<Calendar | undefined>;

export { type FetchCalendarResolver, type FetchHandler, type FetchHandlerOptions, createFetchHandler, fetchRequest };
