import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { pino, type DestinationStream, type Logger } from 'pino'
import { pinoHttp } from 'pino-http'

/** Log levels the example server accepts (`CAL_LOG_LEVEL`). */
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

/** Express middleware: one JSON line per request with a request id, no credentials, no bodies. */
export function requestLogger(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId(req: IncomingMessage, res: ServerResponse) {
      const incoming = req.headers['x-request-id']
      const id = typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID()
      res.setHeader('X-Request-Id', id)
      return id
    },
    // Only these fields are logged: headers (Authorization, Cookie) and bodies never are.
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: redactUrl(req.url) }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel(_req, res, err) {
      if (err || res.statusCode >= 500) return 'error'
      return res.statusCode >= 400 ? 'warn' : 'info'
    },
  })
}
