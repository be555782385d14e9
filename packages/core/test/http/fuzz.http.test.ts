import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { Calendar } from '@cal-events/core'
import { freshCalendar, querySql } from '../../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'

const RUNS = Number(process.env.CAL_FUZZ_RUNS ?? 10_000)

const PARAMS = [
  'page', 'per_page', 'start_date', 'end_date', 'search', 'categories', 'tags', 'venue', 'organizer', 'featured', 'status',
  'geoloc', 'geoloc_lat', 'geoloc_lng', 'include', 'exclude', 'post_parent', 'title', 'description', 'excerpt', 'slug',
  'timezone', 'all_day', 'cost', 'website', 'image', 'name', 'parent', 'order', 'orderby', 'hide_empty', 'event', 'post',
  'has_events', 'only_with_upcoming', 'author', 'date', 'date_utc', 'id', 'password', 'namespace', 'context', 'address',
  'city', 'country', 'email', 'phone', 'geo_lat', 'geo_lng', 'show_map', '__proto__', 'constructor',
]

// Lone surrogates cannot be percent-encoded; send U+FFFD as a client library would.
const enc = (v: unknown) => encodeURIComponent(String(v).replace(/[\ud800-\udfff]/g, '\ufffd'))

const weirdScalar = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.constantFrom('99999999999999999999', '-1', '0', '1e5', '2147483648', 'true', 'null', '', ' ', '2027-01-01 10:00:00', 'tomorrow 9am',
    'UTC+2', 'America/New_York', 'publish', 'draft,trash', 'http://x.org/a.png', '\u0000', '%00', '\ud800', 'NaN', '[]', '{}'),
  fc.double(),
  fc.boolean(),
)
const value = fc.oneof(weirdScalar, fc.array(weirdScalar, { maxLength: 4 }), fc.dictionary(fc.constantFrom(...PARAMS), weirdScalar, { maxKeys: 3 }))
const id = fc.oneof(fc.integer({ min: 1, max: 80 }).map(String), fc.constantFrom('0', '99999999999999999999', '2147483648', 'abc', '1.5', '-3', '%00', '%zz'))
const slug = fc.oneof(fc.stringMatching(/^[a-z0-9-]{1,12}$/), fc.constantFrom('seed-event', 'hall', '%ff', 'a%2Fb', '%00', 'x'.repeat(300)))
const path = fc.oneof(
  fc.constantFrom('', '/', '/doc', '/events', '/venues', '/organizers', '/categories', '/tags', '/nope', '/events/by-slug/'),
  id.map((i) => `/events/${i}`),
  id.map((i) => `/venues/${i}`),
  id.map((i) => `/organizers/${i}`),
  id.map((i) => `/categories/${i}`),
  id.map((i) => `/tags/${i}`),
  slug.map((s) => `/events/by-slug/${s}`),
  slug.map((s) => `/venues/by-slug/${s}`),
  slug.map((s) => `/organizers/by-slug/${s}`),
)
const queryPart = fc.oneof(
  fc.tuple(fc.constantFrom(...PARAMS), weirdScalar).map(([k, v]) => `${k}=${enc(v)}`),
  fc.tuple(fc.constantFrom(...PARAMS), weirdScalar).map(([k, v]) => `${k}[]=${enc(v)}`),
  fc.tuple(fc.constantFrom(...PARAMS), weirdScalar).map(([k, v]) => `${k}[a][b]=${enc(v)}`),
  fc.constantFrom('%', '%zz', 'a=%c3%28', 'search=%E0%A4%A', 'a[=1', '&&&', '=x', 'page=1&page=2'),
)
const body = fc.oneof(
  fc.constant(undefined),
  fc.dictionary(fc.constantFrom(...PARAMS), value, { maxKeys: 8 }).map((o) => ({ json: JSON.stringify(o) })),
  fc.jsonValue({ maxDepth: 3 }).map((v) => ({ json: JSON.stringify(v) })),
  fc.constantFrom('{', '{"title":', '[1,2', 'null', '"x"', '{"__proto__":{"polluted":1},"title":"p"}', '\u0000').map((raw) => ({ json: raw })),
  fc.array(queryPart, { maxLength: 5 }).map((parts) => ({ form: parts.join('&') })),
  fc.constant({ json: `{"a":${'['.repeat(2000)}${']'.repeat(2000)}}` }),
)

