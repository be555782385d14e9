import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { Calendar } from '@cal-events/core'
import { freshCalendar } from '../../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../../test-support/http.js'
import { arbitraryFor, resolveRef, responseValidator, type Document, type Operation, type Schema } from '../../../../test-support/openapi.js'

const RUNS = Number(process.env.CAL_DOC_RUNS ?? 400)
const NOW = new Date('2026-11-21T03:39:06Z')

// Times the document describes in prose (a format JSON Schema cannot state): sample valid ones.
const TIMES = fc.constantFrom('2026-12-01 10:00:00', '2027-01-15', '2026-11-30T08:00:00Z', 'tomorrow 9am', '+5 weeks', '1795000000')

type Arg = { schema: { safeParse(v: unknown): { success: boolean } } }

/** A documented operation with the argument declarations behind it. */
interface Op {
  path: string
  method: 'get' | 'post' | 'put' | 'patch' | 'delete'
  operation: Operation
  args: Record<string, Arg>
}

function operations(doc: Document, calendar: Calendar): Op[] {
  const ns = '/cal/events/v1'
  const ops: Op[] = []
  for (const route of calendar.routes) {
    const path = route.pattern.slice(ns.length).replace(/\(\?P<(\w+)>[^)]*\)/g, '{$1}') || '/'
    for (const endpoint of route.endpoints) {
      for (const m of endpoint.methods) {
        const method = m.toLowerCase() as Op['method']
        const operation = doc.paths[path]?.[method]
        if (operation) ops.push({ path, method, operation, args: endpoint.operation.args as Record<string, Arg> })
      }
    }
  }
  return ops
}

/**
 * Whether the document states that a parameter the server named as failing, though absent, must
 * come with another one: `dependentRequired` of a body, or "needs X" on a query parameter.
 */
function pairedInDocument(operation: Operation, name: string): boolean {
  const partners = (operation.parameters ?? [])
    .filter((p) => p.in === 'query' && /needs \w+/.test(p.description ?? ''))
    .map((p) => /needs (\w+)/.exec(p.description!)![1])
  if (partners.includes(name)) return true
  const ref: string | undefined = operation.requestBody?.content['application/json']!.schema.$ref
  return ref !== undefined && Object.values(docRef(ref).dependentRequired ?? {}).some((needs) => needs.includes(name))
}

let docRef: (ref: string) => Schema = () => ({})

/** A request the document allows for one operation: path, query and body drawn from its schemas. */
function allowedRequest(doc: Document, op: Op) {
  const params = op.operation.parameters ?? []
  const pathParams = params.filter((p) => p.in === 'path')
  const queryParams = params.filter((p) => p.in === 'query')
  const bodySchema = op.operation.requestBody?.content['application/json']!.schema
  const hints = { time: TIMES }
  return fc.record({
    path: fc.record(Object.fromEntries(pathParams.map((p) => [p.name, arbitraryFor(doc, p.schema, hints)]))),
    query: fc.record(
      Object.fromEntries(queryParams.map((p) => [p.name as string, /A time:/.test(p.description ?? '') ? TIMES : arbitraryFor(doc, p.schema, hints)])) as Record<string, fc.Arbitrary<unknown>>,
      { requiredKeys: queryParams.filter((p) => p.required).map((p) => p.name as string) as never[] },
    ) as fc.Arbitrary<Record<string, unknown>>,
    body: bodySchema ? arbitraryFor(doc, bodySchema, hints).map((b) => b as Record<string, unknown>) : fc.constant(undefined),
    anonymous: fc.boolean().map((b) => b && op.method === 'get'),
  })
}

