import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, EventResource } from '@cal-events/core'
import { freshCalendar, querySql } from '../../../../test-support/test-db.js'
import { startServer, type ErrorBody, type TestServer } from '../../../../test-support/http.js'

// WordPress clients authenticate with HTTP Basic: `login:application-password`. Ours is
// `login:token`, accepted wherever a Bearer token is, with the same revocation (issue 21).

const basic = (text: string) => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`
const EVENT = { title: 'Basic', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' }

describe('Basic auth (application-password style)', () => {
  let calendar: Calendar
  let server: TestServer
  let editorToken: string
  let otherToken: string

  beforeAll(async () => {
    calendar = await freshCalendar()
    server = await startServer(calendar)
    editorToken = (await calendar.tokens.create({ role: 'editor', login: 'ed' })).token
    otherToken = (await calendar.tokens.create({ role: 'administrator', login: 'root' })).token
  })
  afterAll(async () => {
    await server?.close()
    await calendar?.close()
  })

  const post = (authorization: string) => server.request<EventResource>('POST', '/events', { body: EVENT, headers: { authorization } })

  it('accepts login:token of the token owner, as the same principal as Bearer', async () => {
    const viaBasic = await post(basic(`ed:${editorToken}`))
    expect(viaBasic.status).toBe(201)
    const viaBearer = await post(`Bearer ${editorToken}`)
    expect(viaBearer.status).toBe(201)
    expect(viaBasic.body.author).toBe(viaBearer.body.author)
    // Reads see what the editor sees (a draft), not what anonymous sees (403).
    const draft = await server.request<EventResource>('POST', '/events', { body: { ...EVENT, status: 'draft' }, token: editorToken })
    expect(draft.status).toBe(201)
    expect((await server.request('GET', `/events/${draft.body.id}`)).status).toBe(403)
    const read = await server.request<EventResource>('GET', `/events/${draft.body.id}`, { headers: { authorization: basic(`ed:${editorToken}`) } })
    expect(read).toMatchObject({ status: 200, body: { id: draft.body.id, status: 'draft' } })
    // Scheme name is case-insensitive, as RFC 7617 says.
    expect((await post(`basic ${Buffer.from(`ed:${editorToken}`).toString('base64')}`)).status).toBe(201)
  })

  it('refuses another user\'s login, unknown and revoked tokens with 401 rest_invalid_token', async () => {
    for (const header of [basic(`root:${editorToken}`), basic(`ed:${otherToken}`), basic(`ed:${editorToken}x`), basic(`ED:${editorToken}`)]) {
      const res = await post(header)
      expect(res.status, header).toBe(401)
      expect(res.body).toMatchObject({ code: 'rest_invalid_token', data: { status: 401 } })
    }
    const { token, info } = await calendar.tokens.create({ role: 'editor', login: 'gone' })
    expect((await post(basic(`gone:${token}`))).status).toBe(201)
    await calendar.tokens.revoke(info.id)
    expect(await post(basic(`gone:${token}`))).toMatchObject({ status: 401, body: { code: 'rest_invalid_token' } })
  })

  it('answers every malformed Basic header with 401 in the error shape and writes nothing', async () => {
    const before = await querySql<{ n: string }>('select count(*)::text as n from events')
    const cases = [
      'Basic',
      'Basic ',
      'Basic !!!!',
      'Basic YWJj', // "abc": no colon
      'Basic YWJj=', // bad padding
      'Basic ====',
      basic(':'),
      basic(`:${editorToken}`), // empty login
      basic('ed:'), // empty token
      `Basic ${Buffer.from([0x65, 0x64, 0x3a, 0xff, 0xfe, 0x80]).toString('base64')}`, // not UTF-8
      `Basic ${Buffer.from(`ed:${editorToken}`).toString('base64')} extra`,
      `Basic ${'A'.repeat(8_000)}`,
      basic('\u0000:\u0000'),
      basic(`ed:${editorToken}\u0000`),
      'Basic ZWQ6\u00e9',
      'Digest username="ed"',
    ]
    for (const header of cases) {
      let res
      try {
        res = await post(header)
      } catch {
        continue // fetch itself refuses some header bytes; nothing reached the server.
      }
      expect(res.status, JSON.stringify(header)).toBe(401)
      expect(res.body, JSON.stringify(header)).toMatchObject({ code: 'rest_invalid_token', message: expect.any(String), data: { status: 401 } })
    }
    expect(await querySql<{ n: string }>('select count(*)::text as n from events')).toEqual(before)
  })
})

describe('failed logins are rate-limited per client (issue 28)', () => {
  let calendar: Calendar
  let server: TestServer
  let token: string
  const WINDOW_MS = 60_000
  let skipped = 0

  beforeAll(async () => {
    // The calendar's clock runs with the real one and jumps past the window when the test says so:
    // a real wait on a short window failed when the machine was so busy that the requests before
    // the 429 took longer than the window.
    calendar = await freshCalendar({ now: () => new Date(Date.now() + skipped), loginGuesses: { attempts: 3, windowMs: WINDOW_MS } })
    server = await startServer(calendar)
    token = (await calendar.tokens.create({ role: 'editor', login: 'ed' })).token
  })
  afterAll(async () => {
    await server?.close()
    await calendar?.close()
  })

  const get = <B = unknown,>(authorization?: string) => server.request<B>('GET', '/events', { headers: authorization ? { authorization } : {} })

  it('successful logins never count; failed Basic and Bearer logins count together; then every credential is a 429 with Retry-After until the window ends', async () => {
    for (let i = 0; i < 5; i++) expect((await get(`Bearer ${token}`)).status).toBe(200)
    // A malformed header is no guess (it can never log anybody in): 401, not counted.
    for (let i = 0; i < 5; i++) expect((await get('Basic !!!!')).status).toBe(401)
    expect((await get(basic(`ed:${token}x`))).status).toBe(401)
    expect((await get(`Bearer ${token}x`)).status).toBe(401)
    expect((await get(`Bearer ${token}`)).status).toBe(200)
    // The third failure is still answered; the window's failures are used up after it.
    expect((await get(basic(`root:${token}`))).status).toBe(401)
    const limited = await get<ErrorBody>(`Bearer ${token}y`)
    expect(limited.status).toBe(429)
    expect(limited.body).toMatchObject({ code: 'rest_too_many_requests', message: expect.stringMatching(/login/), data: { status: 429, retry_after: expect.any(Number) } })
    expect(Number(limited.headers.get('retry-after'))).toBe(limited.body.data.retry_after)
    // The rest of the window, in whole seconds (the requests before took some of it).
    expect(limited.body.data.retry_after).toBeGreaterThanOrEqual(30)
    expect(limited.body.data.retry_after).toBeLessThanOrEqual(WINDOW_MS / 1000)
    // The right token too: a client that could tell it apart would keep guessing at full speed.
    expect((await get(`Bearer ${token}`)).status).toBe(429)
    expect((await get(basic(`ed:${token}`))).status).toBe(429)
    // Reading anonymously is no login.
    expect((await get()).status).toBe(200)
    skipped += limited.body.data.retry_after! * 1000
    expect((await get(`Bearer ${token}`)).status).toBe(200)
    expect((await get(basic(`ed:${token}`))).status).toBe(200)
  })

  it('limits nobody when the adapter names no client: one shared count would lock every caller out', async () => {
    const handle = (authorization: string) =>
      calendar.handle({ method: 'GET', path: '/cal/events/v1/events', query: '', headers: { authorization }, origin: 'http://cal.test' })
    for (let i = 0; i < 5; i++) expect((await handle(`Bearer ${token}x`)).status).toBe(401)
    expect((await handle(`Bearer ${token}`)).status).toBe(200)
  })
})
