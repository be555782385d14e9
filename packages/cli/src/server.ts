import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import compression from 'compression'
import express from 'express'
import { createCalendar, NAMESPACE, type Calendar } from '@cal-events/core'
import { answerClientError, createCalendarRouter, createHealthRouter, createMetricsRouter, createReferenceRouter } from '@cal-events/http-express'
import type { DestinationStream } from 'pino'
import type { ServerConfig } from './config.js'
import { createLogger, requestLogger } from './logging.js'
import { isCalendarEmpty, seedDemoData, type DemoSummary } from './demo-data.js'
import { cacheFastPath } from './fast-path.js'

/** A running calendar server (`cal-events serve`, the example server). */
export interface CalendarServer {
  /** The namespace URL, e.g. `http://127.0.0.1:3000/cal/events/v1`. */
  url: string
  /** The Node HTTP server (already listening). */
  server: Server
  calendar: Calendar
  /** The administrator token created on this start (printed once), if one was created. */
  generatedAdminToken: string | undefined
  /** What the demo seed created on this start, if it ran. */
  demo: DemoSummary | undefined
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>
}

/** How long `close()` waits for in-flight requests before cutting their connections. */
const SHUTDOWN_GRACE_MS = 10_000

const ADMIN_TOKEN_NAME = 'CAL_ADMIN_TOKEN'

const noop = () => {}

/**
 * The administrator token: `CAL_ADMIN_TOKEN` (a changed value revokes the one it replaces), else a
 * new one when no administrator token exists.
 */
async function ensureAdminToken(calendar: Calendar, configured: string | undefined): Promise<string | undefined> {
  if (configured) {
    const current = await calendar.tokens.register(configured, { role: 'administrator', login: 'admin', name: ADMIN_TOKEN_NAME })
    for (const token of await calendar.tokens.list()) {
      if (token.name === ADMIN_TOKEN_NAME && token.id !== current.id && token.revokedUtc === null) await calendar.tokens.revoke(token.id)
    }
    return undefined
  }
  if (await calendar.tokens.hasAdmin()) return undefined
  const { token } = await calendar.tokens.create({ role: 'administrator', login: 'admin', name: 'generated on first start' })
  return token
}

function listen(handler: (req: IncomingMessage, res: ServerResponse) => void, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(handler).listen(port, host)
    server.once('listening', () => resolve(server))
    server.once('error', (err: NodeJS.ErrnoException) => {
      const where = `${host}:${port}`
      if (err.code === 'EADDRINUSE') reject(new Error(`Port ${port} is already in use (${where}); set PORT to another port.`))
      else if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') reject(new Error(`Cannot listen on ${where}: check HOST.`))
      else reject(err)
    })
  })
}

