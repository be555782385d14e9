import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { freshCalendar, querySql } from '../../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'

/**
 * A schema-driven boundary sweep: every operation the served OpenAPI document declares, times
 * every query parameter, path parameter and body field it declares, times a catalogue of edge
 * values. Nothing may answer 5xx, every 4xx has the error shape, and a 4xx changes nothing.
 *
 * Sampling, deterministic: the five methods and two addressings of one update family (POST, PUT,
 * PATCH on `/{id}` and `/by-slug/{slug}`) share a handler, so each edge value of a field goes
 * through one of them in turn; every family x field x value is sent once.
 * `CAL_SWEEP_REPORT=1` prints the distinct 5xx answers instead of stopping at the first ten.
 */

interface Edge {
  /** Names the value in failure reports. */
  label: string
  /** The JSON text for a body field (raw, so `9007199254740993` and `1e309` survive). */
  json: string
  /** The query string for key `k`, already encoded. */
  query: (k: string) => string
}

const enc = (s: string) => encodeURIComponent(s)
const str = (label: string, s: string, rawQuery?: string): Edge => ({ label, json: JSON.stringify(s), query: (k) => `${k}=${rawQuery ?? enc(s)}` })
const num = (label: string, token: string): Edge => ({ label, json: token, query: (k) => `${k}=${token}` })
const json = (label: string, token: string, query: (k: string) => string): Edge => ({ label, json: token, query })

/**
 * The catalogue, by class. A sweep sends one value of every class to every field (which one
 * rotates with the field, so the values of a class are spread over the fields);
 * `CAL_SWEEP_FULL=1` sends every value.
 */
const CLASSES: Record<string, Edge[]> = {
  empty: [str('empty', '')],
  blank: [str('blank', '   ')],
  separators: [str('comma', ','), str('commas', ' , ,, ')],
  zero: [num('zero', '0'), num('neg-zero', '-0')],
  negative: [num('minus-one', '-1'), str('minus-one-str', '-1'), str('20-digits-neg', '-99999999999999999999')],
  int4: [num('int4-max+1', '2147483648'), num('int4-min-1', '-2147483649'), str('int4-max+1-list', '1,2147483648'), num('int4-max', '2147483647')],
  int8: [num('int8-max+1', '9223372036854775808'), num('int8-max', '9223372036854775807'), num('int8-min-1', '-9223372036854775809'), str('20-digits', '99999999999999999999')],
  'beyond-2^53': [num('2^53+1', '9007199254740993')],
  fractions: [num('fraction', '1.5'), num('neg-fraction', '-0.5'), str('fraction-str', '1.5'), num('denormal', '5e-324')],
  exponents: [num('exponent', '1e3'), str('exponent-str', '1e3'), num('exponent-huge', '1e309'), str('exponent-huge-str', '1e309')],
  'not-a-number': [str('NaN', 'NaN'), str('Infinity', '-Infinity')],
  literals: [json('true', 'true', (k) => `${k}=true`), json('false', 'false', (k) => `${k}=false`), json('null', 'null', (k) => k)],
  huge: [{ label: 'huge-string', json: JSON.stringify('x'.repeat(100_000)), query: (k) => `${k}=${'x'.repeat(6000)}` }],
  nul: [str('NUL', '\u0000'), str('NUL-inside', 'a\u0000b')],
  surrogates: [
    { label: 'lone-surrogate', json: '"\\ud800"', query: (k) => `${k}=%ED%A0%80` },
    { label: 'reversed-surrogates', json: '"a\\udc00\\ud800b"', query: (k) => `${k}=%C0%AF` },
  ],
  symbols: [str('emoji', '😀'), str('punctuation', '..!!')],
  arrays: [
    json('array-empty', '[]', (k) => `${k}[]=`),
    json('array-blanks', '["",""]', (k) => `${k}[]=&${k}[]=`),
    json('array-int8', '[9223372036854775808]', (k) => `${k}[]=9223372036854775808`),
    json('array-null', '[null]', (k) => `${k}[0]`),
    json('array-ints', '[1,2]', (k) => `${k}[]=1&${k}[]=2`),
  ],
  nested: [json('array-nested', '[[1]]', (k) => `${k}[0][]=1`), json('array-objects', '[{}]', (k) => `${k}[0][a]=`)],
  objects: [
    json('object-empty', '{}', (k) => `${k}[a]=`),
    json('object-id', '{"id":2147483648}', (k) => `${k}[id]=2147483648`),
    json('object', '{"a":1}', (k) => `${k}[a]=1`),
    json('object-proto', '{"__proto__":{"x":1}}', (k) => `${k}[__proto__][x]=1`),
  ],
  'year-0': [str('date-year-0', '0000-01-01'), str('datetime-year-0', '0000-01-01 00:00:00'), num('timestamp-year-0', '-62167219200')],
  'year-1': [str('datetime-year-1', '0001-01-01 00:00:00'), str('iso-offset-year-1', '0001-01-01T00:00:00+14:00')],
  'year-9999': [
    str('datetime-year-9999', '9999-12-31 23:59:59'),
    str('date-year-9999', '9999-12-31'),
    str('date-year-10000', '10000-01-01'),
    num('timestamp-year-10000', '253402300800'),
    str('date-negative-year', '-0001-01-01'),
  ],
  'invalid-days': [str('date-feb-30', '2027-02-30'), str('date-month-13', '2027-13-01'), str('time-24h', '2027-01-01 24:00:00')],
  zones: [str('zone-plus-14', 'UTC+14'), str('zone-minus-12', 'UTC-12'), str('zone-plus-99', 'UTC+99')],
}

