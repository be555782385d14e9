import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scratchDatabase } from '../../../test-support/scratch-db.js'
import { loadConfig } from '@cal-events/cli'
import { startServer, type CalendarServer } from '@cal-events/cli'

const database = scratchDatabase('client_error')

/** Sends raw bytes and collects everything the server writes until it closes the connection. */
function exchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')))
    socket.write(raw)
  })
}

function parse(reply: string): { statusLine: string; headers: Record<string, string>; body: unknown } {
  const [head, body] = [reply.slice(0, reply.indexOf('\r\n\r\n')), reply.slice(reply.indexOf('\r\n\r\n') + 4)]
  const [statusLine, ...lines] = head.split('\r\n')
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
  return { statusLine: statusLine ?? '', headers, body: JSON.parse(body) }
}

describe("Node's own client errors carry the JSON error body", () => {
  let server: CalendarServer
  let port: number

  beforeAll(async () => {
    await database.create()
    server = await startServer(loadConfig({ DATABASE_URL: database.url, PORT: '0', CAL_DEMO: '0', CAL_LOG_LEVEL: 'silent', CAL_ADMIN_TOKEN: 'client-error-admin-token-0123' }))
    port = Number(new URL(server.url).port)
  })
  afterAll(async () => {
    await server?.close()
    await database.drop()
  })

  it('answers a malformed request line 400 in the error shape and closes', async () => {
    const reply = parse(await exchange(port, 'GARBAGE / NOT-HTTP\r\n\r\n'))
    expect(reply.statusLine).toBe('HTTP/1.1 400 Bad Request')
    expect(reply.headers['content-type']).toMatch(/^application\/json/)
    expect(reply.headers.connection).toBe('close')
    expect(reply.body).toEqual({ code: 'rest_bad_request', message: expect.any(String), data: { status: 400 } })
  })

  it('answers headers beyond the limit 431 in the error shape and closes', async () => {
    const raw = `GET /cal/events/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`
    const reply = parse(await exchange(port, raw))
    expect(reply.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large')
    expect(reply.headers.connection).toBe('close')
    expect(reply.body).toEqual({ code: 'rest_headers_too_large', message: expect.any(String), data: { status: 431 } })
  })

  it('still serves well-formed requests after a bad one', async () => {
    await exchange(port, 'GARBAGE\r\n\r\n')
    expect((await fetch(`${server.url}/events`)).status).toBe(200)
  })
})