function wireQuery(query: Record<string, unknown>): { text: string; values: Record<string, unknown> } {
  const parts: string[] = []
  const values: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(query)) {
    const items: unknown[] = Array.isArray(value) ? value : [value]
    if (items.length === 0) continue
    for (const item of items) parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(item))}`)
    // What the server parses: repeated keys become an array of strings, a single key a string.
    values[name] = items.length > 1 ? items.map((item: unknown) => String(item)) : String(items[0])
  }
  return { text: parts.join('&'), values }
}

for (const variant of ['A', 'B'] as const) {
  describe(`the OpenAPI document against the server, variant ${variant}`, () => {
    let calendar: Calendar
    let server: TestServer
    let admin: string
    let doc: Document
    let check: ReturnType<typeof responseValidator>
    let ops: Op[]
    beforeAll(async () => {
      calendar = await freshCalendar({ variant, now: () => NOW })
      server = await startServer(calendar)
      admin = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
      for (let i = 1; i <= 4; i++) {
        await calendar.events.create({
          title: `Seed ${i}`,
          start_date: `2026-12-0${i} 10:00:00`,
          end_date: `2026-12-0${i} 12:00:00`,
          venue: { venue: `Hall ${i}`, city: 'Leeds' },
          organizer: [{ organizer: `Org ${i}` }],
          categories: [`Cat ${i}`],
          tags: [`tag${i}`],
          ...(i === 4 ? { status: 'draft' } : {}),
        })
      }
      doc = (await server.request<Document>('GET', '/doc')).body
      check = responseValidator(doc)
      ops = operations(doc, calendar)
      docRef = (ref) => resolveRef(doc, ref)
    })
    afterAll(async () => {
      await server.close()
      await calendar.close()
    })

    async function send(op: Op, pathValues: Record<string, unknown>, queryText: string, body: unknown, token: string | undefined) {
      const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(pathValues[name])))
      const url = `${server.base}${path === '/' ? '' : path}${queryText ? `?${queryText}` : ''}`
      const headers: Record<string, string> = {}
      if (token) headers.authorization = `Bearer ${token}`
      if (body !== undefined) headers['content-type'] = 'application/json'
      const init = { method: op.method.toUpperCase(), headers, body: body === undefined ? undefined : JSON.stringify(body) }
      // A pooled keep-alive socket the server closes as the request goes out (the 2 shared cores
      // make such idle gaps likely) is reset without an answer; that is the client's race, so try again once.
      const res = await fetch(url, init)
        .catch((err: { cause?: { code?: string } }) => (err.cause?.code === 'ECONNRESET' ? fetch(url, init) : Promise.reject(err)))
        .catch((err: unknown) => {
          throw new Error(`${init.method} ${url} ${init.body?.slice(0, 300)}: ${String((err as { cause?: unknown }).cause ?? err)}`)
        })
      const text = await res.text()
      // JSON unless the response says otherwise (the iCalendar routes answer text/calendar).
      const json = (res.headers.get('content-type') ?? 'application/json').includes('json')
      return { status: res.status, headers: res.headers, body: text === '' ? undefined : json ? JSON.parse(text) : text, url }
    }

    it('every operation is sampled, every response conforms, and no request it allows is refused for a reason it could state', async () => {
      expect(ops.length).toBe(Object.values(doc.paths).reduce((n: number, item) => n + Object.keys(item as object).length, 0))
      const problems: string[] = []
      const stated: string[] = []
      const outcomes: Record<string, number> = {}
      const rules: Record<string, number> = {}
      const sampled = new Set<string>()
      const request = fc.constantFrom(...ops).chain((op) => allowedRequest(doc, op).map((r) => ({ op, ...r })))
      await fc.assert(
        fc.asyncProperty(request, async ({ op, path, query, body, anonymous }) => {
          sampled.add(`${op.method} ${op.path}`)
          const wire = wireQuery(query)
          const res = await send(op, path, wire.text, body, anonymous ? undefined : admin)
          problems.push(...check(op.path, op.method, res.status, res.body, res.headers).map((p) => `${p} (${res.url} ${JSON.stringify(body)})`))
          const key = res.status < 400 ? String(res.status) : `${res.status} ${res.body?.code}`
          outcomes[key] = (outcomes[key] ?? 0) + 1
          if (res.status === 400 && res.body?.code === 'rest_invalid_param') {
            // Refused by the declared rule itself: the document should have said so.
            const sent: Record<string, unknown> = { ...wire.values, ...(body as Record<string, unknown>), ...path }
            for (const name of Object.keys(res.body.data.params ?? {})) {
              const spec = op.args[name]
              const pathValues = path as Record<string, unknown>
              const value = Object.hasOwn(pathValues, name) ? String(pathValues[name]) : sent[name]
              rules[name] = (rules[name] ?? 0) + 1
              if (value === undefined && pairedInDocument(op.operation, name)) continue
              if (!spec || !spec.schema.safeParse(value).success) stated.push(`${op.method} ${op.path} ${name}=${JSON.stringify(value)}`)
            }
          } else if (['rest_missing_callback_param', 'rest_invalid_json', 'rest_unsupported_media_type', 'rest_payload_too_large'].includes(res.body?.code)) {
            stated.push(`${op.method} ${op.path}: ${res.body.code} ${JSON.stringify(body)}`)
          }
        }),
        { numRuns: RUNS, seed: 20261125 },
      )
      console.log(`variant ${variant}: ${RUNS} allowed requests, outcomes ${JSON.stringify(outcomes)}, refused parameters ${JSON.stringify(rules)}`)
      expect(problems.slice(0, 10)).toEqual([])
      expect(stated.slice(0, 10)).toEqual([])
      expect([...sampled].length).toBe(ops.length)
    }, 300_000)

    it('responses to malformed and random requests conform to the document as well', async () => {
      const junk = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', '0', '-1', '2147483648', '1.5', 'true', 'abc', '[]'))
      const request = fc.record({
        op: fc.constantFrom(...ops),
        id: fc.constantFrom('1', '2', '3', '0', '999', '2147483647'),
        query: fc.dictionary(fc.constantFrom('page', 'per_page', 'search', 'status', 'include', 'order', 'orderby', 'start_date', 'event', 'namespace', 'password', 'ml_language'), junk, { maxKeys: 3 }),
        body: fc.option(fc.dictionary(fc.constantFrom('title', 'name', 'venue', 'organizer', 'start_date', 'end_date', 'status', 'parent', 'image', 'website', 'cost'), fc.oneof(junk, fc.integer(), fc.constant(null)), { maxKeys: 4 }), { nil: undefined }),
        token: fc.constantFrom<string | undefined>(undefined, 'bogus-token'),
      })
      const problems: string[] = []
      await fc.assert(
        fc.asyncProperty(request, async ({ op, id, query, body, token }) => {
          const res = await send(op, { id, slug: id }, new URLSearchParams(query as Record<string, string>).toString(), op.method === 'get' || op.method === 'delete' ? undefined : body, token ?? admin)
          problems.push(...check(op.path, op.method, res.status, res.body, res.headers).map((p) => `${p} (${res.url})`))
        }),
        { numRuns: RUNS, seed: 20261126 },
      )
      expect(problems.slice(0, 10)).toEqual([])
    }, 300_000)
  })
}
