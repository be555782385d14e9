import { z } from 'zod'
import type { ArgDoc, ArgSpec } from '../api/arg-kinds.js'

type Json = Record<string, unknown>

/** How the time kinds (CONTRACT 1.2 "time") read; JSON Schema's `date-time` would refuse most of them. */
const TIME_NOTE =
  'A time: `YYYY-MM-DD HH:MM:SS`, `YYYY-MM-DD`, ISO 8601 with or without an offset, a Unix timestamp in digits, ' +
  'or an English phrase such as `tomorrow 9am` or `+5 weeks`.'

function fromDoc(doc: ArgDoc): Json {
  const types = Array.isArray(doc.type) ? doc.type : doc.type ? [doc.type] : []
  const one = (type: string): Json => (type === 'array' ? { type, items: doc.items ? fromDoc(doc.items) : {} } : { type })
  const schema: Json = types.length === 1 ? one(types[0]!) : types.length > 1 ? { anyOf: types.map(one) } : {}
  if (doc.enum) schema.enum = [...doc.enum]
  return schema
}

function isEmptySchema(schema: Json): boolean {
  return !['type', 'anyOf', 'oneOf', 'enum', 'const', '$ref', 'allOf'].some((key) => key in schema)
}

/**
 * The JSON Schema of one declared argument as the document states it: the output side of the very
 * schema that validates it (its type and limits after the wire string is read), else the
 * argument's own description of itself. What it allows is always accepted by the validator.
 */
export function argJsonSchema(spec: ArgSpec, where: 'query' | 'body'): Json {
  let schema: Json
  if (spec.openapi) {
    schema = structuredClone(spec.openapi)
  } else if (spec.doc.format === 'date-time') {
    schema = { type: 'string', minLength: 1, maxLength: 200, description: TIME_NOTE }
  } else {
    const rendered = z.toJSONSchema(spec.schema, { io: 'output', unrepresentable: 'any' }) as Json
    delete rendered.$schema
    schema = isEmptySchema(rendered) ? fromDoc(spec.doc) : rendered
    if (spec.doc.format === 'uri' && schema.type === 'string') {
      // url0: "" or an absolute http(s) URL.
      const { maxLength } = schema
      schema = { anyOf: [{ type: 'string', maxLength: 0 }, { type: 'string', format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength }] }
    }
  }
  if (spec.default !== undefined && schema.default === undefined) {
    const parsed = spec.schema.safeParse(spec.default)
    schema.default = parsed.success ? parsed.data : spec.default
  }
  if (spec.description) {
    schema.description = typeof schema.description === 'string' && schema.description ? `${spec.description} ${schema.description}` : spec.description
  }
  if (where === 'query') schema = asQueryValue(schema)
  if (where === 'body' && spec.nullable) {
    const { description, ...rest } = schema
    return { anyOf: [rest, { type: 'null' }], ...(typeof description === 'string' && description ? { description: `${description} \`null\` clears it.` } : {}) }
  }
  return schema
}

/**
 * A query flag as the server reads it: `true`/`false` or `1`/`0` (`boolSchema`; any case too, not
 * stated). Stated as `boolean | 0 | 1` so that a validating proxy accepts `featured=1` and a
 * generated client still refuses `featured=maybe`.
 */
function asQueryValue(schema: Json): Json {
  if (schema.type !== 'boolean') return schema
  const { type: _type, ...rest } = schema
  return { ...rest, anyOf: [{ type: 'boolean' }, { type: 'integer', enum: [0, 1] }] }
}

/**
 * How a list parameter is written in a query: the server reads a comma list in one value
 * (`status=publish,draft`, OpenAPI `style: form, explode: false`, which is how a validating proxy
 * then splits it), the parameter repeated (`status=publish&status=draft`) and brackets
 * (`status[]=publish`) alike.
 */
export const QUERY_LIST_STYLE = {
  style: 'form',
  explode: false,
  note: 'A comma list (`a,b`); repeating the parameter (`x=a&x=b`) or brackets (`x[]=a`) work too.',
} as const
