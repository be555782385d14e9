import type { CallContext } from '../api/context.js'
import { args } from '../api/arg-kinds.js'
import { defineOperation, type ArgsRecord } from '../api/operation.js'
import type { Resource } from '../api/policy.js'
import { answerCommitted, writeTransaction } from '../api/write.js'
import { canAssignAuthor, canEditItem, canEditType, canReadItem, require } from '../auth/permissions.js'
import { CalendarError, invalidParam } from '../errors.js'
import { utcWall } from '../time/wall-time.js'
import type { LinkedKind } from './kinds.js'
import { linkedWriteArgs } from './linked.args.js'
import { locatePost } from '../posts/locate.js'
import { findLinkedRow, trashLinked } from './linked.repository.js'
import { serializeLinked, type LinkedRow } from './linked.serializer.js'
import { checkLinkedInput, createLinked, updateLinked } from './linked.write.js'

/** What a venue/organizer answer reads (`OperationPolicy.reads`): its records and their images. */
export function linkedReads(kind: LinkedKind): Resource[] {
  return [kind.table, 'images']
}

/** What trashing a record changes: the record, and the events it leaves (for a venue, their occurrences' copy of it too). */
function trashWrites(kind: LinkedKind): Resource[] {
  return kind.eventLink.via === 'table' ? [kind.table, kind.eventLink.table] : [kind.table, 'events', 'event_occurrences']
}

/** How a by-id or by-slug route names its venue/organizer. */
type Locator = 'id' | 'slug'

function locatorArgs(kind: LinkedKind, locator: Locator): ArgsRecord {
  return locator === 'id'
    ? { id: args.int({ required: true, description: `Unique identifier for the ${kind.type}.` }) }
    : { slug: args.nestr({ required: true, description: `Slug of the ${kind.type}.` }) }
}

/**
 * The record a by-id or by-slug request names, any status. An unknown id or slug, or the id of
 * another type, is a parameter rule: 400 `rest_invalid_param` before the permission check
 * (CONTRACT 2.2, 9.1).
 */
async function locate(kind: LinkedKind, locator: Locator, input: Record<string, unknown>, ctx: CallContext): Promise<LinkedRow> {
  const named = locator === 'id' ? { id: input.id as number } : { slug: input.slug as string }
  const { row } = await locatePost(ctx, kind.table, named, (db, id) => findLinkedRow(db, kind, id))
  if (!row) throw invalidParam(locator)
  return row
}

async function readBack(kind: LinkedKind, id: number, ctx: CallContext): Promise<Record<string, unknown>> {
  // The write has committed: when the database fails to say more, the answer is its id alone.
  return answerCommitted(async () => serializeLinked(kind, (await findLinkedRow(ctx.db, kind, id))!, ctx, false), () => ({ id }))
}

/** GET of one venue/organizer by id or slug (CONTRACT 9.1), with `json_ld`. */
export function linkedReadOperation(kind: LinkedKind, locator: Locator) {
  return defineOperation({
    policy: { reads: linkedReads(kind), writes: [] },
    args: locatorArgs(kind, locator),
    prepare: (input, ctx) => locate(kind, locator, input, ctx),
    async run(row, ctx) {
      // Trashed records count as not published: their author and editors still read them.
      if (!canReadItem(ctx.principal, row)) {
        throw new CalendarError(kind.errors.notAccessible, `The requested ${kind.type} is not accessible`)
      }
      return { body: serializeLinked(kind, row, ctx, true) }
    },
  })
}

/** POST /venues, /organizers: create, or reuse a same-named record (CONTRACT 11.2). */
export function linkedCreateOperation<N extends LinkedKind['type'], D extends ArgsRecord>(kind: LinkedKind<N, D>) {
  return defineOperation({
    // A retry with the same Idempotency-Key returns the first answer (api/idempotency.ts).
    // Authors are checked against `users`; an image URL becomes an image row.
    policy: { idempotent: true, reads: [...linkedReads(kind), 'users'], writes: linkedReads(kind) },
    args: linkedWriteArgs(kind, true),
    async prepare(input, ctx) {
      await checkLinkedInput(ctx.db, kind, input)
      return input
    },
    authorize(input, ctx) {
      require(ctx.principal, canEditType(ctx.principal))
      require(ctx.principal, canAssignAuthor(ctx.principal, input.author as number | undefined))
    },
    async run(input, ctx) {
      const { id } = await writeTransaction(ctx, (trx) => createLinked(trx, kind, input, ctx))
      // The reference answers 201 even when an existing record was reused.
      return { status: 201, body: await readBack(kind, id, ctx) }
    },
  })
}

/** POST/PUT/PATCH of one venue/organizer: a partial update (CONTRACT 11.3, O-2). */
export function linkedUpdateOperation<N extends LinkedKind['type'], D extends ArgsRecord>(kind: LinkedKind<N, D>, locator: Locator) {
  return defineOperation({
    policy: { reads: [...linkedReads(kind), 'users'], writes: linkedReads(kind) },
    // The path placeholder wins over a body `id`/`slug` (O-13); venues have no slug input to rename.
    args: { ...linkedWriteArgs(kind, false), ...locatorArgs(kind, locator) },
    async prepare(input, ctx) {
      const row = await locate(kind, locator, input, ctx)
      await checkLinkedInput(ctx.db, kind, input)
      return { row, input }
    },
    authorize({ row, input }, ctx) {
      require(ctx.principal, canEditItem(ctx.principal, row))
      require(ctx.principal, canAssignAuthor(ctx.principal, input.author as number | undefined))
    },
    async run({ row, input }, ctx) {
      await writeTransaction(ctx, (trx) => updateLinked(trx, kind, row, input, ctx))
      return { body: await readBack(kind, row.id, ctx) }
    },
  })
}

/** DELETE of one venue/organizer: trash it and unlink it from every event (CONTRACT 13). */
export function linkedDeleteOperation(kind: LinkedKind, locator: Locator) {
  return defineOperation({
    policy: { reads: linkedReads(kind), writes: trashWrites(kind) },
    args: locatorArgs(kind, locator),
    prepare: (input, ctx) => locate(kind, locator, input, ctx),
    authorize(row, ctx) {
      require(ctx.principal, canEditItem(ctx.principal, row))
    },
    async run(row, ctx) {
      const inTrash = () => new CalendarError(kind.errors.inTrash, `The ${kind.type} is already trashed`)
      if (row.status === 'trash') throw inTrash()
      if (!(await writeTransaction(ctx, (trx) => trashLinked(trx, kind, row.id, utcWall(ctx.clock.now()))))) throw inTrash()
      return { body: await readBack(kind, row.id, ctx) }
    },
  })
}
