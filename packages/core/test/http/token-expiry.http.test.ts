import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { freshCalendar, querySql } from '../../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'

// Tokens may carry an expiry (issue 15 item 12); once past it they answer exactly like unknown ones.

const basic = (text: string) => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`
const EVENT = { title: 'Expiry', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' }
const inOneHour = () => new Date(Date.now() + 3_600_000).toISOString()

describe('token expiry', () => {
  let calendar: Calendar
  let server: TestServer

  beforeAll(async () => {
    calendar = await freshCalendar()
    server = await startServer(calendar)
  })
  afterAll(async () => {
    await server?.close()
    await calendar?.close()
  })

  const post = (authorization: string) => server.request('POST', '/events', { body: EVENT, headers: { authorization } })

  it('accepts a token before its expiry and answers 401 rest_invalid_token after it, Bearer and Basic', async () => {
    const { token, info } = await calendar.tokens.create({ role: 'editor', login: 'exp', expires: inOneHour() })
    expect(info.expiresUtc).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
    expect((await post(`Bearer ${token}`)).status).toBe(201)
    expect((await post(basic(`exp:${token}`))).status).toBe(201)

    // Move the expiry into the past in the database itself, as time passing would.
    await querySql(`update api_tokens set expires_utc = (now() at time zone 'utc') - interval '1 second' where id = ${info.id}`)
    const unknown = await post(`Bearer cal_zzzzzzzzzz_${'A'.repeat(43)}`)
    for (const authorization of [`Bearer ${token}`, basic(`exp:${token}`)]) {
      const res = await post(authorization)
      expect(res.status, authorization).toBe(401)
      expect(res.body).toEqual(unknown.body)
    }
    expect(unknown.body).toMatchObject({ code: 'rest_invalid_token', data: { status: 401 } })
    // Reads too: an expired token is not quietly treated as anonymous.
    expect((await server.request('GET', '/events', { token })).status).toBe(401)
  })

  it('keeps tokens without expiry working and lists the expiry', async () => {
    const { token, info } = await calendar.tokens.create({ role: 'editor', login: 'forever' })
    expect(info.expiresUtc).toBeNull()
    expect((await post(`Bearer ${token}`)).status).toBe(201)
    const listed = (await calendar.tokens.list()).find((t) => t.id === info.id)
    expect(listed?.expiresUtc).toBeNull()
  })

  it('does not count an expired administrator token as a live one', async () => {
    const other = await freshCalendar()
    try {
      const { info } = await other.tokens.create({ role: 'administrator', login: 'boss', expires: inOneHour() })
      expect(await other.tokens.hasAdmin()).toBe(true)
      await querySql(`update api_tokens set expires_utc = '2000-01-01 00:00:00' where id = ${info.id}`)
      expect(await other.tokens.hasAdmin()).toBe(false)
    } finally {
      await other.close()
    }
  })

  it('refuses a malformed, zoneless, out-of-range or past expiry and stores nothing', async () => {
    const before = (await calendar.tokens.list()).length
    for (const expires of ['', 'tomorrow', '2030-01-01', '2030-01-01T00:00:00', '2030-13-01T00:00:00Z', '10000-01-01T00:00:00Z', '2000-01-01T00:00:00Z']) {
      await expect(calendar.tokens.create({ role: 'author', login: 'bad', expires }), expires).rejects.toThrow(TypeError)
    }
    await expect(calendar.tokens.create({ role: 'author', login: 'bad', expires: new Date(NaN) })).rejects.toThrow(TypeError)
    expect((await calendar.tokens.list()).length).toBe(before)
  })
})
