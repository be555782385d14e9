import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NAMESPACE } from '../../src/api/context.js'
import { defineOperation } from '../../src/api/operation.js'
import { resolveOptions } from '../../src/config/options.js'
import { openDatabase, type DatabaseHandle } from '../../src/db/create-db.js'
import { createDispatcher } from '../../src/http/dispatch.js'
import { compileRoute } from '../../src/http/routes.js'
import { BACKEND, freshCalendar, workerDatabase } from '../../../../test-support/test-db.js'

const ROOT = `/${NAMESPACE}`

// The call context's clock contract (api/context.ts, docs/response-cache.md "Time"): the hot-read
// cache keeps an answer for one clock slot exactly when something in the call read the clock,
// however the context was copied on its way there. Operations here copy it by spread first, as any
// step or helper may.
describe(`pipeline: the clock contract through the hot-read cache (${BACKEND})`, () => {
  let clock = new Date('2026-11-21T03:40:10Z')
  const runs = { timed: 0, untimed: 0 }
  let handle: DatabaseHandle
  let dispatcher: ReturnType<typeof createDispatcher>

  const timed = defineOperation({
    args: {},
    async run(_input, ctx) {
      runs.timed++
      const copy = { ...ctx, extra: true }
      return { body: { minute: copy.clock.now().toISOString().slice(0, 16) } }
    },
  })
  const untimed = defineOperation({
    args: {},
    async run(_input, ctx) {
      runs.untimed++
      const copy = { ...ctx }
      return { body: { language: copy.language } }
    },
  })

  const get = async (name: string) => {
    const res = await dispatcher.handle({ method: 'GET', path: `${ROOT}/${name}`, query: '', headers: {}, origin: 'http://cal.test' })
    expect(res.status).toBe(200)
    return res.body as Record<string, unknown>
  }

  beforeAll(async () => {
    await (await freshCalendar()).close()
    const options = resolveOptions({ database: await workerDatabase(), now: () => clock, publicBaseUrl: 'http://cal.test' })
    handle = await openDatabase(options.database, undefined, options.schema)
    const routes = [timed, untimed].map((operation, i) => {
      const path = `${ROOT}/${i === 0 ? 'timed' : 'untimed'}`
      return compileRoute({ pattern: path, path, endpoints: [{ methods: ['GET'], operation }] })
    })
    dispatcher = createDispatcher(routes, options, handle.db)
  })
  afterAll(async () => {
    await handle?.close()
  })

  it('keeps an answer that read the clock through a spread copy only within its minute', async () => {
    for (let i = 0; i < 3; i++) expect(await get('timed')).toEqual({ minute: '2026-11-21T03:40' })
    // Kept from its second request on: the third was served without running the operation.
    expect(runs.timed).toBe(2)
    clock = new Date('2026-11-21T03:41:00Z')
    expect(await get('timed')).toEqual({ minute: '2026-11-21T03:41' })
    expect(runs.timed).toBe(3)
  })

  it('keeps an answer whose operation copied the context but never read the clock across minutes', async () => {
    for (let i = 0; i < 3; i++) await get('untimed')
    expect(runs.untimed).toBe(2)
    clock = new Date('2026-11-21T03:59:00Z')
    await get('untimed')
    expect(runs.untimed).toBe(2)
  })
})
