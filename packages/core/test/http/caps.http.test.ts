import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, EventList, EventResource } from '@cal-events/core'
import { execSql, freshCalendar, querySql } from '../../../../test-support/test-db.js'
import { startServer, type ErrorBody, type TestServer } from '../../../../test-support/http.js'
import type { Document, Schema } from '../../../../test-support/openapi.js'

// Issue 15 item 7: caps on the lists a write can carry and on what a list embeds.
const NOW = new Date('2026-11-21T03:39:06Z')
const WHEN = { start_date: '2026-12-10 20:00:00', end_date: '2026-12-10 23:00:00' }

describe('caps on lists in writes and in list responses', () => {
  let calendar: Calendar
  let server: TestServer
  let token: string
  beforeAll(async () => {
    calendar = await freshCalendar({ now: () => NOW })
    server = await startServer(calendar)
    token = (await calendar.tokens.create({ role: 'contributor', login: 'c' })).token
  })
  afterAll(async () => {
    await server.close()
    await calendar.close()
  })

  const counts = async () =>
    (await querySql<{ n: string }>(
      `select (select count(*) from events) || '/' || (select count(*) from terms) || '/' || (select count(*) from venues) || '/' || (select count(*) from organizers) as n`,
    ))[0]!.n
  const names = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix} ${i}`)

  it('refuses more than 100 categories or tags, 20 organizers or 50 cost values with a 400 that changes nothing', async () => {
    const before = await counts()
    const cases: [string, unknown][] = [
      ['categories', names(101, 'cat')],
      ['categories', names(101, 'csv').join(',')],
      ['tags', names(101, 'tag')],
      ['categories', ['x'.repeat(201)]],
      ['organizer', names(21, 'org').map((organizer) => ({ organizer }))],
      ['organizer', Array.from({ length: 21 }, (_, i) => i + 1).join(',')],
      ['cost', Array.from({ length: 51 }, (_, i) => String(i))],
    ]
    for (const [field, value] of cases) {
      const res = await server.request<ErrorBody>('POST', '/events', { token, body: { title: 'Capped', ...WHEN, [field]: value } })
      expect(res.status, field).toBe(400)
      expect(res.body.code).toBe('rest_invalid_param')
      expect(res.body.data.params![field], field).toMatch(/at most/i)
    }
    expect(await counts()).toBe(before)
  })

  it('accepts lists up to the caps', async () => {
    const res = await server.request<EventResource>('POST', '/events', {
      token,
      body: { title: 'Full', ...WHEN, categories: names(100, 'cat'), tags: names(100, 'tag'), organizer: names(20, 'org').map((organizer) => ({ organizer })) },
    })
    expect(res.status).toBe(201)
    expect(res.body.categories).toHaveLength(100)
    expect(res.body.tags).toHaveLength(100)
    expect(res.body.organizer).toHaveLength(20)
  })

  it('states the caps as maxItems in the OpenAPI document', async () => {
    const doc = (await server.request<Document>('GET', '/doc')).body
    const body = doc.components.schemas.CreateEventBody!
    // The array form of a field, however deep the nullable/union nesting puts it.
    const arrayBranch = (name: string) => {
      const queue: (Schema | undefined)[] = [body.properties![name]]
      while (queue.length > 0) {
        const s = queue.shift()!
        if (s.type === 'array') return s
        queue.push(...(s.anyOf ?? []), ...(s.oneOf ?? []))
      }
      return undefined
    }
    expect(arrayBranch('categories')!.maxItems).toBe(100)
    expect(arrayBranch('tags')!.maxItems).toBe(100)
    expect(arrayBranch('organizer')!.maxItems).toBe(20)
  })

  it('embeds at most 100 terms of a kind per event in a list, even for events stored before the caps', async () => {
    const event = await calendar.events.create({ title: 'Legacy', ...WHEN, status: 'publish' })
    await execSql(`insert into terms (taxonomy, name, slug, language) select 'category', 'legacy ' || i, 'legacy-' || i, '' from generate_series(1, 150) i`)
    await execSql(`insert into event_terms (event_id, term_id) select ${event.id}, id from terms where slug like 'legacy-%'`)
    const list = (await server.request<EventList>('GET', '/events?search=Legacy')).body
    expect(list.events[0]!.categories).toHaveLength(100)
    expect((await server.request<EventResource>('GET', `/events/${event.id}`)).body.categories).toHaveLength(150)
  })
})
