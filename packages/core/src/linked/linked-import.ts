import { sql, type Transaction } from 'kysely'
import type { CallContext } from '../api/context.js'
import { addProgress, importBatchSize, progressOf, updatesExisting, writeWholeOrEach, type ImportBatchOptions, type ImportDeps, type ImportProgress } from '../api/import-batches.js'
import { parseArgs, refuseUnknownParams } from '../api/operation.js'
import { writeTransaction } from '../api/write.js'
import { canAssignAuthor, canEditItem, canEditType, require } from '../auth/permissions.js'
import { editableSql, editScope } from '../auth/visibility.js'
import type { DB } from '../db/generated.js'
import { statisticsKeeper } from '../db/growing-table.js'
import { CalendarError, invalidParams } from '../errors.js'
import { cleanPostHtml, cleanTitle } from '../posts/html.js'
import { initialPostDraft, TRASHED } from '../posts/lifecycle.js'
import { slugLockKey, uniqueSlugs } from '../posts/slug-store.js'
import { checkImageValue } from '../posts/write-inputs.js'
import { answerLookups, WriteLookups } from '../posts/write-lookups.js'
import { slugify } from '../shared/slug.js'
import type { LinkedKind } from './kinds.js'
import { linkedWriteArgs } from './linked.args.js'
import { findLinkedRows } from './linked.repository.js'
import { serializeLinked, type LinkedRow } from './linked.serializer.js'
import { checkLinkedAnswers, checkLinkedShape, lifecycleInput, plainDetailColumns, updateLinked, type LinkedInput } from './linked.write.js'

// `calendar.venues.import()` / `calendar.organizers.import()` (issue 33): batches of venue or
// organizer inputs, each batch in one transaction of set-based statements: the name and slug
// locks in one, the records found again in one or two, the new ones' slugs in the two of
// `uniqueSlugs`, their ids in one and their rows in one insert (the change log's statement
// triggers record each row, so sync sees them). Every rule of a single create holds: the same
// parameter checks and permissions, cleaned names and HTML, status scale-back, unique slugs per
// language, a same-named record reused (CONTRACT 11.2). An item refused is reported alone.

/** One item the calendar refused. */
export interface LinkedImportItemError {
  /** Its position in the items (0-based). */
  index: number
  /** The `slug` the item gave, if any. */
  slug: string | undefined
  error: Error
}

/** What a venue/organizer import did, with the items refused and each item's record. */
export interface LinkedImportSummary extends ImportProgress {
  errors: LinkedImportItemError[]
  /** The id of each item's record, by the item's index: created, updated, left unchanged, or found in the trash (`skipped`); `undefined` for an item refused. */
  ids: (number | undefined)[]
}

interface Item {
  index: number
  raw: Record<string, unknown>
  /** The slug the item is found again by (and a new record takes), normalised. */
  slug?: string
  input?: LinkedInput
  name?: string
  description?: string
  draft?: ReturnType<typeof initialPostDraft>
}

/** What writing one item did. */
type Outcome = { item: Item; id: number; did: 'created' | 'updated' | 'unchanged' | 'skipped' } | { item: Item; error: unknown }

/** The key that makes two items of a batch the same record: its slug, or (without one) its name. */
function batchKey(raw: unknown, kind: LinkedKind): string | undefined {
  if (raw === null || typeof raw !== 'object') return undefined
  const { slug, [kind.nameField]: name } = raw as Record<string, unknown>
  if (typeof slug === 'string' && slug !== '') return `slug:${slugify(slug)}`
  return typeof name === 'string' ? `name:${name.trim().toLowerCase()}` : undefined
}

/**
 * Reads `items` (an iterable or async iterable of venue or organizer inputs, each with an
 * optional `slug`) and writes them batch by batch, in order. An item is found again by its
 * `slug` (any status, in the call's language), or without one as `create` finds a record (same
 * name, and description when one is sent). Two items of a batch naming one record: the second
 * goes into the next batch, so it finds what the first wrote.
 */
