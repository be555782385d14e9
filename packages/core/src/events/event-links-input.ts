import { parseArgs } from '../api/operation.js'
import { toList } from '../api/arg-kinds.js'
import { CalendarError, invalidParam, invalidParams } from '../errors.js'
import { errorBody } from '../http/error-response.js'
import { singlePerEvent, type LinkedKind } from '../linked/kinds.js'
import { linkedWriteArgs } from '../linked/linked.args.js'
import { checkLinkedAnswers, checkLinkedShape, type LinkedInput } from '../linked/linked.write.js'
import type { LookupAnswers, WriteLookups } from '../posts/write-lookups.js'
import { isRowId } from '../shared/row-id.js'

/** One linked record an event write refers to: an existing id, or data to create (or reuse) one. */
export type LinkRef = { id: number } | { create: LinkedInput }

function isClearing(value: unknown): boolean {
  return value === null || value === 0 || value === '' || value === '0' || (Array.isArray(value) && value.length === 0)
}

/**
 * A parameter error of inline venue/organizer data, reported under the event's `venue`/`organizer`
 * parameter with the stand-alone route's error nested in `details` (CONTRACT 2.1); others pass.
 */
function underParam(param: string, err: unknown): unknown {
  if (!(err instanceof CalendarError) || (err.code !== 'INVALID_PARAM' && err.code !== 'MISSING_PARAM')) return err
  const inner = err.data?.params
  const reason =
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.entries(inner as Record<string, string>).map(([name, why]) => `${name}: ${why}`).join(' ')
      : err.message
  return invalidParams({ [param]: reason }, { [param]: errorBody(err) })
}

/** Parses one entry of `venue`/`organizer`: id, numeric string, `{id}`, or inline fields. */
function parseEntry(kind: LinkedKind, value: unknown, param: string): LinkRef | { linkedId: number } {
  if (typeof value === 'number' || (typeof value === 'string' && /^\s*\d+\s*$/.test(value))) {
    const id = Number(value)
    if (!isRowId(id)) throw invalidParam(param)
    return { id }
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>
    if (Object.keys(obj).length === 1 && 'id' in obj) {
      const id = Number(obj.id)
      if (!isRowId(id)) throw invalidParam(param)
      return { linkedId: id }
    }
    const name = obj[kind.nameField]
    if (name === undefined || name === null || (typeof name === 'string' && name.trim() === '')) {
      throw new CalendarError(kind.errors.couldNotCreate, `Could not create the ${kind.type}: it has no ${kind.nameField} name.`)
    }
    try {
      return { create: parseArgs(linkedWriteArgs(kind, true), obj) }
    } catch (err) {
      throw underParam(param, err)
    }
  }
  throw invalidParam(param)
}

/** A `venue`/`organizer` value checked for shape, its ids registered for the database checks. */
export interface ParsedLinkRefs {
  kind: LinkedKind
  entries: (LinkRef | { linkedId: number })[]
}

/**
 * Checks the shape of the `venue`/`organizer` value of an event write (CONTRACT 10.4) and
 * registers in `needs` what its database rules ask (`checkLinkRefs` reads the answers).
 */
export function parseLinkRefs(kind: LinkedKind, value: unknown, needs: WriteLookups): ParsedLinkRefs {
  const param = kind.nameField
  if (isClearing(value)) return { kind, entries: [] }
  let values: unknown[]
  if (Array.isArray(value)) values = value
  else if (typeof value === 'string' && value.includes(',')) values = toList(value)
  else values = [value]
  if (singlePerEvent(kind) && values.length > 1) throw invalidParam(param, `An event has one ${kind.type}.`)
  const entries = values.map((e) => parseEntry(kind, e, param))
  for (const p of entries) {
    if ('id' in p) needs.linked[kind.table].add(p.id)
    else if ('linkedId' in p) needs.linked[kind.table].add(p.linkedId)
    // The same rules as POST /venues, in the same phase: before the permission check.
    else {
      try {
        checkLinkedShape(kind, p.create, needs)
      } catch (err) {
        throw underParam(param, err)
      }
    }
  }
  return { kind, entries }
}

/**
 * The database rules of a parsed `venue`/`organizer` value, from the answers: ids must exist
 * (400), `{id}` must name a record of the type (`invalid-linked-post-id`), inline data must be
 * valid. Only records the caller may read can be linked; any other id answers as a missing one
 * (issue 15 item 4: linking must not publish a draft or private record, nor reveal that it
 * exists). `[]` = unlink all.
 */
export function checkLinkRefs(parsed: ParsedLinkRefs, answers: LookupAnswers): LinkRef[] {
  const { kind, entries } = parsed
  const param = kind.nameField
  const known = answers.linked[kind.table]
  for (const p of entries) {
    if (!('create' in p)) continue
    try {
      checkLinkedAnswers(p.create, answers)
    } catch (err) {
      throw underParam(param, err)
    }
  }
  return entries.map((p) => {
    if ('linkedId' in p) {
      if (!known.has(p.linkedId)) {
        throw new CalendarError('INVALID_LINKED_POST_ID', `${p.linkedId} is not the id of a ${kind.type}.`)
      }
      return { id: p.linkedId }
    }
    if ('id' in p && !known.has(p.id)) throw invalidParam(param)
    return p
  })
}