/** The values a field gets: one per class, rotating with the field's number; all with CAL_SWEEP_FULL. */
function edgesFor(fieldNumber: number): Edge[] {
  const classes = Object.values(CLASSES)
  if (process.env.CAL_SWEEP_FULL) return classes.flat()
  return classes.map((members) => members[fieldNumber % members.length]!)
}

/** Path parameter values: a route only matches digits (ids) or one segment (slugs). */
const ID_EDGES = ['0', '00000000001', '2147483647', '2147483648', '9223372036854775808', '99999999999999999999', '4294967297']
const SLUG_EDGES = ['%00', '%ED%A0%80', '..', '%20', 'x'.repeat(3000), '%25', 'a%2Fb', '%E2%80%AE']

const KIND_OF: Record<string, 'events' | 'venues' | 'organizers' | 'categories' | 'tags'> = {
  events: 'events', venues: 'venues', organizers: 'organizers', categories: 'categories', tags: 'tags',
}

/** A valid body for each create, so the one edge field is what the handler meets. */
function createBody(kind: string, n: number): Record<string, unknown> {
  switch (kind) {
    case 'events':
      return { title: `Sweep ${n}`, start_date: '2027-03-01 18:00:00', end_date: '2027-03-01 20:00:00' }
    case 'venues':
      return { venue: `Sweep hall ${n}` }
    case 'organizers':
      return { organizer: `Sweep crew ${n}` }
    default:
      return { name: `sweep term ${n}` }
  }
}

/** A body with one field set to a raw JSON token (JSON.stringify would round the numbers). */
function bodyWith(base: Record<string, unknown>, field: string, token: string): string {
  const rest = { ...base }
  delete rest[field]
  const head = JSON.stringify(rest).slice(0, -1)
  return `${head}${head.length > 1 ? ',' : ''}${JSON.stringify(field)}:${token}}`
}

// Tables a rejected request must leave alone, and a cheap transaction counter to skip the check
// when nothing at all was written. Per table, the row count and the sum of the rows' xmin: one
// request at a time, every committed insert or update adds rows with a newer xmin than any it
// removes, so any committed change to a table moves one of the two (even a no-op update). Reading
// only tuple headers, it costs under a millisecond where hashing the rows' text cost 18 ms a check
// (the sweep stores megabyte-sized fields): 65 s of each variant's 100 s.
const FINGERPRINT = `select concat_ws('|', ${['events', 'venues', 'organizers', 'terms', 'event_terms', 'event_organizers', 'images']
  .map((table) => `(select count(*) || ':' || coalesce(sum(xmin::text::bigint), 0) from ${table})`)
  .join(', ')}) as f`
const NEXT_XID = `select pg_snapshot_xmax(pg_current_snapshot())::text as x`

interface Planned {
  method: string
  /** The path, `{id}`/`{slug}` still to be filled with the current target (or an edge value). */
  path: string
  kind: string | undefined
  query: string
  /** `create`: a valid create body plus the field; `update`: only the field; none: no body. */
  body?: 'create' | 'update'
  field?: { name: string; token: string }
  label: string
}

interface Operation {
  method: string
  path: string
  kind: string | undefined
  family: string
  query: string[]
  body: string[] | undefined
  pathParams: string[]
}

/** A schema of the document, as far as the sweep reads it. */
interface DocSchema {
  $ref?: string
  properties?: Record<string, unknown>
}

/** The OpenAPI document, as far as the sweep reads it. */
interface SweptDocument {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content?: Record<string, { schema?: DocSchema }> } }>>
  components: { schemas: Record<string, DocSchema> }
}