type Fuzzed = { method: string; path: string; query: string[]; body: { json?: string; form?: string } | undefined; auth: 'none' | 'admin' | 'bogus' }

const request: fc.Arbitrary<Fuzzed> = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'),
  path,
  query: fc.array(queryPart, { maxLength: 5 }),
  body,
  auth: fc.constantFrom('none', 'admin', 'admin', 'bogus'),
})

const FINGERPRINT = `select md5(concat_ws('|',
  (select string_agg(t::text, ',' order by id) from events t), (select string_agg(t::text, ',' order by id) from venues t),
  (select string_agg(t::text, ',' order by id) from organizers t), (select string_agg(t::text, ',' order by id) from terms t),
  (select string_agg(t::text, ',' order by event_id, term_id) from event_terms t),
  (select string_agg(t::text, ',' order by event_id, organizer_id) from event_organizers t),
  (select string_agg(t::text, ',' order by id) from images t))) as f`

describe('fuzzing every route with random and malformed requests', () => {
  let calendar: Calendar
  let server: TestServer
  let admin: string
  beforeAll(async () => {
    // Its bogus Bearer tokens come from the same client as its administrator's requests: with the
    // default failed-login limit, the administrator would be answered 429 for most of the run.
    calendar = await freshCalendar({ loginGuesses: { attempts: 1_000_000 } })
    server = await startServer(calendar)
    admin = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
    await calendar.events.create({
      title: 'Seed Event', start_date: '2027-01-01 10:00:00', end_date: '2027-01-01 11:00:00',
      venue: { venue: 'Hall' }, organizer: [{ organizer: 'Org' }], categories: ['Cat'], tags: ['tag'],
    })
  })
  afterAll(async () => {
    await server.close()
    await calendar.close()
  })

  it(`answers ${RUNS} fuzzed requests without a 5xx; rejected ones change nothing`, async () => {
    const tally = { sent: 0, '2xx': 0, '4xx': 0, '5xx': 0 }
    const failures: string[] = []
    let before = (await querySql<{ f: string }>(FINGERPRINT))[0]!.f
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers: Record<string, string> = {}
        if (r.auth === 'admin') headers.authorization = `Bearer ${admin}`
        if (r.auth === 'bogus') headers.authorization = 'Bearer nope'
        let payload: string | undefined
        if (r.body && r.method !== 'GET' && r.method !== 'HEAD') {
          payload = r.body.json ?? r.body.form
          headers['content-type'] = r.body.json !== undefined ? 'application/json' : 'application/x-www-form-urlencoded'
        }
        const url = `${server.base}${r.path}${r.query.length ? `?${r.query.join('&')}` : ''}`
        const res = await fetch(url, { method: r.method, headers, body: payload })
        const text = await res.text()
        tally.sent++
        const klass = res.status >= 500 ? '5xx' : res.status >= 400 ? '4xx' : '2xx'
        tally[klass]++
        if (klass === '5xx') failures.push(`${res.status} ${r.method} ${url} ${payload ?? ''} → ${text.slice(0, 200)}`)
        if (klass === '4xx') {
          if (r.method !== 'HEAD' && !/"code":/.test(text)) failures.push(`no error shape: ${res.status} ${r.method} ${url} → ${text.slice(0, 200)}`)
          const after = (await querySql<{ f: string }>(FINGERPRINT))[0]!.f
          if (after !== before) failures.push(`rejected request changed data: ${res.status} ${r.method} ${url} ${payload ?? ''}`)
        } else {
          before = (await querySql<{ f: string }>(FINGERPRINT))[0]!.f
        }
        return failures.length === 0
      }),
      { numRuns: RUNS, seed: Number(process.env.CAL_FUZZ_SEED ?? 20261121), endOnFailure: true },
    ).catch((err) => failures.push(String(err).slice(0, 1500)))
    console.log(`fuzz: ${JSON.stringify(tally)}`)
    expect(failures.slice(0, 10)).toEqual([])
    expect(tally.sent).toBe(RUNS)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  }, 600_000)
})
