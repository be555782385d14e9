import type { IncomingMessage, ServerResponse } from 'node:http'
import { Router } from 'express'
import { eventLoopDelay, NAMESPACE, WP_NAMESPACE, type Calendar, type Calendars, type PoolStats } from '@cal-events/core'

/** What the metrics router needs of a Prometheus registry (prom-client's `Registry` has it). */
export interface MetricsRegistry {
  readonly contentType: string
  metrics(): Promise<string>
}

/** Options of the metrics router. */
export interface MetricsRouterOptions {
  /** Where the exposition is served. Default `/metrics`. */
  path?: string
  /** Paths counted under their own name besides the calendar's route patterns. Default `/healthz`, `/readyz` and `path`. */
  extraPaths?: readonly string[]
  /** Node's process metrics (prom-client's `collectDefaultMetrics`). Default true. */
  defaultMetrics?: boolean
  /** A prom-client `Registry` of the host's to add the calendar's metrics to. Default: a new one. */
  registry?: MetricsRegistry
}

/** Plain Node middleware that counts one request when its response finishes. */
export type RequestObserver = (req: IncomingMessage, res: ServerResponse, next: () => void) => void

/**
 * An `express.Router` that counts every request passing through it and serves the Prometheus
 * exposition at `GET /metrics`; `observe` counts a request the host answers before Express.
 */
export interface MetricsRouter extends Router {
  /** The registry holding the calendars' metrics. */
  readonly registry: MetricsRegistry
  /** Counts `req` (once, however many times it is called for it); for hosts answering before Express. */
  readonly observe: RequestObserver
}

/**
 * Routes as their patterns (`/cal/events/v1/events/:id`), so a label never carries an id or a slug
 * and the number of series stays fixed; anything else is `other`.
 */
function routeLabeller(calendar: Calendar, extra: readonly string[]): Labeller {
  const routes = calendar.routes.map((r) => ({
    label: r.path,
    // The descriptor's PCRE-style named groups, as JavaScript groups.
    regex: new RegExp(`^${r.pattern.replace(/\(\?P</g, '(?<')}/?$`),
  }))
  return (path) => {
    if (extra.includes(path)) return path
    const mounted = path.indexOf(`/${NAMESPACE}`)
    const below = mounted === -1 ? path : path.slice(mounted)
    return routes.find((r) => r.regex.test(below))?.label ?? 'other'
  }
}

type Labeller = (path: string) => string

/**
 * Labels for the calendars of a set: a request's calendar is the path segment just before the
 * namespace (`/calendars/chess/cal/events/v1/…` is `chess`), counted under its key only when the
 * set has that calendar open once the response finishes. Keys no calendar has (anyone can send
 * them) all count as `""`, so they cannot grow the number of series. Calendars of one variant share
 * their route patterns, and so one labeller.
 */
function calendarLabeller(calendars: Calendars, extra: readonly string[]): (path: string) => { calendar: string; route: string } {
  const bySignature = new Map<string, Labeller>()
  const byCalendar = new WeakMap<Calendar, Labeller>()
  const labellerOf = (calendar: Calendar) => {
    let labeller = byCalendar.get(calendar)
    if (!labeller) {
      const signature = calendar.routes.map((r) => r.pattern).join('\n')
      labeller = bySignature.get(signature)
      if (!labeller) bySignature.set(signature, (labeller = routeLabeller(calendar, extra)))
      byCalendar.set(calendar, labeller)
    }
    return labeller
  }
  return (path) => {
    const at = [path.indexOf(`/${NAMESPACE}`), path.indexOf(`/${WP_NAMESPACE}`)].filter((i) => i > 0)
    const before = at.length > 0 ? path.slice(0, Math.min(...at)) : undefined
    const key = before?.slice(before.lastIndexOf('/') + 1)
    const calendar = key ? calendars.opened(key) : undefined
    if (!calendar) return { calendar: '', route: extra.includes(path) ? path : 'other' }
    return { calendar: key!, route: labellerOf(calendar)(path) }
  }
}

