import { sql, type Kysely, type Transaction } from 'kysely'
import type { DB } from '../db/generated.js'
import { invalidParam } from '../errors.js'
import { isRowId } from '../shared/row-id.js'
import { slugify } from '../shared/slug.js'
import { uniqueSlug } from '../posts/slug-store.js'
import type { Taxonomy } from './taxonomies.js'
import { termIdsIn } from './term.repository.js'

type Db = Kysely<DB> | Transaction<DB>

/**
 * Splits an event's `categories`/`tags` write value (CONTRACT 10.5): numbers are ids (unknown
 * ones are skipped where they are linked), other items are names (`resolveTermNames`).
 */
export function splitTermItems(taxonomy: Taxonomy, items: readonly (string | number)[]): { ids: number[]; names: string[] } {
  // A number that is no integer names no term at all: bad input. Integers beyond int4 are unknown ids.
  if (items.some((i) => typeof i === 'number' && !Number.isInteger(i))) throw invalidParam(taxonomy.plural)
  const ids = items.filter((i) => typeof i === 'number' || /^\d+$/.test(String(i))).map(Number).filter(isRowId)
  const names = items.filter((i): i is string => typeof i === 'string' && !/^\d+$/.test(i)).map((i) => i.trim())
  return { ids, names }
}

/** The ids of terms named in a write: a slug, then a name, else a new term is created. */
export async function resolveTermNames(trx: Transaction<DB>, taxonomy: Taxonomy, names: readonly string[], language: string): Promise<number[]> {
  if (names.length === 0) return []
  // The same name lock as a term create takes: two writers naming one new term create it once.
  // Taken in sorted order in one statement, so writers with overlapping names cannot deadlock.
  const keys = [...new Set(names.map((n) => termNameLockKey(taxonomy, language, n)))].sort()
  await sql`select pg_advisory_xact_lock(hashtext(k)) from (select k from unnest(${keys}::text[]) as k order by k) as s`.execute(trx)
  const ids: number[] = []
  for (const name of names) {
    const slug = slugify(name)
    const found = await termIdsIn(trx, taxonomy, language)
      .where((eb) => eb.or([eb('slug', '=', name.toLowerCase()), eb(sql`lower(name)`, '=', name.toLowerCase())]))
      .orderBy(sql`slug = ${name.toLowerCase()}`, 'desc')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst()
    ids.push(found ? found.id : await createTermRow(trx, { taxonomy, name, slug, language, parentId: null, description: '' }))
  }
  return ids
}

/** The advisory-lock key that serialises writers creating a term of one name. */
export function termNameLockKey(taxonomy: Taxonomy, language: string, name: string): string {
  return `terms-name:${taxonomy.name}:${language}:${name.trim().toLowerCase()}`
}

/** Inserts a term with a unique slug (`-2`, `-3`… on a clash); returns its id. */
export async function createTermRow(
  trx: Transaction<DB>,
  t: { taxonomy: Taxonomy; name: string; slug: string; language: string; parentId: number | null; description: string },
): Promise<number> {
  const slug = await uniqueSlug(trx, { taxonomy: t.taxonomy }, t.slug || slugify(t.name) || 'term', t.language)
  const row = await trx
    .insertInto('terms')
    .values({ taxonomy: t.taxonomy.name, name: t.name, slug, language: t.language, parent_id: t.parentId, description: t.description })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

/**
 * Resolves the event list filter named after the taxonomy: ids or slugs (slug first, then id);
 * every item must exist (else a 400 on the filter). A hierarchical taxonomy's terms also match
 * their descendants (CONTRACT 6.1).
 */
export async function resolveTermFilter(db: Db, taxonomy: Taxonomy, items: readonly (string | number)[], language: string): Promise<number[]> {
  const param = taxonomy.plural
  // An empty list names no term; refusing it beats an `in ()` the database cannot parse.
  if (items.length === 0) throw invalidParam(param)
  const strings = items.map(String)
  const numbers = strings.filter((s) => /^\d+$/.test(s)).map(Number).filter(isRowId)
  // A category's descendants come in the same statement, one array per candidate: a list request
  // with a category filter then costs one round trip here, not two.
  const subtree = sql<number[]>`array(
    with recursive tree(id) as (select t.id union select c.id from terms c join tree on c.parent_id = tree.id)
    select id from tree)`
  const rows = await db
    .selectFrom('terms as t')
    .select(['t.id', 't.slug', 't.language'])
    .$if(taxonomy.hierarchical, (q) => q.select(subtree.as('subtree')))
    .where('t.taxonomy', '=', taxonomy.name)
    .where((eb) => eb.or([eb('t.slug', 'in', strings.map((s) => s.toLowerCase())), ...(numbers.length ? [eb('t.id', 'in', numbers)] : [])]))
    .execute()
  const ids: number[] = []
  for (const item of strings) {
    const bySlug =
      rows.find((r) => r.slug === item.toLowerCase() && r.language === language) ?? rows.find((r) => r.slug === item.toLowerCase())
    const byId = /^\d+$/.test(item) ? rows.find((r) => r.id === Number(item)) : undefined
    const found = bySlug ?? byId
    if (!found) throw invalidParam(param)
    ids.push(...('subtree' in found ? (found.subtree as number[]) : [found.id]))
  }
  return [...new Set(ids)]
}
