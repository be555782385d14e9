import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scratchDatabase } from '../../../test-support/scratch-db.js'
import { loadConfig } from '@cal-events/cli'
import { startServer, type CalendarServer } from '@cal-events/cli'

const database = scratchDatabase('warmup')

async function statements(server: CalendarServer): Promise<number> {
  const res = await fetch(new URL('/__stats', server.url))
  return ((await res.json()) as { queries: number }).queries
}

describe('example server start-up work', () => {
  let server: CalendarServer

  beforeAll(async () => {
    await database.create()
    server = await startServer(loadConfig({ DATABASE_URL: database.url, PORT: '0', CAL_LOG_LEVEL: 'silent', CAL_BENCH_STATS: '1', CAL_RESPONSE_CACHE_MB: '0' }))
  })
  afterAll(async () => {
    await server?.close()
    await database.drop()
  })

  // The occurrence horizon moves before the server reports ready, not inside the first request:
  // the first list costs the same statements as any later list.
  it('the first list request issues one statement, like the next', async () => {
    const before = await statements(server)
    expect((await fetch(`${server.url}/events?per_page=1`)).status).toBe(200)
    const first = (await statements(server)) - before
    expect((await fetch(`${server.url}/events?per_page=2`)).status).toBe(200)
    const second = (await statements(server)) - before - first
    expect(first).toBe(1)
    expect(second).toBe(1)
  })
})
