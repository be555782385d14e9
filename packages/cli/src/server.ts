import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import compression from 'compression'
import express from 'express'
import { createCalendar, NAMESPACE, type Calendar } from '@cal-events/core'
import { answerClientError, createCalendarRouter, createHealthRouter, createMetricsRouter, createReferenceRouter } from '@cal-events/http-express'
import type { DestinationStream } from 'pino'
import type { ServerConfig } from './config.js'
import { calendarsOptions } from './calendars-options.js'
import { createLogger, requestLogger } from './logging.js'
import { isCalendarEmpty, seedDemoData, type DemoSummary } from './demo-data.js'
import { cacheFastPath } from './fast-path.js'
import { gracefulClose, listen, origin } from './listen.js'

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
    // Unexpected errors answer "Internal server error." on the wire; the detail goes to the log.
    // `migrate` off (CAL_MIGRATE_ON_START=0): a schema with pending migrations is refused, naming them.
    ...calendarsOptions(config, (err) => logger.error({ err }, 'unexpected error')),
    ...(config.schema ? { schema: config.schema } : {}),
    ...(config.benchStats ? { onQuery: () => void stats.queries++ } : {}),
  })
  let server: Server
  let generatedAdminToken: string | undefined
  let demo: DemoSummary | undefined
  // Not ready while the token and the demo data are being set up, nor once shutdown began.
  let serving = false
  // Read by the readiness check, which answers before it is set (once listening): not a const.
  // eslint-disable-next-line prefer-const
  let shutdown: ReturnType<typeof gracefulClose> | undefined
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
    app.use(createHealthRouter(calendar, { ready: () => serving && !shutdown?.closing() }))
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

  shutdown = gracefulClose(server, () => calendar.close())
  return { url: `${origin(server, config.host)}/${NAMESPACE}`, server, calendar, generatedAdminToken, demo, close: shutdown.close }
}
