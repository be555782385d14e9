import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

// What the single-calendar and the many-calendars servers share: listening with clear start-up
// errors, the URL they print, and a shutdown that lets in-flight requests finish.

/** How long a graceful close waits for in-flight requests before cutting their connections. */
const SHUTDOWN_GRACE_MS = 10_000

/** Listens on `host:port`; a port in use or a host that cannot be bound is a message naming the setting to change. */
export function listen(handler: (req: IncomingMessage, res: ServerResponse) => void, port: number, host: string): Promise<Server> {
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

/** `http://host:port` of a listening server (an IPv6 host in brackets). */
export function origin(server: Server, host: string): string {
  const { port } = server.address() as AddressInfo
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`
}

/**
 * A `close()` that stops accepting, lets in-flight requests finish (cut after a grace period),
 * then runs `after` (closing the database); once only. `closing()` says whether it began. During
 * shutdown a keep-alive connection is closed as soon as its last response is sent.
 */
export function gracefulClose(server: Server, after: () => Promise<void>): { close(): Promise<void>; closing(): boolean } {
  let closing: Promise<void> | undefined
  server.on('request', (_req, res: ServerResponse) => {
    res.on('finish', () => {
      if (closing) setImmediate(() => server.closeIdleConnections())
    })
  })
  return {
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          // Stops accepting; resolves once every in-flight request has been answered.
          server.close(() => resolve())
          server.closeIdleConnections()
          setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref()
        })
        await after()
      })()
      return closing
    },
    closing: () => closing !== undefined,
  }
}
