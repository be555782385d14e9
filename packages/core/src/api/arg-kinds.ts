import { z } from 'zod'
import { parseTimeInput } from '../time/time-input.js'

// The scalar parsing rules of CONTRACT 1.2, as zod schemas from wire value to parsed value.
// Their input side describes the wire truthfully (for the OpenAPI document); `doc` is what the
// root descriptor shows for an argument of that kind.

/** How the root descriptor describes an argument. */
export interface ArgDoc {
  type?: string | string[]
  format?: string
  enum?: readonly (string | number)[]
  items?: { type: string | string[]; enum?: readonly string[] }
}

/** One declared parameter of an endpoint: `T` parsed, `I` as a caller may send it. */
export interface ArgSpec<T = unknown, I = unknown> {
  readonly schema: z.ZodType<T, I>
  readonly doc: ArgDoc
  readonly required?: boolean
  /** Declared default, applied when the parameter is absent. */
  readonly default?: unknown
  /** `null` reaches the handler (it means "clear"); otherwise `null` counts as absent. */
  readonly nullable?: boolean
  readonly description?: string
  /** Reason shown in `data.params` when parsing fails. */
  readonly reason?: string
  /**
   * How the OpenAPI document states the value when the schema cannot say it (a `z.unknown()`
   * refinement, a string read as a flag); a subset of what the schema accepts.
   */
  readonly openapi?: Record<string, unknown>
  /** Another parameter this one must come with (a coordinate pair); the document states it. */
  readonly with?: string
  /** What a sent value means to the request pipeline beyond the operation (api/policy.ts). */
  readonly policy?: ArgPolicy
}

/**
 * A parameter's policy, declared with it so that the steps that care read it instead of lists of
 * names (docs/ARCHITECTURE.md "Request pipeline").
 */
export interface ArgPolicy {
  /**
   * The hot-read cache (docs/response-cache.md): `uncached`, a request that sends it is never kept
   * (a counted password guess; a sync walk, whose answer depends on how far the change log was
   * pruned); `second`, its value may be relative to now or bound the answer to the second, so an
   * answer that read the clock holds within its second only (else within its minute).
   */
  readonly cache?: 'uncached' | 'second'
  /**
   * Sync walks (docs/sync.md): `walk`, one of the walk's own parameters (`sync`, `sync_token`,
   * `sync_page`); `paging`, the list's paging, which a walk replaces with its cursor (neither is a
   * filter a token is bound to); `refused`, a filter a walk cannot follow exactly (a date window
   * moves with the clock, which no write records; a filter over another collection's links).
   */
  readonly sync?: 'walk' | 'paging' | 'refused'
}

const INT_MIN = -2147483648
const INT_MAX = 2147483647

const integerLike = z.union([z.number(), z.string().regex(/^\s*[+-]?\d+(?:\.0*)?\s*$/)])

/** JSON integer or decimal string of an integer, within the database's 32-bit range. */
export const intSchema = integerLike
  .transform((v) => Number(v))
  .pipe(z.number().int().min(INT_MIN).max(INT_MAX))

/** An int > 0. */
export const posintSchema = integerLike.transform((v) => Number(v)).pipe(z.number().int().min(1).max(INT_MAX))

/** `true`/`false`, `1`/`0` and their strings, case-insensitive. */
export const boolSchema = z
  .union([z.boolean(), z.literal(0), z.literal(1), z.string().regex(/^\s*(?:true|false|1|0)\s*$/i)])
  .transform((v) => (typeof v === 'string' ? /^\s*(?:true|1)\s*$/i.test(v) : Boolean(v)))

const TRUTHY_WORDS = new Set(['1', 'true', 'yes', 'y', 'on', 'enable', 'enabled'])

/** Anything; true only for true, a non-zero number or one of the truthy words. Never fails. */
export const truthySchema = z.unknown().transform((v) => {
  if (typeof v === 'boolean') return v
  if (typeof v === 'number') return v !== 0
  if (typeof v === 'string') return TRUTHY_WORDS.has(v.trim().toLowerCase())
  return false
})

/** Longest accepted text value: generous for descriptions, far below the body limit. */
export const MAX_TEXT = 100_000

/** A string of at least one character. */
export const nestrSchema = z.string().min(1).max(MAX_TEXT)

/** Any string, `""` allowed. */
export const str0Schema = z.string().max(MAX_TEXT)

/** A time value (CONTRACT 1.2 "time"); kept raw, placed in time by the handler that knows the zone. */
export const timeSchema = z
  .union([z.string().max(200), z.number()])
  .refine((v) => parseTimeInput(v, { now: new Date(0), zone: 'UTC' }) !== null)

/** A number in [-max, max], from JSON or a decimal string (exponent notation included, as clients print tiny doubles). */
export function coordinateSchema(max: number) {
  return z
    .union([z.number(), z.string().regex(/^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?\s*$/i)])
    .transform(Number)
    .pipe(z.number().min(-max).max(max))
}