export async function importLinked(
  kind: LinkedKind,
  deps: ImportDeps,
  items: Iterable<Record<string, unknown>> | AsyncIterable<Record<string, unknown>>,
  options: ImportBatchOptions = {},
): Promise<LinkedImportSummary> {
  const size = importBatchSize(options)
  const summary: LinkedImportSummary = { done: 0, created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0, errors: [], ids: [] }
  // A migration brings thousands of venues into an empty table: its look-ups by slug and name must
  // not be planned for the empty table the statistics last saw (as `events.import` keeps them).
  const keepStatistics = statisticsKeeper(deps.db, kind.table)
  let batch: Item[] = []
  let keys = new Set<string>()
  const flush = async () => {
    if (batch.length === 0) return
    const part: LinkedImportSummary = { done: batch.length, created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0, errors: [], ids: summary.ids }
    const ctx = deps.context()
    const live = await checkBatch(kind, ctx, batch, part)
    await writeChecked(kind, ctx, live, options, part)
    await keepStatistics(part.created)
    addProgress(summary, part)
    summary.errors.push(...part.errors.sort((a, b) => a.index - b.index))
    batch = []
    keys = new Set()
    options.onProgress?.(progressOf(summary))
  }
  let index = 0
  for await (const raw of items as AsyncIterable<Record<string, unknown>>) {
    const key = batchKey(raw, kind)
    if (key !== undefined && keys.has(key)) await flush()
    if (key !== undefined) keys.add(key)
    summary.ids.push(undefined)
    batch.push({ index: index++, raw })
    if (batch.length >= size) await flush()
  }
  await flush()
  return summary
}

function fail(summary: LinkedImportSummary, item: Item, err: unknown): void {
  summary.failed++
  summary.errors.push({ index: item.index, slug: item.slug, error: err instanceof Error ? err : new Error(String(err)) })
}

/** Parses and checks a batch as `create` does (parameters, then the database's answers); an item refused is reported. */
async function checkBatch(kind: LinkedKind, ctx: CallContext, batch: Item[], summary: LinkedImportSummary): Promise<Item[]> {
  const declared = linkedWriteArgs(kind, true)
  const policy = ctx.options.unfilteredHtml
  const needs = new WriteLookups()
  const parsed: Item[] = []
  for (const item of batch) {
    try {
      const raw = item.raw
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalidParams({ item: `A ${kind.type} input is an object.` })
      const { slug, ...fields } = raw
      refuseUnknownParams(Object.keys(fields), (name) => Object.hasOwn(declared, name))
      if (slug !== undefined && (typeof slug !== 'string' || slugify(slug) === '')) throw invalidParams({ slug: 'A slug is a text with a letter or digit.' })
      if (typeof slug === 'string') item.slug = slugify(slug)
      const input = parseArgs(declared, fields) as LinkedInput
      checkLinkedShape(kind, input, needs)
      const name = cleanTitle(input[kind.nameField] as string, ctx.principal, policy).trim()
      if (name === '') throw new CalendarError(kind.errors.couldNotCreate, `Could not create the ${kind.type}: it has no name.`)
      item.input = input
      item.name = name
      item.description = typeof input.description === 'string' ? cleanPostHtml(input.description, ctx.principal, policy) : ''
      // What a new record's lifecycle columns would be; its slug base is the item's slug when it gives one.
      item.draft = initialPostDraft(kind.table, name, lifecycleInput(input, ctx), ctx)
      if (item.draft.slugToMakeUnique && item.slug) item.draft.columns.slug = item.slug
      parsed.push(item)
    } catch (err) {
      fail(summary, item, err)
    }
  }
  const answers = needs.empty ? undefined : await answerLookups(ctx.db, needs, null)
  const live: Item[] = []
  for (const item of parsed) {
    try {
      if (answers) checkLinkedAnswers(item.input!, answers)
      require(ctx.principal, canAssignAuthor(ctx.principal, item.input!.author as number | undefined))
      live.push(item)
    } catch (err) {
      fail(summary, item, err)
    }
  }
  return live
}