/** Every operation of the document with the fields it declares. */
function operationsOf(doc: SweptDocument): Operation[] {
  const resolve = (schema: DocSchema | undefined) => (schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema)
  const ops: Operation[] = []
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
      const M = method.toUpperCase()
      const params = op.parameters ?? []
      const pathParams = params.filter((p) => p.in === 'path').map((p) => p.name as string)
      const body = resolve(op.requestBody?.content?.['application/json']?.schema)
      const kind = KIND_OF[path.split('/')[1] ?? '']
      ops.push({
        method: M,
        path,
        kind,
        // The update methods and addressings of a kind share one handler: one family.
        family: pathParams.length > 0 && M !== 'GET' && M !== 'DELETE' ? `update ${kind}` : `${M} ${path}`,
        query: params.filter((p) => p.in === 'query').map((p) => p.name as string),
        body: body ? Object.keys(body.properties ?? {}) : undefined,
        pathParams,
      })
    }
  }
  return ops
}

/**
 * The requests: each path parameter of each operation x its edges; each field of each family x
 * every edge, the value going through the family's members that declare the field in turn.
 */
function plan(ops: Operation[]): Planned[] {
  const planned: Planned[] = []
  for (const op of ops) {
    for (const name of op.pathParams) {
      for (const value of name === 'id' ? ID_EDGES : SLUG_EDGES) {
        planned.push({ method: op.method, path: op.path.replace(`{${name}}`, value), kind: op.kind, query: '', body: op.body ? 'update' : undefined, label: `${name}=${value.slice(0, 24)}` })
      }
    }
  }
  const families = new Map<string, Operation[]>()
  let fieldNumber = 0
  for (const op of ops) families.set(op.family, [...(families.get(op.family) ?? []), op])
  for (const members of families.values()) {
    const fields = new Map<string, { where: 'query' | 'body'; members: Operation[] }>()
    for (const op of members) {
      for (const name of op.query) fields.set(`q:${name}`, { where: 'query', members: [...(fields.get(`q:${name}`)?.members ?? []), op] })
      for (const name of op.body ?? []) fields.set(`b:${name}`, { where: 'body', members: [...(fields.get(`b:${name}`)?.members ?? []), op] })
    }
    for (const [key, field] of fields) {
      const name = key.slice(2)
      edgesFor(fieldNumber++).forEach((edge, i) => {
        const op = field.members[i % field.members.length]!
        planned.push({
          method: op.method,
          path: op.path,
          kind: op.kind,
          query: field.where === 'query' ? edge.query(name) : '',
          body: op.body ? (op.pathParams.length > 0 ? 'update' : 'create') : undefined,
          field: field.where === 'body' ? { name, token: edge.json } : undefined,
          label: `${name}=${edge.label}`,
        })
      })
    }
  }
  return planned
}

// Behind the fetch adapter (project http-fetch) variant A only: the adapter translates both alike,
// and the Express run sweeps both (CI time).
const VARIANTS = (['A', 'B'] as const).filter((v) => (process.env.CAL_SWEEP_VARIANTS ?? 'A,B').split(',').includes(v))

