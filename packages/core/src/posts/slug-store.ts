import { sql, type Kysely, type Transaction } from 'kysely'
import type { DB } from '../db/generated.js'
import { escapeLike, likePattern } from '../db/sql-literals.js'
import { withSuffix } from '../shared/slug.js'

type Db = Kysely<DB> | Transaction<DB>

/** Where a slug must be unique (with the language): a post table, or one taxonomy of the terms. */
export type SlugScope = 'events' | 'venues' | 'organizers' | { taxonomy: { readonly name: string; readonly slugNamespace: string } }

/**
 * Picks `base`, or `base-2`, `base-3`… when taken by another item of the scope in the same
 * language, in any status (CONTRACT 10.3). Must run inside the writing transaction: the
 * advisory lock serialises writers of the same base slug until commit, so concurrent creates
 * with one title get distinct slugs instead of a unique-index violation.
 */
export async function uniqueSlug(
  trx: Db,
  scope: SlugScope,
  base: string,
  language: string,
  excludeId?: number,
): Promise<string> {
  if (base === '') return ''
  const taxonomy = typeof scope === 'string' ? undefined : scope.taxonomy
  await lockSlug(trx, scope, base, language)
  // The four tables share id, slug and language; typing the query on one of them is enough.
  const rows = await trx
    .selectFrom(taxonomy === undefined ? (scope as 'events') : ('terms' as 'events'))
    .select('slug')
    .where('language', '=', language)
    .$if(taxonomy !== undefined, (qb) => qb.where(sql.ref('taxonomy'), '=', taxonomy!.name))
    .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', likePattern(`${escapeLike(base)}-%`))]))
    .$if(excludeId !== undefined, (qb) => qb.where('id', '<>', excludeId!))
    .execute()
  const taken = new Set(rows.map((r) => r.slug))
  if (!taken.has(base)) return base
  for (let n = 2; ; n++) {
    const candidate = withSuffix(base, n)
    if (!taken.has(candidate)) return candidate
  }
}

/** The advisory lock key of a base slug: one key for `lockSlug` and `uniqueSlugs`, so single and batch writers queue together. */
export function slugLockKey(scope: SlugScope, base: string, language: string): string {
  return `${typeof scope === 'string' ? scope : scope.taxonomy.slugNamespace}:${language}:${base}`
}

/** Takes the transaction's lock on a base slug of a scope: writers of one base slug queue until COMMIT. */
export async function lockSlug(trx: Db, scope: SlugScope, base: string, language: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${slugLockKey(scope, base, language)}))`.execute(trx)
}

/**
 * `uniqueSlug` for a batch of new items of a post table (`bases` one per item, repeats allowed):
 * the bases' locks in one statement (sorted, so batches take them in one order), the slugs taken
 * in one, a free slug for each item picked here. Returns the slugs in the order of `bases`.
 *
 * `carried` (an import's, by base): the suffix where an earlier batch of the same import stopped
 * for that base. Those bases are not read whole again (at batch k of an import where 500 titles
 * repeat, the read returned 2k rows per base: 153 ms a batch after 100,000 events), only the
 * suffixes from there on that this batch may need are probed; where the next search must go on is
 * written to `advanced`. A slug freed below it meanwhile is not given again by this import.
 */
export async function uniqueSlugs(
  trx: Db,
  table: 'events' | 'venues' | 'organizers',
  bases: readonly string[],
  language: string,
  carried: ReadonlyMap<string, number> = new Map(),
  advanced: Map<string, number> = new Map(),
): Promise<string[]> {
  if (bases.length === 0) return []
  const distinct = [...new Set(bases)].sort()
  const keys = distinct.map((base) => slugLockKey(table, base, language))
  // JIT off for the rest of the transaction, set in the same statement: the look-up below is
  // planned for an unknown prefix (about a tenth of the table per base), so its estimate passed
  // the JIT thresholds and compiling took 0.37 s of a 0.46 s statement at 1,000,000 events, for a
  // few thousand index probes. A batch writer's other statements gain nothing from JIT either.
  await sql`select count(pg_advisory_xact_lock(hashtext(k))), set_config('jit', 'off', true)
    from (select k from unnest(${keys}::text[]) k order by k) s`.execute(trx)
  const wanted = new Map<string, number>()
  for (const base of bases) wanted.set(base, (wanted.get(base) ?? 0) + 1)
  // Per carried base, the suffixes probed: as many as it needs and two to spare for other
  // writers' (each probe an index look-up: 10,000 a batch with 16 to spare, 50 ms).
  const reach = new Map<string, number>()
  const probes: string[] = []
  for (const base of distinct) {
    const from = carried.get(base)
    if (from === undefined) continue
    const to = from + wanted.get(base)! + 2
    reach.set(base, to)
    for (let n = from; n < to; n++) probes.push(withSuffix(base, n))
  }
  const whole = distinct.filter((base) => !reach.has(base))
  // `~>=~`/`~<~` compare as the pattern index orders (`events_slug_pattern`): the slugs `base-…`.
  const { rows: taken } = await sql<{ slug: string }>`select e.slug from unnest(${whole}::text[]) b(base)
      cross join lateral (select slug from ${sql.table(table)} where language = ${language}
        and (slug = b.base or (slug ~>=~ (b.base || '-') and slug ~<~ (b.base || '.')))) e
    union all select slug from ${sql.table(table)} where language = ${language} and slug = any(${probes}::text[])`.execute(trx)
  const used = new Set(taken.map((t) => t.slug))
  // Where each base's search for a free suffix goes on: every suffix below it is taken (and stays
  // taken), so a base of 10,000 items is not walked from 2 again for each of them.
  const next = new Map<string, number>()
  for (const base of reach.keys()) {
    next.set(base, carried.get(base)!)
    used.add(base)
  }
  const slugs = bases.map((base) => {
    let slug = base
    let n = next.get(base) ?? 2
    for (; used.has(slug); n++) slug = withSuffix(base, n)
    next.set(base, n)
    used.add(slug)
    return slug
  })
  // Past the probes (other writers took them meanwhile): those bases read whole instead.
  const short = [...reach].filter(([base, to]) => next.get(base)! > to).map(([base]) => base)
  if (short.length > 0) {
    const again = new Map([...carried].filter(([base]) => !short.includes(base)))
    return uniqueSlugs(trx, table, bases, language, again, advanced)
  }
  for (const [base, n] of next) advanced.set(base, n)
  return slugs
}

/**
 * The id of the item of `table` with this slug, any status (CONTRACT 9.2): the active language's
 * first, then the default language's, then the oldest (CONTRACT 15.4).
 */
export async function findIdBySlug(
  db: Db,
  table: 'events' | 'venues' | 'organizers',
  slug: string,
  language: string,
  fallbackLanguage: string,
): Promise<number | undefined> {
  // The three tables share id, slug and language; typing the query on one of them is enough.
  const rows = await db
    .selectFrom(table as 'events')
    .select(['id', 'language'])
    .where('slug', '=', slug.toLowerCase())
    .orderBy('id')
    .execute()
  const pick = rows.find((r) => r.language === language) ?? rows.find((r) => r.language === fallbackLanguage) ?? rows[0]
  return pick?.id
}
