import { describe, expect, it } from 'vitest'
import { CalendarError } from '../../../src/errors.js'
import { conditionalStep } from '../../../src/http/pipeline/conditional.js'
import { errorsStep, NO_CACHE_HEADERS } from '../../../src/http/pipeline/errors.js'
import { inputStep } from '../../../src/http/pipeline/input.js'
import { parseStep } from '../../../src/http/pipeline/parse.js'
import { serialiseStep } from '../../../src/http/pipeline/serialise.js'
import type { HttpExchange } from '../../../src/http/pipeline/step.js'
import { exchange, ROUTES } from './exchange.js'

const ADMIN = { id: 1, login: 'admin', role: 'administrator' } as unknown as HttpExchange['principal']

describe('serialise step', () => {
  it('makes a read answer: public caching, Vary, the body as text and its ETag', async () => {
    const x = exchange()
    await serialiseStep(false).run(x, async () => void (x.result = { body: [{ id: 1 }], headers: { 'X-Cal-Total': '1' } }))
    expect(x.response).toMatchObject({ status: 200, text: '[{"id":1}]', headers: { 'Cache-Control': 'public, max-age=5', Vary: 'Authorization', 'X-Cal-Total': '1' } })
    expect(x.response!.headers.ETag).toMatch(/^"/)
    expect(x.read).toEqual({ text: '[{"id":1}]', ownCaching: false })
  })

  it('answers a signed-in caller with no-cache, Cookie in Vary when a host hook authenticates', async () => {
    const x = exchange({}, { principal: ADMIN })
    await serialiseStep(true).run(x, async () => void (x.result = { body: {} }))
    expect(x.response!.headers).toMatchObject({ ...NO_CACHE_HEADERS, Vary: 'Authorization, Cookie' })
  })

  it('leaves writes, streams and an operation\'s own 304 untagged', async () => {
    const post = exchange({ method: 'POST' })
    await serialiseStep(false).run(post, async () => void (post.result = { status: 201, body: { id: 1 } }))
    expect(post.response!.headers.ETag).toBeUndefined()
    expect(post.read).toBeUndefined()
    const feed = exchange()
    await serialiseStep(false).run(feed, async () => void (feed.result = { status: 304, body: undefined, headers: { ETag: '"f"', 'Cache-Control': 'private', 'X-Other': '1' } }))
    expect(feed.response).toEqual({ status: 304, headers: { ETag: '"f"', 'Cache-Control': 'private' }, body: undefined })
  })
})

describe('conditional step', () => {
  it('answers 304 when If-None-Match names the fresh read\'s tag', async () => {
    const x = exchange({ headers: { 'if-none-match': 'W/"abc", "t1"' } })
    await conditionalStep.run(x, async () => {
      x.read = { text: '{}', ownCaching: false }
      x.response = { status: 200, headers: { ETag: '"t1"', Vary: 'Authorization', 'X-Cal-Total': '1' }, body: {} }
    })
    expect(x.response).toEqual({ status: 304, headers: { ETag: '"t1"', Vary: 'Authorization' }, body: undefined })
  })

  it('leaves other tags, and answers that are no fresh read, as they are', async () => {
    for (const read of [true, false]) {
      const x = exchange({ headers: { 'if-none-match': read ? '"other"' : '"t1"' } })
      await conditionalStep.run(x, async () => {
        if (read) x.read = { text: '{}', ownCaching: false }
        x.response = { status: 200, headers: { ETag: '"t1"' }, body: {} }
      })
      expect(x.response!.status).toBe(200)
    }
  })
})

describe('input step', () => {
  it('parses a JSON body of a write and refuses a feed key in it', async () => {
    const x = exchange({ method: 'POST', headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode('{"title":"A"}') }, { query: {} })
    await inputStep(1000).run(x, async () => {})
    expect(x.body).toEqual({ title: 'A' })
    const keyed = exchange({ method: 'POST', body: { key: `calfeed_${'a'.repeat(40)}` } }, { query: {} })
    await expect(inputStep(1000).run(keyed, async () => {})).rejects.toBeInstanceOf(CalendarError)
  })

  it('reads no body of a GET', async () => {
    const x = exchange({ body: { title: 'A' } }, { query: {} })
    await inputStep(1000).run(x, async () => {})
    expect(x.body).toEqual({})
  })
})

describe('errors step', () => {
  it('turns a CalendarError into its response, with Allow for a known path and no-cache for a caller', async () => {
    const x = exchange({ method: 'DELETE' }, { principal: ADMIN })
    await errorsStep(undefined).run(x, () => parseStep(ROUTES).run(x, async () => { throw new CalendarError('NO_ROUTE', 'No route.') }))
    expect(x.response).toMatchObject({ status: 404, headers: { Allow: 'GET, POST', ...NO_CACHE_HEADERS } })
  })

  it('turns anything else into a 500 reported to onError, its message not echoed', async () => {
    const reported: unknown[] = []
    const x = exchange()
    await errorsStep((err) => reported.push(err)).run(x, async () => { throw new Error('secret detail') })
    expect(x.response!.status).toBe(500)
    expect(JSON.stringify(x.response!.body)).not.toContain('secret detail')
    expect(reported).toHaveLength(1)
  })
})
