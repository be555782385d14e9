import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import compression from 'compression'
import express from 'express'
import { createCalendars, NAMESPACE, type Calendars } from '@cal-events/core'
import { answerClientError, createCalendarRouter, createHealthRouter, createMetricsRouter, createReferenceRouter } from '@cal-events/http-express'
import type { DestinationStream } from 'pino'
import type { ServerConfig } from './config.js'
import { calendarsOptions } from './calendars-options.js'
import { seedDemoData, type DemoSummary } from './demo-data.js'
import { gracefulClose, listen, origin } from './listen.js'
import { createLogger, requestLogger } from './logging.js'

/** Where the calendars are served: `/calendars/{key}/cal/events/v1`. */
export const CALENDARS_MOUNT = '/calendars'

/** The key of the calendar the demo seed creates (`CAL_DEMO`) in a registry that has none. */
export const DEMO_CALENDAR_KEY = 'demo'

/** A running server of many calendars (`CAL_MULTI_CALENDAR=1`). */
export interface CalendarsServer {
  /** The namespace URL with `{key}` for the calendar key, e.g. `http://127.0.0.1:3000/calendars/{key}/cal/events/v1`. */
  url: string
  server: Server
  calendars: Calendars
  /** What the demo seed created on this start (the calendar `demo`), if it ran. */
  demo: (DemoSummary & { key: string }) | undefined
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>
}

/**
 * The server of `CAL_MULTI_CALENDAR=1`: every calendar of the database's registry under
 * `/calendars/{key}` on one pool (an unknown key 404, a malformed one 400, in the error shape),
 * `/healthz` and `/readyz` for the shared database, the reference page, `/metrics` with
 * `CAL_METRICS=1` (each calendar's requests labelled by its key). Calendars are made with
 * `calendars create KEY`, their tokens with `tokens create --calendar KEY`; with `CAL_DEMO` on, a
 * registry without any calendar gets the calendar `demo`, seeded as the single server seeds its own.
 */
export async function startCalendarsServer(config: ServerConfig, logDestination?: DestinationStream): Promise<CalendarsServer> {
  const logger = createLogger(config.logLevel ?? 'info', logDestination)
  const calendars = await createCalendars(calendarsOptions(config, (err) => logger.error({ err }, 'unexpected error')))
  // Read by the readiness check, which answers before it is set (once listening): not a const.
  // eslint-disable-next-line prefer-const
  let shutdown: ReturnType<typeof gracefulClose> | undefined
  let server: Server
  let demo: CalendarsServer['demo']
  // Not ready while the demo calendar is being seeded, nor once shutdown began.
  let serving = false
  try {
    const app = express()
    app.disable('x-powered-by')
    if (config.trustProxy !== undefined) app.set('trust proxy', config.trustProxy)
    if (logger.level !== 'silent') app.use(requestLogger(logger))
    if (config.metrics) app.use(await createMetricsRouter(calendars))
    app.use(createHealthRouter(calendars, { ready: () => serving && !shutdown?.closing() }))
    if (config.compression ?? true) app.use(compression({ threshold: 1024 }))
    const reference = await createReferenceRouter().catch(() => undefined)
    if (reference) app.use(`${CALENDARS_MOUNT}/:key`, reference)
    app.use(`${CALENDARS_MOUNT}/:key`, createCalendarRouter((req) => calendars.resolve(req.params.key as string)))
    server = await listen(app as (req: IncomingMessage, res: ServerResponse) => void, config.port, config.host)
    server.on('clientError', answerClientError)
    try {
      // First start only, as the single server's seed: a registry holding calendars (the demo one
      // deleted since, say) is the host's, and gets none.
      if (config.demo && (await calendars.list()).length === 0) {
        demo = { key: DEMO_CALENDAR_KEY, ...(await seedDemoData(await calendars.create(DEMO_CALENDAR_KEY))) }
      }
    } catch (err) {
      await new Promise((resolve) => server.close(resolve))
      throw err
    }
    serving = true
  } catch (err) {
    await calendars.close()
    throw err
  }
  shutdown = gracefulClose(server, () => calendars.close())
  return { url: `${origin(server, config.host)}${CALENDARS_MOUNT}/{key}/${NAMESPACE}`, server, calendars, demo, close: shutdown.close }
}
