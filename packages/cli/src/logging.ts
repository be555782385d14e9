import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { pino, type DestinationStream, type Logger } from 'pino'

/** Log levels the server accepts (`CAL_LOG_LEVEL`). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

// Query parameters whose values never reach a log line (variant B sends `password` on GET).
const SECRET_PARAMS = /^(password|token|access_token|api_key|key|secret)$/i

/** The URL with secret query values replaced, so a log line can never carry them. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?')
  if (q === -1) return url
  const query = url
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const [rawKey = '', ...rest] = part.split('=')
      let key = rawKey
      try {
        key = decodeURIComponent(rawKey).replace(/\[.*$/, '')
      } catch {
        // A malformed key is logged as sent; its value is still checked below.
      }
      return rest.length > 0 && SECRET_PARAMS.test(key) ? `${rawKey}=[redacted]` : part
    })
    .join('&')
  return `${url.slice(0, q)}?${query}`
}

// An incoming X-Request-Id is kept only when it is a plain token, so it cannot forge log content.
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/

/** A structured JSON logger (pino). */
export function createLogger(level: (typeof LOG_LEVELS)[number], destination?: DestinationStream): Logger {
  return pino({ level, base: { service: 'cal-events' } }, destination)
}

/**
 * Express middleware: one JSON line per finished request (`request completed`, or `request
 * aborted` when the client left first) with a request id, method, redacted URL, status and time;
 * headers (Authorization, Cookie) and bodies never. Levels: 5xx error, 4xx warn, else info.
 * Hand-rolled rather than pino-http: that one builds a child logger and its bindings for every
 * request even when the level drops the line, which was most of the server's promoted
 * garbage under load.
 */
export function requestLogger(logger: Logger) {
  return (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse, next: () => void) => {
    const incoming = req.headers['x-request-id']
    const id = typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID()
    res.setHeader('X-Request-Id', id)
    const started = performance.now()
    // 'close' follows 'finish' on every response, and ends an aborted one: one listener tells both.
    res.once('close', () => {
      const completed = res.writableFinished
      const status = res.statusCode
      const level = status >= 500 ? 'error' : status >= 400 || !completed ? 'warn' : 'info'
      if (!logger.isLevelEnabled(level)) return
      const line = {
        req: { id, method: req.method, url: redactUrl(req.originalUrl ?? req.url ?? '') },
        res: { statusCode: status },
        responseTime: Math.round(performance.now() - started),
      }
      logger[level](line, completed ? 'request completed' : 'request aborted')
    })
    next()
  }
}
