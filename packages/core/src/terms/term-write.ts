import { cleanPostHtml, cleanTitle } from '../posts/html.js'
import { sql, type Transaction } from 'kysely'
import type { CallContext } from '../api/context.js'
import { writeTransaction } from '../api/write.js'
import type { DB } from '../db/generated.js'
import { CalendarError, invalidParam } from '../errors.js'
import { slugify } from '../shared/slug.js'
import type { Taxonomy } from './taxonomies.js'
import { findSlugHolder, findTerm, findTermByName, isSelfOrAncestor } from './term.repository.js'
import type { TermRow } from './term.serializer.js'
import { createTermRow, termNameLockKey } from './term-links.js'

/** Validated fields of a term write; `parentId` `null` = top level, `undefined` = unchanged. */
export interface TermFields {
  name?: string
  description?: string
  slug?: string
  parentId?: number | null
}

/**
 * The parameter rules of `parent` in a hierarchical taxonomy (CONTRACT 12, O-28): 0 is the top
 * level, anything else must be an existing term of the taxonomy that is not the term itself or
 * one of its descendants. A flat taxonomy has no parent: `undefined`.
 */
export async function checkParent(
  db: CallContext['db'] | Transaction<DB>,
  taxonomy: Taxonomy,
  parent: number | undefined,
  termId?: number,
): Promise<number | null | undefined> {
  if (parent === undefined || !taxonomy.hierarchical) return undefined
  if (parent === 0) return null
  if (!(await findTerm(db, taxonomy, parent))) throw invalidParam('parent', `Not an existing ${taxonomy.doc.noun}.`)
  if (termId !== undefined && (await isSelfOrAncestor(db, parent, termId))) {
    throw invalidParam('parent', `A ${taxonomy.doc.noun} cannot be its own ancestor.`)
  }
  return parent
}

/** Refuses `parent` in a flat taxonomy (tags): the reference checks it in the handler, after the permission. */
export function refuseParentWhenFlat(taxonomy: Taxonomy, ctx: CallContext): void {
  if (taxonomy.hierarchical) return
  const sent = ctx.raw.body.parent ?? ctx.raw.query.parent
  if (sent !== undefined && sent !== null) {
    throw new CalendarError('TAXONOMY_NOT_HIERARCHICAL', 'Cannot set parent term, taxonomy is not hierarchical.')
  }
}