/**
 * `""` or an absolute http(s) URL with a host. Other schemes (`javascript:`, `data:`, `vbscript:`)
 * would run as script wherever a client makes the value a link (issue 15 item 9).
 */
export const url0Schema = z.string().max(2048).refine((v) => {
  if (v === '') return true
  try {
    const url = new URL(v)
    return url.host !== '' && (url.protocol === 'http:' || url.protocol === 'https:')
  } catch {
    return false
  }
})

/** Splits an array or CSV string into trimmed, non-empty items (CONTRACT 1.1). */
export function toList(value: unknown): unknown[] {
  const items: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value]
  return items
    .flatMap((item) => (typeof item === 'string' ? item.split(',') : [item]))
    .map((item) => (typeof item === 'string' ? item.trim() : item))
    .filter((item) => item !== '' && item !== null && item !== undefined)
}

const listInput = z.union([z.array(z.union([z.string(), z.number()])), z.string(), z.number()])

/**
 * A list (array or CSV) whose every item passes `item`. An empty one (`?venue=`, `?status=,`)
 * names nothing and is refused, as the event list's term filters always were (an `in ()` the
 * database cannot parse was a 500); `allowEmpty` keeps it as `[]` for the filters where the
 * reference reads it as no filter (the term lists' `include`/`exclude`).
 */
export function listSchema<T>(item: z.ZodType<T>, options: { allowEmpty?: boolean } = {}): z.ZodType<T[], z.input<typeof listInput>> {
  const items = options.allowEmpty ? z.array(item) : z.array(item).min(1)
  return listInput.transform((v) => toList(v)).pipe(items)
}

/** An id-or-slug item: a positive integer or a non-empty string; digits beyond int4 name no id. */
export const idOrSlugSchema = z.union([
  posintSchema,
  z.string().min(1).max(200).refine((s) => !/^\s*[+-]?\d+(?:\.\d*)?\s*$/.test(s)),
]) as z.ZodType<number | string, number | string>

/** Builds an argument spec. */
export function arg<T, I>(schema: z.ZodType<T, I>, doc: ArgDoc, extra: Omit<ArgSpec<T>, 'schema' | 'doc'> = {}): ArgSpec<T, I> {
  return { schema, doc, ...extra }
}

/** Common argument constructors, named after the kinds of CONTRACT 1.2. */
export const args = {
  int: (extra?: Omit<ArgSpec<number>, 'schema' | 'doc'>) => arg(intSchema, { type: 'integer' }, extra),
  posint: (extra?: Omit<ArgSpec<number>, 'schema' | 'doc'>) => arg(posintSchema, { type: 'integer' }, extra),
  bool: (extra?: Omit<ArgSpec<boolean>, 'schema' | 'doc'>) => arg(boolSchema, { type: 'boolean' }, extra),
  truthy: (extra?: Omit<ArgSpec<boolean>, 'schema' | 'doc'>) => arg(truthySchema, { type: 'boolean' }, extra),
  nestr: (extra?: Omit<ArgSpec<string>, 'schema' | 'doc'>) => arg(nestrSchema, { type: 'string' }, extra),
  /** A non-empty string of at most `max` characters (names, titles, slugs, search). */
  shortText: (max: number, extra?: Omit<ArgSpec<string>, 'schema' | 'doc'>) =>
    arg(z.string().min(1).max(max), { type: 'string' }, extra),
  str0: (extra?: Omit<ArgSpec<string>, 'schema' | 'doc'>) => arg(str0Schema, { type: 'string' }, extra),
  time: (extra?: Omit<ArgSpec<string | number>, 'schema' | 'doc'>) =>
    arg(timeSchema, { type: 'string', format: 'date-time' }, extra),
  url0: (extra?: Omit<ArgSpec<string>, 'schema' | 'doc'>) => arg(url0Schema, { type: 'string', format: 'uri' }, extra),
  posintList: (extra?: Omit<ArgSpec<number[]>, 'schema' | 'doc'>, options?: { allowEmpty?: boolean }) =>
    arg(listSchema(posintSchema, options), { type: 'array', items: { type: 'integer' } }, extra),
  idOrSlugList: (extra?: Omit<ArgSpec<(number | string)[]>, 'schema' | 'doc'>) =>
    arg(listSchema(idOrSlugSchema), { type: 'array', items: { type: ['integer', 'string'] } }, extra),
  enumOf: <const E extends readonly [string, ...string[]]>(values: E, extra?: Omit<ArgSpec<E[number]>, 'schema' | 'doc'>) =>
    arg(z.enum(values) as unknown as z.ZodType<E[number], E[number]>, { type: 'string', enum: values }, extra),
  /** A number within ±`max` (latitude 90, longitude 180), as a JSON number or a decimal string. */
  coordinate: (max: number, extra?: Omit<ArgSpec<number>, 'schema' | 'doc'>) =>
    arg(coordinateSchema(max), { type: 'number' }, extra),
}
