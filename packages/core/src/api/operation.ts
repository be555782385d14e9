import { CalendarError, invalidParams } from '../errors.js'
import type { ArgSpec } from './arg-kinds.js'
import type { CallContext } from './context.js'
import type { OperationPolicy } from './policy.js'
import type { OperationResult } from './result.js'

export type { OperationResult, TextStream } from './result.js'

/** Declared parameters of an endpoint, by name. */
export type ArgsRecord = Record<string, ArgSpec>

/**
 * What a script caller may pass for declared parameters: each one's wire input, all optional (the
 * operation checks required ones). A name that is not declared does not compile.
 */
export type ArgInput<A extends ArgsRecord> = {
  [K in keyof A]?: NonNullable<A[K]> extends ArgSpec<unknown, infer I> ? I | null : never
}

/** Parsed values of declared parameters; absent ones are `undefined` (or `null` when nullable). */
export type ParsedArgs<A extends ArgsRecord> = {
  [K in keyof A]-?: NonNullable<A[K]> extends ArgSpec<infer T> ? T | undefined : never
}

/**
 * One endpoint's behaviour, free of HTTP: declared parameters, then (in the contract's order,
 * CONTRACT 2.2) database-backed parameter rules, the permission check, and the handler.
 */
export interface Operation<A extends ArgsRecord = ArgsRecord, P = ParsedArgs<A>, R = unknown> {
  readonly args: A
  /**
   * Names the operation reads from `ctx.raw` without declaring them (a tag's `parent`, refused by
   * its own rule); the script API accepts them beside the declared ones.
   */
  readonly readsRaw?: readonly string[]
  /** What the request pipeline does for it beyond running it: caching, idempotency (api/policy.ts). */
  readonly policy?: OperationPolicy
  /** Parameter rules that need the database (unknown ids are 400s); returns the prepared input. */
  prepare?(input: ParsedArgs<A>, ctx: CallContext): Promise<P>
  /** Permission check; throws UNAUTHENTICATED/FORBIDDEN. */
  authorize?(input: P, ctx: CallContext): void | Promise<void>
  run(input: P, ctx: CallContext): Promise<OperationResult<R>>
}

/**
 * Any operation, whatever its parameters, prepared input and result: `P` and `R` are only ever
 * handed back to the operation's own methods, so this is what a route table or a wrapper holds.
 */
export type AnyOperation = Operation<ArgsRecord, unknown, unknown>

/** Declares an operation with its argument types inferred. */
export function defineOperation<A extends ArgsRecord, P = ParsedArgs<A>, R = unknown>(
  op: Operation<A, P, R>,
): Operation<A, P, R> {
  return op
}

function isAbsent(value: unknown, spec: ArgSpec): boolean {
  return value === undefined || (value === null && !spec.nullable)
}

// PostgreSQL text cannot hold U+0000; such a value would fail in the database as a 500.
function holdsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000')
  if (depth > 8 || value === null || typeof value !== 'object') return false
  return Object.entries(value).some(([k, v]) => k.includes('\u0000') || holdsNul(v, depth + 1))
}

// A declaration's entries, listed once: a bulk import parses thousands of items against one
// declaration of some 40 names, and listing it twice per item was a tenth of the parse.
const declaredEntries = new WeakMap<ArgsRecord, [string, ArgSpec][]>()

function entriesOf(declared: ArgsRecord): [string, ArgSpec][] {
  let entries = declaredEntries.get(declared)
  if (!entries) declaredEntries.set(declared, (entries = Object.entries(declared)))
  return entries
}

/** A 400 naming every parameter of `names` that `known` does not know (where an unknown name is a typo: scripts, imports). */
export function refuseUnknownParams(names: Iterable<string>, known: (name: string) => boolean): void {
  const unknown = [...names].filter((name) => !known(name))
  if (unknown.length > 0) throw invalidParams(Object.fromEntries(unknown.map((name) => [name, 'Unknown parameter.'])))
}

/** Checks required parameters and parses every declared one; throws the contract's 400s. */
export function parseArgs<A extends ArgsRecord>(declared: A, raw: Record<string, unknown>): ParsedArgs<A> {
  const entries = entriesOf(declared)
  const missing = entries.filter(([name, spec]) => spec.required && isAbsent(raw[name], spec)).map(([name]) => name)
  if (missing.length > 0) {
    throw new CalendarError('MISSING_PARAM', `Missing parameter(s): ${missing.join(', ')}`, { params: missing })
  }
  const parsed: Record<string, unknown> = {}
  const failures: Record<string, string> = {}
  for (const [name, spec] of entries) {
    const value = raw[name]
    if (isAbsent(value, spec)) {
      parsed[name] = spec.default === undefined ? undefined : parseDefault(spec)
      continue
    }
    if (value === null) {
      parsed[name] = null
      continue
    }
    const result = holdsNul(value) ? undefined : spec.schema.safeParse(value)
    if (result?.success) parsed[name] = result.data
    else failures[name] = spec.reason ?? 'Invalid parameter.'
  }
  if (Object.keys(failures).length > 0) throw invalidParams(failures)
  return parsed as ParsedArgs<A>
}

function parseDefault(spec: ArgSpec): unknown {
  const result = spec.schema.safeParse(spec.default)
  return result.success ? result.data : spec.default
}

/** Runs an operation on raw parameters: validation, rules, permission, handler. */
export async function invoke<A extends ArgsRecord, P, R>(
  op: Operation<A, P, R>,
  raw: Record<string, unknown>,
  ctx: CallContext,
): Promise<OperationResult<R>> {
  const parsed = parseArgs(op.args, raw)
  // `rest_url`s echo the query; only what the route declares, never a stray `access_token`.
  const query = Object.fromEntries(Object.entries(ctx.raw.query).filter(([name]) => Object.hasOwn(op.args, name)))
  // A plain copy: the clock is an object the copy shares, so its reads are still recorded (api/context.ts).
  ctx = { ...ctx, raw: { ...ctx.raw, query } }
  const prepared = op.prepare ? await op.prepare(parsed, ctx) : (parsed as unknown as P)
  if (op.authorize) await op.authorize(prepared, ctx)
  return op.run(prepared, ctx)
}