/** Builds the calendar and the Express app, and listens. */
export async function startServer(
  config: ServerConfig,
  /** Where log lines go (tests capture them); default stdout. */
  logDestination?: DestinationStream,
): Promise<CalendarServer> {
  const logger = createLogger(config.logLevel ?? 'info', logDestination)
  // Benchmark counters (CAL_BENCH_STATS=1 only): SQL statements and requests since the start.
  const stats = { queries: 0, requests: 0 }
  const calendar = await createCalendar({
    variant: config.variant,
    siteTimezone: config.siteTimezone,
    publicBaseUrl: config.publicBaseUrl,
    database: config.database,
    ...(config.schema ? { schema: config.schema } : {}),
    // Off, a schema with pending migrations is refused here, naming them (run `migrate` first).
    migrate: config.migrateOnStart ?? true,
    // Unexpected errors answer "Internal server error." on the wire; the detail goes to the log.
    onError: (err) => logger.error({ err }, 'unexpected error'),
    ...(config.benchStats ? { onQuery: () => void stats.queries++ } : {}),
    ...(config.corsOrigins ? { cors: { origins: config.corsOrigins } } : {}),
    ...(config.wpCompat ? { wpCompat: true } : {}),
    ...(config.responseCacheMb === undefined ? {} : { responseCache: config.responseCacheMb === 0 ? false : { maxBytes: config.responseCacheMb * 1024 * 1024 } }),
  })
  let server: Server
  let generatedAdminToken: string | undefined
  let demo: DemoSummary | undefined
  // Not ready while the token and the demo data are being set up, nor once shutdown began.
  let serving = false
  let closing: Promise<void> | undefined
  try {
    const app = express()
    app.disable('x-powered-by')
    if (config.trustProxy !== undefined) app.set('trust proxy', config.trustProxy)
    // Logging and metrics see every request, also those the fast path answers before Express.
    const observers: ((req: IncomingMessage, res: ServerResponse, next: () => void) => void)[] = []
    if (logger.level !== 'silent') observers.push(requestLogger(logger))
    if (config.metrics) {
      // Serves `GET /metrics`; `observe` counts what the fast path answers before Express too.
      const metrics = await createMetricsRouter(calendar)
      observers.push(metrics.observe)
      app.use(metrics)
    }
    app.use(createHealthRouter(calendar, { ready: () => serving && !closing }))
    if (config.benchStats) {
      app.get('/__stats', (_req, res) => {
        res.json({ ...stats, rss: process.memoryUsage.rss() })
      })
      app.use((_req, _res, next) => {
        stats.requests++
        next()
      })
    }
    // Large lists shrink to a fifth or less; bodies under 1 KB are not worth the CPU.
    const compressing = (config.compression ?? true) ? { threshold: 1024 } : undefined
    if (compressing) app.use(compression(compressing))
    // The human reference page (`…/reference`) sits beside the API it renders from `…/doc`. Its
    // Swagger UI (swagger-ui-dist) is an optional peer: it runs a telemetry postinstall
    // (@scarf/scarf), so an install of the command does not pull it in unasked.
    const reference = await createReferenceRouter().catch(() => undefined)
    if (reference) app.use(reference)
    app.use(createCalendarRouter(calendar))
    // Kept anonymous answers are written before Express (fast-path.ts); behind a trusted proxy the
    // origin of their links comes from X-Forwarded-*, which only Express's trust rules may read.
    const fastPath = config.trustProxy === undefined && calendar.options.responseCache !== false ? cacheFastPath(calendar, { compression: compressing }) : undefined
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      for (const observe of observers) observe(req, res, noop)
      const answered = fastPath?.(req, res)
      if (!answered) return void app(req, res)
      answered.then(
        (done) => {
          if (!done) app(req, res)
          else if (config.benchStats) stats.requests++
        },
        () => {
          app(req, res)
        },
      )
    }
    // The port first: a start that cannot listen must not spend the one-time administrator token.
    server = await listen(handler, config.port, config.host)
    // Node's own 400/431 answers (malformed request line, headers too large) get the JSON error body.
    server.on('clientError', answerClientError)
    try {
      generatedAdminToken = await ensureAdminToken(calendar, config.adminToken)
      if (config.demo && (await isCalendarEmpty(calendar))) demo = await seedDemoData(calendar)
      // Ready only once the first request no longer has start-up work (the occurrence horizon) to do.
      await calendar.warmUp()
    } catch (err) {
      await new Promise((resolve) => server.close(resolve))
      throw err
    }
    serving = true
  } catch (err) {
    await calendar.close()
    throw err
  }

  const { port } = server.address() as AddressInfo
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  // During shutdown a keep-alive connection is closed as soon as its last response is sent.
  server.on('request', (_req, res) => {
    res.on('finish', () => {
      if (closing) setImmediate(() => server.closeIdleConnections())
    })
  })
  return {
    url: `http://${host}:${port}/${NAMESPACE}`,
    server,
    calendar,
    generatedAdminToken,
    demo,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          // Stops accepting; resolves once every in-flight request has been answered.
          server.close(() => resolve())
          server.closeIdleConnections()
          const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS)
          force.unref()
        })
        await calendar.close()
      })()
      return closing
    },
  }
}