/** The path of a request target (origin form, or absolute form as a proxy sends it), as Express's `req.path`. */
function pathOf(url: string): string {
  if (url[0] === '/') {
    const end = url.search(/[?#]/)
    return end === -1 ? url : url.slice(0, end)
  }
  try {
    return new URL(url).pathname
  } catch {
    return url
  }
}

/** prom-client, loaded on demand: it is an optional peer, so importing this package never needs it. */
async function loadPromClient(): Promise<typeof import('prom-client')> {
  try {
    return await import('prom-client')
  } catch (err) {
    throw new Error(`createMetricsRouter needs prom-client: npm install prom-client (${(err as Error).message})`, { cause: err })
  }
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
export async function createMetricsRouter(served: Calendar | Calendars, options: MetricsRouterOptions = {}): Promise<MetricsRouter> {
  const prom = await loadPromClient()
  const path = options.path ?? '/metrics'
  const registry = (options.registry as InstanceType<typeof prom.Registry> | undefined) ?? new prom.Registry()
  if (options.defaultMetrics ?? true) prom.collectDefaultMetrics({ register: registry })
  const set = 'routes' in served ? undefined : served
  const byCalendar = set ? ['calendar'] : []
  const requests = new prom.Counter({
    name: 'cal_http_requests_total',
    help: `HTTP requests by ${set ? 'calendar key, ' : ''}method, route pattern and status code.`,
    labelNames: [...byCalendar, 'method', 'route', 'status'],
    registers: [registry],
  })
  const duration = new prom.Histogram({
    name: 'cal_http_request_duration_seconds',
    help: `Time from request to the last byte of the response, by ${set ? 'calendar key, ' : ''}method and route pattern.`,
    labelNames: [...byCalendar, 'method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  })
  new prom.Gauge({
    name: 'cal_db_pool_connections',
    help: 'PostgreSQL pool connections by state (total, idle, waiting requests); absent with PGlite.',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const stats: PoolStats | undefined = served.poolStats()
      if (!stats) return
      this.set({ state: 'total' }, stats.total)
      this.set({ state: 'idle' }, stats.idle)
      this.set({ state: 'waiting' }, stats.waiting)
    },
  })
  // The same figures /healthz shows (core's monitor, the last 10 to 20 s): prom-client's own
  // `nodejs_eventloop_lag_*` are reset by each scrape, so the two would disagree.
  new prom.Gauge({
    name: 'cal_event_loop_delay_seconds',
    help: 'How late the event loop ran timers over the last 10 to 20 seconds: max, p99 and mean.',
    labelNames: ['stat'] as const,
    registers: [registry],
    collect() {
      const delay = eventLoopDelay()
      this.set({ stat: 'max' }, delay.maxDelayMs / 1000)
      this.set({ stat: 'p99' }, delay.p99DelayMs / 1000)
      this.set({ stat: 'mean' }, delay.meanDelayMs / 1000)
    },
  })
  if (set) {
    new prom.Gauge({
      name: 'cal_calendars_open',
      help: 'Calendars of the set open in this process (the others cost a registry row until asked for).',
      registers: [registry],
      collect() {
        this.set(set.openCount())
      },
    })
  }
  const extra = options.extraPaths ?? ['/healthz', '/readyz', path]
  const routeOf = set ? undefined : routeLabeller(served as Calendar, extra)
  const label: (path: string) => { calendar?: string; route: string } = set ? calendarLabeller(set, extra) : (path) => ({ route: routeOf!(path) })
  // A host that observes before Express and mounts the router too must not count a request twice.
  const counted = new WeakSet<IncomingMessage>()
  const observe: RequestObserver = (req, res, next) => {
    if (counted.has(req)) return next()
    counted.add(req)
    const started = process.hrtime.bigint()
    // Read now: mounted routers strip their prefix from the request while they answer it.
    const route = pathOf((req as { originalUrl?: string }).originalUrl ?? req.url ?? '/')
    res.once('finish', () => {
      // Labelled once the response is done: a set's calendar is open by then, if the key has one.
      const { calendar, route: labelled } = label(route)
      const labels = { ...(calendar === undefined ? {} : { calendar }), method: req.method ?? '', route: labelled }
      requests.inc({ ...labels, status: String(res.statusCode) })
      duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9)
    })
    next()
  }
  const router = Router()
  router.use((req, res, next) => observe(req, res, next))
  router.get(path, async (_req, res, next) => {
    try {
      res.set('Content-Type', registry.contentType).send(await registry.metrics())
    } catch (err) {
      next(err)
    }
  })
  return Object.assign(router, { registry, observe })
}