/** Writes a checked batch in one transaction; when it fails as a whole, item by item. */
async function writeChecked(kind: LinkedKind, ctx: CallContext, live: Item[], options: ImportBatchOptions, summary: LinkedImportSummary): Promise<void> {
  const record = (outcomes: Outcome[]) => {
    for (const outcome of outcomes) {
      if ('error' in outcome) fail(summary, outcome.item, outcome.error)
      else {
        summary[outcome.did]++
        summary.ids[outcome.item.index] = outcome.id
      }
    }
  }
  const write = async (items: Item[]) => record(await writeTransaction(ctx, (trx) => writeBatch(trx, kind, items, ctx, options)))
  await writeWholeOrEach(live, () => write(live), (item) => write([item]), (item, err) => fail(summary, item, err))
}

/** Writes a checked batch in the caller's transaction: found records as the policy says (one by one), new ones together. */
async function writeBatch(trx: Transaction<DB>, kind: LinkedKind, items: Item[], ctx: CallContext, options: ImportBatchOptions): Promise<Outcome[]> {
  const language = ctx.language
  const table = kind.table
  // The locks a single create takes, in its order (names, then slugs), all in one statement: a
  // concurrent create of the same name or slug waits for this batch and then finds its records.
  const names = items.filter((i) => !i.slug).map((i) => `${table}:${i.name!.toLowerCase()}`)
  const slugs = items.flatMap((i) => [...(i.slug ? [i.slug] : []), ...(i.draft!.slugToMakeUnique ? [i.draft!.columns.slug] : [])])
  const keys = [...new Set(names)].sort().concat([...new Set(slugs.map((s) => slugLockKey(table, s, language)))].sort())
  await sql`select count(pg_advisory_xact_lock(hashtext(k))) from (select k from unnest(${keys}::text[]) with ordinality u(k, n) order by n) s`.execute(trx)
  const found = await findStored(trx, kind, items, ctx)
  const outcomes: Outcome[] = []
  const creates: Item[] = []
  for (const item of items) {
    const row = found.get(item)
    if (!row) {
      creates.push(item)
      continue
    }
    try {
      // In the trash: left there, never recreated (as `events.import` leaves trashed events).
      if (row.status === 'trash') outcomes.push({ item, id: row.id, did: 'skipped' })
      else if (!updatesExisting(options.existing, () => serializeLinked(kind, row, ctx, false), item.raw)) outcomes.push({ item, id: row.id, did: 'unchanged' })
      else {
        require(ctx.principal, canEditItem(ctx.principal, row))
        await updateLinked(trx, kind, row, item.input!, ctx)
        outcomes.push({ item, id: row.id, did: 'updated' })
      }
    } catch (err) {
      if (!(err instanceof CalendarError)) throw err
      outcomes.push({ item, error: err })
    }
  }
  const allowed = creates.filter((item) => {
    try {
      require(ctx.principal, canEditType(ctx.principal))
      return true
    } catch (err) {
      outcomes.push({ item, error: err })
      return false
    }
  })
  const ids = await insertNew(trx, kind, allowed, ctx)
  allowed.forEach((item, i) => outcomes.push({ item, id: ids[i]!, did: 'created' }))
  return outcomes
}

/**
 * The stored record of each item, if any: by slug (the active language's, live before trashed)
 * in one statement; by name (and description when sent) as `create` reuses one, in one more.
 */
async function findStored(trx: Transaction<DB>, kind: LinkedKind, items: Item[], ctx: CallContext): Promise<Map<Item, LinkedRow>> {
  const table = sql.table(kind.table)
  const bySlug = items.filter((i) => i.slug)
  const byName = items.filter((i) => !i.slug)
  const ids = new Map<Item, number>()
  if (bySlug.length > 0) {
    const wanted = [...new Set(bySlug.flatMap((i) => [i.slug!, i.slug! + TRASHED]))]
    const { rows } = await sql<{ id: number; slug: string }>`select id, slug from ${table}
      where language = ${ctx.language} and slug = any(${wanted}::text[]) order by id`.execute(trx)
    const first = new Map<string, number>()
    for (const row of rows) if (!first.has(row.slug)) first.set(row.slug, row.id)
    for (const item of bySlug) {
      const id = first.get(item.slug!) ?? first.get(item.slug! + TRASHED)
      if (id !== undefined) ids.set(item, id)
    }
  }
  if (byName.length > 0) {
    // `lower(title)` is indexed (`venues_name`, `organizers_name`): one probe per item.
    const { rows } = await sql<{ n: number; id: number }>`select distinct on (u.n) u.n::int as n, p.id
      from unnest(${byName.map((i) => i.name!)}::text[], ${byName.map((i) => i.description!)}::text[]) with ordinality u(name, descr, n)
      join ${table} p on lower(p.title) = lower(u.name) and (u.descr = '' or lower(p.description) = lower(u.descr))
     where p.status <> 'trash' and ${editableSql(editScope(ctx.principal), 'p')}
     order by u.n, p.id`.execute(trx)
    for (const row of rows) ids.set(byName[row.n - 1]!, row.id)
  }
  if (ids.size === 0) return new Map()
  const rows = new Map((await findLinkedRows(trx, kind, [...new Set(ids.values())])).map((row) => [row.id, row]))
  return new Map([...ids].map(([item, id]) => [item, rows.get(id)!]))
}