for (const variant of VARIANTS) {
  // The site zones at the ends of the offsets: dates near year 1 and 9999 cross a year there.
  const siteTimezone = variant === 'A' ? 'Pacific/Kiritimati' : 'Etc/GMT+12'
  describe(`boundary sweep over the OpenAPI document, variant ${variant} (site zone ${siteTimezone})`, () => {
    let calendar: Calendar
    let server: TestServer
    let admin: string
    const targets: Record<string, { id: number; slug: string }> = {}
    let created = 0

    async function newTarget(kind: string): Promise<void> {
      const body = { ...createBody(kind, ++created), ...(kind === 'events' ? { venue: { venue: `Target hall ${created}` }, categories: ['Target'], status: 'publish' } : {}) }
      const res = await server.request<{ id: number; slug?: string }>('POST', `/${kind}`, { token: admin, body })
      if (res.status !== 201) throw new Error(`could not create a ${kind} target: ${JSON.stringify(res.body)}`)
      targets[kind] = { id: res.body.id, slug: res.body.slug ?? '' }
    }

    /** After a write that succeeded on an item: follow its slug, or replace it once trashed. */
    async function refreshTarget(kind: string): Promise<void> {
      const table = kind === 'categories' || kind === 'tags' ? 'terms' : kind
      const rows = await querySql<{ slug: string; status?: string }>(`select * from ${table} where id = ${targets[kind]!.id}`)
      const row = rows[0]
      if (!row || row.status === 'trash' || (table !== 'terms' && row.slug === '')) await newTarget(kind)
      else targets[kind]!.slug = row.slug
    }

    beforeAll(async () => {
      calendar = await freshCalendar({ variant, siteTimezone })
      server = await startServer(calendar)
      admin = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
      for (const kind of Object.keys(KIND_OF)) await newTarget(kind)
    })
    afterAll(async () => {
      await server.close()
      await calendar.close()
    })

    it('answers every operation x field x edge value without a 5xx; a 4xx changes nothing', async () => {
      const doc = (await server.request<SweptDocument>('GET', '/doc')).body
      const requests = plan(operationsOf(doc))
      const fiveHundreds = new Map<string, string>()
      const problems: string[] = []
      const tally: Record<string, number> = {}
      const sql1 = async <K extends string>(statement: string, key: K) => (await querySql<Record<K, string>>(statement))[0]![key]
      let fingerprint = await sql1(FINGERPRINT, 'f')
      let xid = await sql1(NEXT_XID, 'x')
      let n = 0
      const send = async (r: Planned): Promise<{ status: number; text: string }> => {
        const target = r.kind ? targets[r.kind] : undefined
        const path = r.path.replace('{id}', String(target?.id)).replace('{slug}', target?.slug ?? '')
        const base = r.body === 'create' ? createBody(r.kind!, ++n) : {}
        const body = r.body === undefined ? undefined : r.field ? bodyWith(base, r.field.name, r.field.token) : JSON.stringify(base)
        const headers: Record<string, string> = { authorization: `Bearer ${admin}` }
        if (body !== undefined) headers['content-type'] = 'application/json'
        const res = await fetch(`${server.base}${path}${r.query ? `?${r.query}` : ''}`, { method: r.method, headers, body })
        return { status: res.status, text: await res.text() }
      }
      /** Tallies an answer: a 5xx is remembered, a 4xx must have the error shape. */
      const check = (r: Planned, res: { status: number; text: string }): void => {
        tally[res.status] = (tally[res.status] ?? 0) + 1
        const where = `${r.method} ${r.path} ${r.label}`
        if (res.status >= 500) fiveHundreds.set(where, `${res.status} ${res.text.slice(0, 160)}`)
        else if (res.status >= 400) {
          let parsed: { code?: unknown; data?: { status?: unknown } } | null | undefined
          try {
            parsed = JSON.parse(res.text)
          } catch {
            parsed = undefined
          }
          if (typeof parsed?.code !== 'string' || parsed?.data?.status !== res.status) problems.push(`no error shape: ${where} → ${res.status} ${res.text.slice(0, 120)}`)
        }
      }
      for (let i = 0; i < requests.length && problems.length <= 20; ) {
        if (requests[i]!.method === 'GET') {
          // Reads change nothing whatever they answer: four at a time.
          const batch = requests.slice(i, i + 4).filter((r, j, all) => all.slice(0, j + 1).every((x) => x.method === 'GET'))
          i += batch.length
          const answers = await Promise.all(batch.map(send))
          batch.forEach((r, j) => check(r, answers[j]!))
          continue
        }
        const r = requests[i++]!
        const res = await send(r)
        check(r, res)
        if (res.status >= 400 && res.status < 500) {
          // Nothing written at all (no transaction id taken) is the usual case; else compare rows.
          if ((await sql1(NEXT_XID, 'x')) === xid) continue
          const after = await sql1(FINGERPRINT, 'f')
          if (after !== fingerprint) problems.push(`a ${res.status} changed the database: ${r.method} ${r.path} ${r.label}`)
        } else if (res.status < 400 && r.kind && /\{(id|slug)\}/.test(r.path)) {
          await refreshTarget(r.kind)
        }
        fingerprint = await sql1(FINGERPRINT, 'f')
        xid = await sql1(NEXT_XID, 'x')
      }
      const distinct = [...fiveHundreds].map(([where, answer]) => `${where} → ${answer}`)
      if (process.env.CAL_SWEEP_REPORT) {
        console.log(`variant ${variant}: ${requests.length} requests, statuses ${JSON.stringify(tally)}, ${distinct.length} distinct 5xx`)
        for (const line of distinct) console.log(`  ${line}`)
      }
      expect(requests.length).toBeGreaterThan(3000)
      expect(problems).toEqual([])
      expect(distinct.slice(0, 10), `${distinct.length} distinct 5xx answers`).toEqual([])
    }, 600_000)
  })
}
