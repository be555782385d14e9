import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCalendar, type Calendar } from '@cal-events/core'
import { BACKEND, freshCalendar, querySql, workerCalendarDatabase } from '../../../../test-support/test-db.js'

// Issue 33: a calendar keeps what a token resolved to, so a request with a known token reads no
// token row; it uses it only while the version of the tokens and users read by the change check
// (sent after the request arrived) is the one read with the row. Revocations and role changes,
// through the API of any instance or by raw SQL, take effect on the very next request everywhere.

describe(`kept tokens (${BACKEND})`, () => {
  let a: Calendar
  /** A second instance on the same database (PostgreSQL only: a PGlite session serves one calendar). */
  let b: Calendar | undefined
  let statements: string[] = []
  beforeAll(async () => {
    a = await freshCalendar({ onQuery: (sql) => statements.push(sql) })
    if (BACKEND === 'postgres') b = await createCalendar({ database: await workerCalendarDatabase(2), migrate: false })
  })
  afterAll(async () => {
    await b?.close()
    await a.close()
  })

  const instances = () => [a, ...(b ? [b] : [])]
  const request = (calendar: Calendar, authorization: string, method = 'GET', body?: Record<string, unknown>) =>
    calendar.handle({ method, path: '/cal/events/v1/events', query: '', headers: { authorization }, ...(body ? { body } : {}), origin: 'http://cal.test' })
  const bearer = (token: string) => `Bearer ${token}`
  const event = { title: 'Kept', start_date: '2026-12-01 18:00:00', end_date: '2026-12-01 21:00:00' }
  /** Statements that read a token row (not the last-use write). */
  const tokenReads = () => statements.filter((s) => /^select\b.*\bfrom "api_tokens"/s.test(s)).length

  it('reads a token row once per process, not on every request', async () => {
    const { token } = await a.tokens.create({ login: 'kept', role: 'editor' })
    statements = []
    for (let i = 0; i < 3; i++) expect((await request(a, bearer(token))).status).toBe(200)
    expect(tokenReads()).toBe(1)
    expect((await request(a, bearer(token), 'POST', event)).status).toBe(201)
    expect(tokenReads()).toBe(1)
  })

  it('refuses a token revoked through the API on the very next request, on every instance', async () => {
    const { token, info } = await a.tokens.create({ login: 'revoked-api', role: 'editor' })
    for (const calendar of instances()) expect((await request(calendar, bearer(token))).status).toBe(200)
    for (const calendar of instances()) expect((await request(calendar, bearer(token))).status).toBe(200)
    await (b ?? a).tokens.revoke(info.id)
    for (const calendar of instances()) expect(await request(calendar, bearer(token))).toMatchObject({ status: 401, body: { code: 'rest_invalid_token' } })
  })

  it('refuses a token revoked, expired or deleted by raw SQL on the very next request', async () => {
    const changes = [
      (id: number) => `update api_tokens set revoked_utc = now() at time zone 'utc' where id = ${id}`,
      (id: number) => `update api_tokens set expires_utc = '2001-01-01 00:00:00' where id = ${id}`,
      (id: number) => `delete from api_tokens where id = ${id}`,
    ]
    for (const [i, change] of changes.entries()) {
      const { token, info } = await a.tokens.create({ login: `raw-${i}`, role: 'editor' })
      for (const calendar of instances()) expect((await request(calendar, bearer(token))).status).toBe(200)
      await querySql(change(info.id))
      for (const calendar of instances()) expect((await request(calendar, bearer(token))).status, change(info.id)).toBe(401)
    }
  })

  it("applies a change of the owner's role on the very next request", async () => {
    const { token } = await a.tokens.create({ login: 'demoted', role: 'editor' })
    for (const calendar of instances()) expect((await request(calendar, bearer(token), 'POST', event)).status).toBe(201)
    await querySql(`update users set role = 'subscriber' where login = 'demoted'`)
    for (const calendar of instances()) expect((await request(calendar, bearer(token), 'POST', event)).status).toBe(403)
  })

  it('refuses a kept token once its expiry passes, with no write in between', async () => {
    const { token } = await a.tokens.create({ login: 'expiring', role: 'editor', expires: new Date(Date.now() + 2000) })
    expect((await request(a, bearer(token))).status).toBe(200)
    statements = []
    await new Promise((resolve) => setTimeout(resolve, 2100))
    expect((await request(a, bearer(token))).status).toBe(401)
    expect(tokenReads()).toBe(0)
  })

  it('refuses a kept token sent as a Basic credential with another login', async () => {
    const { token } = await a.tokens.create({ login: 'basic-owner', role: 'editor' })
    const basic = (login: string) => `Basic ${Buffer.from(`${login}:${token}`).toString('base64')}`
    expect((await request(a, basic('basic-owner'))).status).toBe(200)
    expect((await request(a, bearer(token))).status).toBe(200)
    expect((await request(a, basic('someone-else'))).status).toBe(401)
    expect((await request(a, basic('basic-owner'))).status).toBe(200)
  })
})