/** Serialises every change to the shape of a taxonomy's tree (moves, children of deletes). */
async function lockTree(trx: Transaction<DB>, taxonomy: Taxonomy): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`terms-tree:${taxonomy.name}`}))`.execute(trx)
}

/**
 * Locks a term for a conditional write (http/preconditions.ts) in the order the writes below
 * take their locks: a hierarchical taxonomy's tree first (its delete moves children and so locks
 * their rows under the tree lock), then the row. The other order would deadlock with a concurrent
 * delete of its parent. `false` when there is no such term.
 */
export async function lockTermForWrite(trx: Transaction<DB>, taxonomy: Taxonomy, id: number): Promise<boolean> {
  if (taxonomy.hierarchical) await lockTree(trx, taxonomy)
  const row = await trx.selectFrom('terms').select('id').where('id', '=', id).where('taxonomy', '=', taxonomy.name).forNoKeyUpdate().executeTakeFirst()
  return row !== undefined
}

/** Name and description as stored for the caller (issue 15 item 9); a name left empty is a 400. */
function cleanTermFields(ctx: CallContext, fields: TermFields): Pick<TermFields, 'name' | 'description'> {
  const policy = ctx.options.unfilteredHtml
  const name = fields.name === undefined ? undefined : cleanTitle(fields.name, ctx.principal, policy)
  if (name !== undefined && name.trim() === '') throw invalidParam('name', 'The name has no text once its markup is cleaned.')
  const description = fields.description === undefined ? undefined : cleanPostHtml(fields.description, ctx.principal, policy)
  return { name, description }
}

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505'
}

/**
 * Creates a term (CONTRACT 12): a case-insensitive name clash at the same level is `term_exists`;
 * a taken slug gets `-2`, `-3`…. Returns the new id.
 */
export async function createTerm(ctx: CallContext, taxonomy: Taxonomy, sent: TermFields & { name: string }): Promise<number> {
  const fields = { ...sent, ...cleanTermFields(ctx, sent) } as TermFields & { name: string }
  const level = taxonomy.hierarchical ? (fields.parentId ?? null) : undefined
  const attempt = () =>
    writeTransaction(ctx, async (trx) => {
      if (level) {
        // A parent deleted meanwhile would otherwise leave this child at the top level (or fail its foreign key).
        await lockTree(trx, taxonomy)
        await checkParent(trx, taxonomy, level)
      }
      // Serialises creators of one name, so two concurrent requests cannot both pass the clash check.
      await sql`select pg_advisory_xact_lock(hashtext(${termNameLockKey(taxonomy, ctx.language, fields.name)}))`.execute(trx)
      const clash = await findTermByName(trx, { taxonomy, language: ctx.language, name: fields.name, parentId: level })
      if (clash !== undefined) {
        throw new CalendarError('TERM_EXISTS', 'A term with the name provided already exists with this parent.', { term_id: clash })
      }
      return createTermRow(trx, {
        taxonomy,
        name: fields.name,
        slug: fields.slug === undefined ? '' : slugify(fields.slug),
        language: ctx.language,
        parentId: level ?? null,
        description: fields.description ?? '',
      })
    })
  // The slug lock covers one base slug; a suffixed slug (`a-2`) can still race a request for it verbatim.
  for (let tries = 1; ; tries++) {
    try {
      return await attempt()
    } catch (err) {
      if (!isUniqueViolation(err) || tries >= 3) throw err
    }
  }
}

/** Applies a partial update (CONTRACT 12): absent fields stay; a slug another term holds is `duplicate_term_slug`. */
export async function updateTerm(ctx: CallContext, taxonomy: Taxonomy, id: number, sent: TermFields): Promise<void> {
  const fields = { ...sent, ...cleanTermFields(ctx, sent) }
  const duplicate = (slug: string) =>
    new CalendarError('DUPLICATE_TERM_SLUG', `The slug “${slug}” is already in use by another term.`)
  let wantedSlug: string | undefined
  try {
    await writeTransaction(ctx, async (trx) => {
      if (fields.parentId !== undefined) {
        // Serialises re-parenting, so two concurrent moves cannot close a cycle between them.
        await lockTree(trx, taxonomy)
        await checkParent(trx, taxonomy, fields.parentId ?? 0, id)
      }
      const row = await findTerm(trx, taxonomy, id, true)
      if (!row) throw invalidParam('id')
      if (fields.slug !== undefined) {
        wantedSlug = slugify(fields.slug) || slugify(fields.name ?? row.name) || row.slug
        if (wantedSlug !== row.slug && (await findSlugHolder(trx, taxonomy, row.language ?? '', wantedSlug, id)) !== undefined) {
          throw duplicate(wantedSlug)
        }
      }
      const changes = {
        ...(fields.name !== undefined ? { name: fields.name } : {}),
        ...(fields.description !== undefined ? { description: fields.description } : {}),
        ...(wantedSlug !== undefined ? { slug: wantedSlug } : {}),
        ...(fields.parentId !== undefined ? { parent_id: fields.parentId } : {}),
      }
      if (Object.keys(changes).length > 0) await trx.updateTable('terms').set(changes).where('id', '=', id).execute()
    })
  } catch (err) {
    // A concurrent writer took the slug between the check and the write.
    if (isUniqueViolation(err) && wantedSlug !== undefined) throw duplicate(wantedSlug)
    throw err
  }
}

/**
 * Deletes a term for good (CONTRACT 13): events lose it and a category's children move up to
 * its parent. Returns the row as it was just before.
 */
export async function deleteTerm(ctx: CallContext, taxonomy: Taxonomy, id: number): Promise<TermRow> {
  return writeTransaction(ctx, async (trx) => {
    if (taxonomy.hierarchical) await lockTree(trx, taxonomy)
    const row = await findTerm(trx, taxonomy, id, true)
    if (!row) throw invalidParam('id')
    if (taxonomy.hierarchical) await trx.updateTable('terms').set({ parent_id: row.parent_id }).where('parent_id', '=', id).execute()
    await trx.deleteFrom('event_terms').where('term_id', '=', id).execute()
    await trx.deleteFrom('terms').where('id', '=', id).execute()
    return row
  })
}