/**
 * Inserts the new records: their image URLs registered in one statement, their slugs made unique
 * (`uniqueSlugs`), their ids taken from the posts' sequence in one, their rows in one insert per
 * set of columns. Returns the ids in the order of `items`.
 */
async function insertNew(trx: Transaction<DB>, kind: LinkedKind, items: Item[], ctx: CallContext): Promise<number[]> {
  if (items.length === 0) return []
  const images = await imageIds(trx, items)
  const slugged = items.filter((i) => i.draft!.slugToMakeUnique)
  const free = await uniqueSlugs(trx, kind.table, slugged.map((i) => i.draft!.columns.slug), ctx.language)
  const slugOf = new Map(slugged.map((item, i) => [item, free[i]!]))
  const { rows } = await sql<{ id: number }>`select nextval('post_id_seq')::int as id from generate_series(1, ${items.length}::int)`.execute(trx)
  const ids = rows.map((r) => r.id)
  const groups = new Map<string, Record<string, unknown>[]>()
  items.forEach((item, i) => {
    const input = item.input!
    const columns: Record<string, unknown> = {
      ...plainDetailColumns(kind, input, undefined, true),
      ...item.draft!.columns,
      id: ids[i],
      title: item.name,
      description: item.description,
    }
    if (slugOf.has(item)) columns.slug = slugOf.get(item)
    if (input.image !== undefined) columns.image_id = images.get(item) ?? null
    const key = Object.keys(columns).sort().join(',')
    let group = groups.get(key)
    if (!group) groups.set(key, (group = []))
    group.push(columns)
  })
  for (const [key, group] of groups) {
    const columns = sql.join(key.split(',').map((k) => sql.ref(k)))
    // One JSON parameter read with the table's own column types (as `insertEventRows` does), not a parameter per value.
    await sql`insert into ${sql.table(kind.table)} (${columns})
      select ${columns} from json_populate_recordset(null::${sql.table(kind.table)}, ${JSON.stringify(group)}::json)`.execute(trx)
  }
  return ids
}

/** The image id of each item that sets one: ids as given (checked), URLs registered in one statement. */
async function imageIds(trx: Transaction<DB>, items: Item[]): Promise<Map<Item, number>> {
  const out = new Map<Item, number>()
  const byUrl = new Map<string, { extension: string; items: Item[] }>()
  for (const item of items) {
    if (item.input!.image === undefined) continue
    const image = checkImageValue(item.input!.image)
    if ('id' in image) out.set(item, image.id)
    else if ('url' in image) {
      const entry = byUrl.get(image.url) ?? { extension: image.extension, items: [] }
      entry.items.push(item)
      byUrl.set(image.url, entry)
    }
  }
  if (byUrl.size === 0) return out
  const urls = [...byUrl.keys()]
  const { rows } = await sql<{ id: number; url: string }>`insert into images (url, extension)
      select * from unnest(${urls}::text[], ${urls.map((u) => byUrl.get(u)!.extension)}::text[]) order by 1
    on conflict (url) do update set extension = excluded.extension returning id, url`.execute(trx)
  for (const row of rows) for (const item of byUrl.get(row.url)!.items) out.set(item, row.id)
  return out
}
