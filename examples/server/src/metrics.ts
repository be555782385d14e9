import type { IncomingMessage, ServerResponse } from 'node:http'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { Calendar } from '@cal-events/core'

/** Prometheus metrics of one server: the middleware that counts, and the registry to expose. */
export interface ServerMetrics {
  readonly registry: Registry
  /** Counts every request by method, route pattern and status, and times it (plain Node, so it also sees what is answered before Express). */
  readonly middleware: (req: IncomingMessage, res: ServerResponse, next: () => void) => void
}

/**
 * Routes as their patterns (`/cal/events/v1/events/:id`), so a label never carries an id or a slug
 * and the number of series stays fixed; anything else is `other`.
 */
function routeLabeller(calendar: Calendar, extra: readonly string[]): (path: string) => string {
  const routes = calendar.routes.map((r) => ({
    label: r.path,
    // The descriptor's PCRE-style named groups, as JavaScript groups.
    regex: new RegExp(`^${r.pattern.replace(/\(\?P</g, '(?<')}/?$`),
  }))
  return (path) => {
    if (extra.includes(path)) return path
    const mounted = path.indexOf('/cal/events/v1')
    const below = mounted === -1 ? path : path.slice(mounted)
    return routes.find((r) => r.regex.test(below))?.label ?? 'other'
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

/** Request counts and latency by route and status, pool usage, and Node's process metrics. */
export function createMetrics(calendar: Calendar, extraPaths: readonly string[] = []): ServerMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const requests = new Counter({
    name: 'cal_http_requests_total',
    help: 'HTTP requests by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  })
  const duration = new Histogram({
    name: 'cal_http_request_duration_seconds',
    help: 'Time from request to the last byte of the response, by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  })
  new Gauge({
    name: 'cal_db_pool_connections',
    help: 'PostgreSQL pool connections by state (total, idle, waiting requests); absent with PGlite.',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const stats = calendar.poolStats()
      if (!stats) return
      this.set({ state: 'total' }, stats.total)
      this.set({ state: 'idle' }, stats.idle)
      this.set({ state: 'waiting' }, stats.waiting)
    },
  })
  const label = routeLabeller(calendar, extraPaths)
  const middleware: ServerMetrics['middleware'] = (req, res, next) => {
    const started = process.hrtime.bigint()
    // Read now: mounted routers strip their prefix from the request while they answer it.
    const path = pathOf(req.url ?? '/')
    res.once('finish', () => {
      const route = label(path)
      requests.inc({ method: req.method ?? '', route, status: String(res.statusCode) })
      duration.observe({ method: req.method ?? '', route }, Number(process.hrtime.bigint() - started) / 1e9)
    })
    next()
  }
  return { registry, middleware }
}
