import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import fc from 'fast-check'

const DOC_ID = 'https://cal.invalid/openapi'

/** A JSON Schema as the document writes one: the keywords these helpers and tests read. */
export interface Schema {
  $ref?: string
  type?: string | string[]
  enum?: unknown[]
  const?: unknown
  anyOf?: Schema[]
  oneOf?: Schema[]
  allOf?: Schema[]
  description?: string
  format?: string
  pattern?: string
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  minItems?: number
  maxItems?: number
  items?: Schema
  properties?: Record<string, Schema>
  required?: string[]
  dependentRequired?: Record<string, string[]>
}

/** A parameter of an operation. */
export interface Parameter {
  name: string
  in: string
  description?: string
  required?: boolean
  schema: Schema
}

/** What an operation declares for one status: body schemas by media type, and headers. */
export interface ResponseDoc {
  content?: Record<string, { schema?: Schema }>
  headers?: Record<string, { required?: boolean; schema?: Schema }>
}

/** One operation of the document. */
export interface Operation {
  parameters?: Parameter[]
  requestBody?: { content: Record<string, { schema: Schema }> }
  responses: Record<string, ResponseDoc>
}

/** The OpenAPI document (`GET /doc`) as these helpers and tests read it. */
export interface Document {
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, Schema> }
}

/** What a local `$ref` (`#/components/schemas/Event`) of the document points at. */
export function resolveRef(document: Document, ref: string): Schema {
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], document) as Schema
}

/**
 * Validates responses against what an OpenAPI 3.1 document declares for a path, method and
 * status: the status must be declared, the body must match its schema, declared headers must be
 * there and match theirs. What the service says about itself is checked against what it sends.
 */
export function responseValidator(document: Document) {
  const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true })
  ;(addFormats as unknown as typeof addFormats.default)(ajv)
  ajv.addSchema({ $id: DOC_ID, components: document.components })
  const cache = new Map<string, ReturnType<typeof ajv.compile>>()
  const compile = (key: string, schema: unknown) => {
    let validate = cache.get(key)
    if (!validate) {
      validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`)))
      cache.set(key, validate)
    }
    return validate
  }
  return function check(path: string, method: string, status: number, body: unknown, headers?: Headers): string[] {
    const operation = document.paths?.[path]?.[method.toLowerCase()]
    if (!operation) return [`the document has no ${method} ${path}`]
    const response = operation.responses[String(status)] ?? operation.responses.default
    // The body's media type as the response names it (JSON when it names none), parameters aside.
    const mediaType = (name: string) => name.split(';')[0]!.trim().toLowerCase()
    const sent = mediaType(headers?.get('content-type') ?? 'application/json')
    const declared = Object.keys(response?.content ?? {}).find((name) => mediaType(name) === sent)
    const schema = declared === undefined ? undefined : response?.content?.[declared]?.schema
    if (!schema) return [`the document declares no ${sent} body for ${method} ${path} ${status}`]
    const key = `${path} ${method} ${status}`
    const problems: string[] = []
    const validate = compile(key, schema)
    if (!validate(body)) {
      problems.push(...(validate.errors ?? []).map((e) => `${key}: ${e.instancePath} ${e.message} ${JSON.stringify(e.params)} in ${JSON.stringify(body).slice(0, 300)}`))
    }
    for (const [name, header] of Object.entries(response?.headers ?? {})) {
      if (!headers) break
      const value = headers.get(name)
      if (value === null) {
        // A header the document says may be absent (OpenAPI's default is absent-allowed; ours is sent unless marked).
        if (header.required === false) continue
        problems.push(`${key}: header ${name} missing`)
        continue
      }
      const typed = header.schema?.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value
      const validateHeader = compile(`${key} header ${name}`, header.schema ?? {})
      if (!validateHeader(typed)) problems.push(`${key}: header ${name}=${value} does not match its schema`)
    }
    return problems
  }
}

/** Resolves a local `$ref` of the document. */
function deref(document: Document, schema: Schema): Schema {
  let current = schema
  while (current.$ref) current = resolveRef(document, current.$ref)
  return current
}

/**
 * Values a JSON Schema allows, for the subset the document uses (types, enums, anyOf, numeric and
 * length limits, `uri`, one path pattern). Integers lean to small ones so that ids name records.
 */
export function arbitraryFor(document: Document, input: Schema, hints: { time?: fc.Arbitrary<string> } = {}): fc.Arbitrary<unknown> {
  const schema = deref(document, input)
  if (schema.enum) return fc.constantFrom(...schema.enum)
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => arbitraryFor(document, s, hints)))
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => arbitraryFor(document, { ...schema, type }, hints)))
  switch (schema.type) {
    case 'null':
      return fc.constant(null)
    case 'boolean':
      return fc.boolean()
    case 'integer': {
      const min = schema.minimum ?? -2147483648
      const max = schema.maximum ?? 2147483647
      return fc.oneof(
        { weight: 3, arbitrary: fc.integer({ min: Math.max(min, Math.min(max, 0)), max: Math.min(max, Math.max(min, 0) + 12) }) },
        { weight: 1, arbitrary: fc.constantFrom(min, max) },
        { weight: 1, arbitrary: fc.integer({ min, max }) },
      )
    }
    case 'number': {
      const min = schema.minimum ?? -1e9
      const max = schema.maximum ?? 1e9
      return fc.oneof(fc.constantFrom(min, max, 0), fc.double({ min, max, noNaN: true, noDefaultInfinity: true }))
    }
    case 'string': {
      if (hints.time && /A time:/.test(schema.description ?? '')) return hints.time
      if (schema.format === 'uri') return fc.webUrl().filter((u) => u.length <= (schema.maxLength ?? 2048))
      const minLength = schema.minLength ?? 0
      const maxLength = Math.min(schema.maxLength ?? 40, 40)
      if (maxLength < minLength) return fc.constant('x'.repeat(minLength))
      // The document says in prose that text cannot hold U+0000.
      const text = fc.string({ minLength, maxLength, unit: 'grapheme' }).filter((t) => !t.includes('\u0000'))
      const pattern = schema.pattern
      return pattern ? text.filter((s) => new RegExp(pattern).test(s)) : text
    }
    case 'array': {
      const items = schema.items ? arbitraryFor(document, schema.items, hints) : fc.constant('x')
      return fc.array(items, { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) })
    }
    case 'object': {
      if (!schema.properties) return fc.constant({})
      const required = new Set(schema.required ?? [])
      const entries = Object.entries(schema.properties)
      const dependent = Object.entries(schema.dependentRequired ?? {})
      return fc
        .record(Object.fromEntries(entries.map(([k, s]) => [k, arbitraryFor(document, s, hints)])), {
          requiredKeys: entries.map(([k]) => k).filter((k) => required.has(k)),
        })
        .filter((o) => dependent.every(([k, needs]) => !(k in o) || needs.every((n) => n in o)))
    }
    default:
      return fc.jsonValue({ maxDepth: 1 })
  }
}
