import type { CallContext } from '../api/context.js'
import { defineOperation } from '../api/operation.js'
import type { Resource } from '../api/policy.js'
import { answerCommitted } from '../api/write.js'
import { canManageTerms, listScope, require } from '../auth/permissions.js'
import { invalidParam } from '../errors.js'
import { termIdArg, termWriteArgs } from './term.args.js'
import type { Taxonomy } from './taxonomies.js'
import { findTerm, termShownTo } from './term.repository.js'
import { serializeTerm, type TermRow } from './term.serializer.js'
import { checkParent, createTerm, deleteTerm, refuseParentWhenFlat, updateTerm } from './term-write.js'

/**
 * What a term answer reads (`OperationPolicy.reads`): the terms, and for their counts and
 * visibility the events that carry them (a term only hidden events use reads as missing).
 */
export const TERM_READS = ['terms', 'event_terms', 'events'] as const satisfies readonly Resource[]

/** The term a by-id route names; an unknown id is a parameter rule, so 400 before permission (CONTRACT 9.1, 13). */
async function requireTerm(ctx: CallContext, taxonomy: Taxonomy, id: number): Promise<TermRow> {
  const row = await findTerm(ctx.db, taxonomy, id)
  if (!row) throw invalidParam('id')
  return row
}

/** The term as a committed write left it; only its id when the database fails to say more. */
async function readTerm(ctx: CallContext, taxonomy: Taxonomy, id: number): Promise<Record<string, unknown>> {
  return answerCommitted(async () => serializeTerm(await requireTerm(ctx, taxonomy, id), ctx.urls), () => ({ id }))
}

/** `GET /categories/{id}` or `/tags/{id}`; any language (CONTRACT 15.2). */
export function termReadOperation(taxonomy: Taxonomy) {
  return defineOperation({
    policy: { reads: TERM_READS, writes: [] },
    args: { id: termIdArg },
    async prepare(input, ctx) {
      const row = await requireTerm(ctx, taxonomy, input.id!)
      // A term only hidden events use reads as a missing one to those who cannot see them (issue 15 item 6).
      if (!(await termShownTo(ctx.db, row.id, listScope(ctx.principal)))) throw invalidParam('id')
      return row
    },
    async run(row, ctx) {
      return { body: serializeTerm(row, ctx.urls) }
    },
  })
}

/** `POST /categories` or `/tags` (CONTRACT 12): 201, the Term and a `Location` header. */
export function termCreateOperation(taxonomy: Taxonomy) {
  return defineOperation({
    // A retry with the same Idempotency-Key returns the first answer (api/idempotency.ts).
    policy: { idempotent: true, reads: TERM_READS, writes: ['terms'] },
    args: termWriteArgs(taxonomy, true),
    readsRaw: ['parent'],
    async prepare(input, ctx) {
      const { name, description, slug, parent } = input
      const parentId = await checkParent(ctx.db, taxonomy, parent)
      return { name: name!, description, slug, parentId }
    },
    authorize(_fields, ctx) {
      require(ctx.principal, canManageTerms(ctx.principal, taxonomy))
    },
    async run(fields, ctx) {
      refuseParentWhenFlat(taxonomy, ctx)
      const id = await createTerm(ctx, taxonomy, fields)
      const location = `${ctx.urls.rest}/${taxonomy.plural}/${id}`
      return { status: 201, headers: { Location: location }, body: await readTerm(ctx, taxonomy, id) }
    },
  })
}

/** `POST|PUT|PATCH /categories/{id}` or `/tags/{id}`: a partial update (CONTRACT 12). */
export function termUpdateOperation(taxonomy: Taxonomy) {
  return defineOperation({
    policy: { reads: TERM_READS, writes: ['terms'] },
    args: { ...termWriteArgs(taxonomy, false), id: termIdArg },
    readsRaw: ['parent'],
    async prepare(input, ctx) {
      const row = await requireTerm(ctx, taxonomy, input.id!)
      const { name, description, slug, parent } = input
      const parentId = await checkParent(ctx.db, taxonomy, parent, row.id)
      return { id: row.id, fields: { name, description, slug, parentId } }
    },
    authorize(_input, ctx) {
      require(ctx.principal, canManageTerms(ctx.principal, taxonomy))
    },
    async run({ id, fields }, ctx) {
      refuseParentWhenFlat(taxonomy, ctx)
      await updateTerm(ctx, taxonomy, id, fields)
      return { body: await readTerm(ctx, taxonomy, id) }
    },
  })
}

/** `DELETE /categories/{id}` or `/tags/{id}`: permanent; returns the Term as it was (CONTRACT 13). */
export function termDeleteOperation(taxonomy: Taxonomy) {
  return defineOperation({
    // A deleted term leaves the events that carried it.
    policy: { reads: TERM_READS, writes: ['terms', 'event_terms'] },
    args: { id: termIdArg },
    async prepare(input, ctx) {
      return requireTerm(ctx, taxonomy, input.id!)
    },
    authorize(_row, ctx) {
      require(ctx.principal, canManageTerms(ctx.principal, taxonomy))
    },
    async run(row, ctx) {
      return { body: serializeTerm(await deleteTerm(ctx, taxonomy, row.id), ctx.urls) }
    },
  })
}
