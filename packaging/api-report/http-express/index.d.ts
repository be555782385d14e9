import { Duplex } from 'node:stream';
import { Router, Request } from 'express';
import { Calendar, Calendars } from '@cal-events/core';
import { IncomingMessage, ServerResponse } from 'node:http';

/** What the metrics router needs of a Prometheus registry (prom-client's `Registry` has it). */
interface MetricsRegistry {
    readonly contentType: string;
    metrics(): Promise<string>;
}
/** Options of the metrics router. */
interface MetricsRouterOptions {
    /** Where the exposition is served. Default `/metrics`. */
    path?: string;
    /** Paths counted under their own name besides the calendar's route patterns. Default `/healthz`, `/readyz` and `path`. */
    extraPaths?: readonly string[];
    /** Node's process metrics (prom-client's `collectDefaultMetrics`). Default true. */
    defaultMetrics?: boolean;
    /** A prom-client `Registry` of the host's to add the calendar's metrics to. Default: a new one. */
    registry?: MetricsRegistry;
}
/** Plain Node middleware that counts one request when its response finishes. */
type RequestObserver = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
/**
 * An `express.Router` that counts every request passing through it and serves the Prometheus
 * exposition at `GET /metrics`; `observe` counts a request the host answers before Express.
 */
interface MetricsRouter extends Router {
    /** The registry holding the calendars' metrics. */
    readonly registry: MetricsRegistry;
    /** Counts `req` (once, however many times it is called for it); for hosts answering before Express. */
    readonly observe: RequestObserver;
}
/**
 * Prometheus metrics of a calendar server: requests by method, route pattern and status, their
 * latency, the PostgreSQL pool, the event loop's delay (as `/healthz` shows it), and Node's
 * process metrics. Given a calendar set (`createCalendars`), the requests and their latency carry
 * a `calendar` label too (the key, `""` outside any calendar), and `cal_calendars_open` counts the
 * calendars open. Mount it first so it sees every request; needs the optional peer `prom-client`.
 *
 * @example
 * app.use(await createMetricsRouter(calendar))
 * app.use(createCalendarRouter(calendar))
 * // Many calendars, each under /calendars/{key}:
 * app.use(await createMetricsRouter(calendars))
 * app.use('/calendars/:key', createCalendarRouter((req) => calendars.resolve(req.params.key!)))
 */
declare function createMetricsRouter(served: Calendar | Calendars, options?: MetricsRouterOptions): Promise<MetricsRouter>;

/** Options of the reference page router. */
interface ReferenceRouterOptions {
    /** The page's title. Default `Event calendar REST API: reference`. */
    title?: string;
}
/**
 * `GET /cal/events/v1/reference`: a human reference page of the API, rendered in the browser from
 * `GET /cal/events/v1/doc` by Swagger UI served from the optional peer `swagger-ui-dist`. Mount it
 * where the calendar router is mounted, before it.
 *
 * @example
 * app.use('/api', await createReferenceRouter())
 * app.use('/api', createCalendarRouter(calendar))
 */
declare function createReferenceRouter(options?: ReferenceRouterOptions): Promise<Router>;

/** Options of the Express adapter. */
interface CalendarRouterOptions {
    /** The origin of `rest_url`s. Default: protocol and host of the request, `X-Forwarded-Proto`/`-Host` honoured per Express's `trust proxy`. */
    origin?: (req: Request) => string;
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
declare function expressRequest(request: {
    native?: unknown;
}): Request | undefined;
/**
 * Picks the calendar of a request (a calendar set's `resolve(req.params.key)`, say): `undefined`
 * answers 404 `rest_calendar_not_found`; a thrown `CalendarError` answers as itself (a malformed
 * key 400). The router is created with `mergeParams`, so the mount's parameters are in `req.params`.
 */
type CalendarResolver = (req: Request) => Calendar | undefined | Promise<Calendar | undefined>;
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
declare function createCalendarRouter(calendar: Calendar | CalendarResolver, options?: CalendarRouterOptions): Router;
/** Options of the health router. */
interface HealthRouterOptions {
    /** How long `/readyz` waits for the database. Default 2000 ms. */
    timeoutMs?: number;
    /** The host's own readiness on top of the database's (false while starting or draining). */
    ready?: () => boolean;
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
declare function createHealthRouter(calendar: Pick<Calendar, 'health'>, options?: HealthRouterOptions): Router;
/**
 * A `clientError` listener for the Node HTTP server: requests Node rejects before Express sees them
 * (malformed request line, headers too large) are answered in the calendar's JSON error shape
 * instead of Node's bare status line.
 *
 * @example
 * const server = app.listen(3000)
 * server.on('clientError', answerClientError)
 */
declare function answerClientError(err: Error & {
    code?: string;
}, socket: Duplex): void;

export { type CalendarResolver, type CalendarRouterOptions, type HealthRouterOptions, type MetricsRegistry, type MetricsRouter, type MetricsRouterOptions, type ReferenceRouterOptions, type RequestObserver, answerClientError, createCalendarRouter, createHealthRouter, createMetricsRouter, createReferenceRouter, expressRequest };
