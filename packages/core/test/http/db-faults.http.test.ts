import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCalendar, type Calendar } from '@cal-events/core'
import { freshCalendar, workerDatabaseUrl } from '../../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'
import { startTcpProxy, type TcpProxy } from '../../../../test-support/tcp-proxy.js'

describe('database faults (PostgreSQL through a TCP proxy)', () => {
  let proxy: TcpProxy
  let calendar: Calendar
  let server: TestServer
  beforeAll(async () => {
    await (await freshCalendar()).close()
    const direct = new URL(await workerDatabaseUrl())
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) })
    const viaProxy = new URL(direct.href)
    viaProxy.host = `127.0.0.1:${proxy.port}`
    calendar = await createCalendar({ database: { url: viaProxy.href, connectionTimeoutMs: 1000 }, migrate: false })
    server = await startServer(calendar)
  })
  afterAll(async () => {
    await server.close()
    await calendar.close()
    await proxy.close()
  })

  it('fails fast with 503 while the database is away and recovers without a restart', async () => {
    expect((await server.request('GET', '/events')).status).toBe(200)
    proxy.cut()
    const started = Date.now()
    const during = await server.request('GET', '/events')
    expect(during).toMatchObject({ status: 503, body: { code: 'database-unavailable', data: { status: 503 } } })
    const second = await server.request('GET', '/events/1')
    expect(second.status).toBe(503)
    // Fail fast: well under the client's own patience, not a hang.
    expect(Date.now() - started).toBeLessThan(10_000)
    proxy.restore()
    let recovered = 0
    for (let attempt = 0; attempt < 20 && recovered !== 200; attempt++) {
      recovered = (await server.request('GET', '/events')).status
      if (recovered !== 200) await new Promise((r) => setTimeout(r, 100))
    }
    expect(recovered).toBe(200)
  })
})
