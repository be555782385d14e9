import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar, EventResource } from '@cal-events/core'
import { freshCalendar, querySql } from '../../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'
import type { Document, ResponseDoc } from '../../../../test-support/openapi.js'

/** The wire codes a documented JSON refusal lists (its schema: the error shape, then `code`'s enum). */
const codesOf = (response: ResponseDoc | undefined) => response?.content?.['application/json']?.schema?.allOf?.[1]?.properties?.code?.enum

// Issue 15 item 10: a create retried with the same Idempotency-Key returns the first answer and
// writes nothing new; the same key with another body is a 422; duplicates in flight create one.

const dates = { start_date: '2027-03-01 10:00:00', end_date: '2027-03-01 11:00:00' }

describe('Idempotency-Key on creates', () => {
  let calendar: Calendar
  let server: TestServer
  let token: string
  let other: string
  const count = async (table: string) => Number((await querySql<{ n: string }>(`select count(*) as n from ${table}`))[0]!.n)

  beforeAll(async () => {
    calendar = await freshCalendar()
    server = await startServer(calendar)
    token = (await calendar.tokens.create({ role: 'administrator', login: 'root' })).token
    other = (await calendar.tokens.create({ role: 'editor', login: 'ed' })).token
  })
  afterAll(async () => {
    await server?.close()
    await calendar?.close()
  })

  const post = <B = unknown,>(path: string, body: unknown, key: string | undefined, as = token) =>
    server.request<B>('POST', path, { token: as, body, headers: key === undefined ? {} : { 'idempotency-key': key } })

  it('a retry returns the first status, body and Location and creates nothing new', async () => {
    const body = { title: 'Once', status: 'publish', ...dates }
    const first = await post<EventResource>('/events', body, 'evt-1')
    expect(first.status).toBe(201)
    const before = await count('events')
    const again = await post('/events', body, 'evt-1')
    expect(again.status).toBe(first.status)
    expect(again.body).toEqual(first.body)
    expect(again.headers.get('location')).toBe(first.headers.get('location'))
    expect(await count('events')).toBe(before)
    // Keys are per caller: another caller's same key is its own.
    const theirs = await post<EventResource>('/events', body, 'evt-1', other)
    expect(theirs.status).toBe(201)
    expect(theirs.body.id).not.toBe(first.body.id)
  })

  it('covers venues, organizers, categories and tags', async () => {
    const cases: [string, string, unknown][] = [
      ['/venues', 'venues', { venue: 'Hall' }],
      ['/organizers', 'organizers', { organizer: 'Org' }],
      ['/categories', 'terms', { name: 'Cat' }],
      ['/tags', 'terms', { name: 'Tag' }],
    ]
    for (const [path, table, body] of cases) {
      const first = await post(path, body, `k${path}`)
      expect(first.status, path).toBe(201)
      const n = await count(table)
      const again = await post(path, body, `k${path}`)
      expect(again.status, path).toBe(201)
      expect(again.body, path).toEqual(first.body)
      expect(await count(table), path).toBe(n)
    }
  })

  it('the same key with another body is a 422 and writes nothing', async () => {
    await post('/events', { title: 'A', ...dates }, 'reuse')
    const n = await count('events')
    const res = await post('/events', { title: 'B', ...dates }, 'reuse')
    expect(res.status).toBe(422)
    expect(res.body).toMatchObject({ code: 'rest_idempotency_key_reused', data: { status: 422 } })
    expect(await count('events')).toBe(n)
  })

  it('the same JSON with keys in another order and other whitespace is the same request (arrays keep their order)', async () => {
    const postRaw = (text: string, key: string) =>
      server.request('POST', '/events', { token, raw: text, headers: { 'content-type': 'application/json', 'idempotency-key': key } })
    const first = await postRaw(
      JSON.stringify({ title: 'Canonical', status: 'publish', ...dates, venue: { venue: 'Hall', city: 'Oslo' }, tags: ['b', 'a'] }),
      'canonical',
    )
    expect(first.status).toBe(201)
    const n = await count('events')
    const reordered = `{ "tags": ["b","a"],\n  "venue": {"city":"Oslo", "venue":"Hall"}, "end_date": "${dates.end_date}",\t"start_date":"${dates.start_date}", "status":"publish", "title":"Canonical" }`
    const again = await postRaw(reordered, 'canonical')
    expect(again.status).toBe(201)
    expect(again.body).toEqual(first.body)
    expect(await count('events')).toBe(n)
    // Arrays are ordered data: the same members in another order are another request.
    const swapped = await postRaw(reordered.replace('["b","a"]', '["a","b"]'), 'canonical')
    expect(swapped.status).toBe(422)
    expect(swapped.body).toMatchObject({ code: 'rest_idempotency_key_reused', data: { status: 422 } })
    expect(await count('events')).toBe(n)
  })

  it('a key stored with the fingerprint of before canonical JSON is still honoured (no 422, no 500)', async () => {
    const { createHash } = await import('node:crypto')
    const body = { title: 'Legacy', status: 'publish', ...dates }
    const first = await post('/events', body, 'legacy')
    expect(first.status).toBe(201)
    // The fingerprint as it was computed before: the body's JSON in the order it was sent.
    const legacy = createHash('sha256').update(JSON.stringify(['POST', '/cal/events/v1/events', body])).digest('hex')
    await querySql(`update cal_idempotency_keys set fingerprint = '${legacy}' where key = 'legacy'`)
    const n = await count('events')
    const again = await post('/events', body, 'legacy')
    expect(again.status).toBe(201)
    expect(again.body).toEqual(first.body)
    expect(await count('events')).toBe(n)
    expect((await post('/events', { ...body, title: 'Other' }, 'legacy')).status).toBe(422)
  })

  it('an empty key or one over 255 characters is a 400 and writes nothing', async () => {
    const n = await count('events')
    for (const key of ['', 'x'.repeat(256)]) {
      const res = await post('/events', { title: 'Bad key', ...dates }, key)
      expect(res.status, `length ${key.length}`).toBe(400)
      expect(res.body).toMatchObject({ code: 'rest_idempotency_key_invalid', data: { status: 400 } })
    }
    expect(await count('events')).toBe(n)
    expect((await post('/events', { title: 'Long key', ...dates }, 'y'.repeat(255))).status).toBe(201)
  })

  it('a failed create frees its key for a retry', async () => {
    const bad = await post('/events', { title: 'No dates' }, 'fails')
    expect(bad.status).toBe(400)
    const again = await post('/events', { title: 'No dates' }, 'fails')
    expect(again.status).toBe(400)
    expect(await count('cal_idempotency_keys where key = \'fails\'')).toBe(0)
  })

  it('10 parallel requests with one key create exactly one event', async () => {
    const n = await count('events')
    const body = { title: 'Parallel', status: 'publish', ...dates }
    const answers = await Promise.all(Array.from({ length: 10 }, () => post<EventResource>('/events', body, 'parallel')))
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201))
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1)
    expect(await count('events')).toBe(n + 1)
  })

  it('/doc documents the header, 409 and 422 on every create, and only there', async () => {
    const doc = (await server.request<Document>('GET', '/doc')).body
    const creates = ['/events', '/venues', '/organizers', '/categories', '/tags']
    for (const path of creates) {
      const post = doc.paths[path]!.post!
      expect(post.parameters!.map((p: { name: string; in: string }) => `${p.in}:${p.name}`), path).toContain('header:Idempotency-Key')
      expect(codesOf(post.responses['409']), path).toEqual(['rest_idempotency_key_in_progress'])
      expect(codesOf(post.responses['422']), path).toEqual(['rest_idempotency_key_reused'])
      expect(codesOf(post.responses['400']), path).toContain('rest_idempotency_key_invalid')
    }
    // Updates replay nothing: no key, no 409/422 from it.
    expect(doc.paths['/events/{id}']!.post!.responses['409']).toBeUndefined()
    expect(doc.paths['/events/{id}']!.post!.responses['422']).toBeUndefined()
  })
})
