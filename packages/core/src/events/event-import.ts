import type { Transaction } from 'kysely'
import { sql } from 'kysely'
import type { CallContext } from '../api/context.js'
import { addProgress, importBatchSize, progressOf, updatesExisting, writeWholeOrEach, type ExistingPolicy, type ImportBatchOptions, type ImportDeps, type ImportProgress } from '../api/import-batches.js'
import { parseArgs, refuseUnknownParams } from '../api/operation.js'
import { writeTransaction } from '../api/write.js'
import { canAssignAuthor, canEditItem, canEditType, require } from '../auth/permissions.js'
import { statisticsKeeper } from '../db/growing-table.js'
import type { DB } from '../db/generated.js'
import { invalidParams } from '../errors.js'
import { ORGANIZER, VENUE, type LinkedKind } from '../linked/kinds.js'
import { createLinked } from '../linked/linked.write.js'
import { initialPostDraft } from '../posts/lifecycle.js'
import { uniqueSlugs } from '../posts/slug-store.js'
import { resolveImage } from '../posts/write-inputs.js'
import { answerLookups, originKey, WriteLookups, type LookupAnswers } from '../posts/write-lookups.js'
import { materialiseNewSeries, type Occurrence } from '../recurrence/index.js'
import { TAXONOMIES } from '../terms/taxonomies.js'
import { resolveTermNames, splitTermItems } from '../terms/term-links.js'
import { eventWriteArgs } from './event.args.js'
import { selectEvents } from './event.repository.js'
import { insertEventRows, type NewEventRow } from './event-store.js'
import { serializeEvent, type EventRow } from './event.serializer.js'
import { applyEventWrite, draftEventWrite, plannedAuthors, verifyEventPlan, type EventInput, type EventWritePlan } from './event-write.js'

// `calendar.events.import()` (issue 33 item 2): batches, each in one transaction by multi-row
// statements: existence checks and events by origin id one statement each, the new events with
// their links in one (`insertEventRows`), the occurrences of its series in one (from the rule
// check's expansion). Every rule of a single create holds (plan, permissions, slugs, de-duplicated
// venues, organizers and terms, occurrences, change log and counts by the same triggers). An
// item the calendar refuses is reported and the rest of its batch goes on.

export type { ExistingPolicy, ImportBatchOptions, ImportDeps, ImportProgress }

/** One item the calendar refused. */
export interface ImportItemError {
  /** Its position in the items (0-based). */
  index: number
  origin_uid: string | undefined
  error: Error
}

/** What an import did, with the items refused. */
export interface ImportSummary extends ImportProgress {
  errors: ImportItemError[]
}

interface Item {
  index: number
  raw: Record<string, unknown>
  origin?: string
  input?: EventInput
  existing?: EventRow
  plan?: EventWritePlan
}

const ARGS = eventWriteArgs(true)

/**
 * Reads `items` (an iterable or async iterable of event inputs) and writes them batch by batch.
 * A batch is checked (parsed, planned, its look-ups asked) while the one before it is written,
 * so the JavaScript and the database work side by side; the writes themselves go one batch
 * after another, in order. A batch naming an origin id of the batch being written waits for it.
 */
export async function importEvents(
  deps: ImportDeps,
  items: Iterable<Record<string, unknown>> | AsyncIterable<Record<string, unknown>>,
  options: ImportBatchOptions = {},
): Promise<ImportSummary> {
  const size = importBatchSize(options)
  const summary: ImportSummary = { done: 0, created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0, errors: [] }
  // Inline venues/organizers, image URLs and term names already resolved by this import (committed).
  const resolved = new Map<string, number>()
  const keepStatistics = statisticsKeeper(deps.db, 'events')
  // The batch being written, with its origin ids; settled (never rejects) once it is done.
  let writing: { done: Promise<unknown>; origins: Set<string> } | undefined
  let failure: { error: unknown } | undefined
  const written = async () => {
    await writing?.done
    if (failure) throw failure.error
  }
  let batch: Item[] = []
  let origins = new Set<string>()
  const flush = async () => {
    if (batch.length === 0) return
    const items = batch
    const own = origins
    batch = []
    origins = new Set()
    // An origin id the batch being written holds is looked up after that batch commits.
    if (writing && [...own].some((uid) => writing!.origins.has(uid))) await written()
    // What this batch did, added to the summary when it is written: progress reports whole batches.
    const part: ImportSummary = { done: items.length, created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0, errors: [] }
    const ctx = deps.context()
    const checked = await checkBatch(ctx, items, options, part)
    await written()
    const write = async () => {
      await writeChecked(ctx, checked, part, resolved)
      await keepStatistics(part.created)
      addProgress(summary, part)
      summary.errors.push(...part.errors.sort((a, b) => a.index - b.index))
      options.onProgress?.(progressOf(summary))
    }
    writing = { done: write().catch((error: unknown) => void (failure = { error })), origins: own }
  }
  try {
    let index = 0
    for await (const raw of items as AsyncIterable<Record<string, unknown>>) {
      const origin = typeof raw?.origin_uid === 'string' && raw.origin_uid !== '' ? raw.origin_uid : undefined
      // One origin once per batch: a repeat goes into the next batch, after the first is written.
      if (origin !== undefined && origins.has(origin)) await flush()
      if (origin !== undefined) origins.add(origin)
      batch.push({ index: index++, raw, origin })
      if (batch.length >= size) await flush()
    }
    await flush()
  } finally {
    // Never return (or throw) with a batch still being written.
    await writing?.done
  }
  if (failure) throw failure.error
  return summary
}

function fail(summary: ImportSummary, item: Item, err: unknown): void {
  summary.failed++
  summary.errors.push({ index: item.index, origin_uid: item.origin, error: err instanceof Error ? err : new Error(String(err)) })
}

/**
 * A yield to the event loop once `SLICE_MS` of work went by since the last: the write beside a
 * batch's check sends its next statement only when the loop gets to the answer. Checked in one
 * piece, a batch of 1,000 held the loop 60-200 ms at a time, and the write took twice as long.
 */
function slicer(): () => Promise<void> | undefined {
  let since = performance.now()
  return () => {
    const now = performance.now()
    if (now - since < SLICE_MS) return undefined
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        since = performance.now()
        resolve()
      }),
    )
  }
}
const SLICE_MS = 4

/** Parses, plans and checks a batch; an item refused is reported, those that passed are returned. */
async function checkBatch(ctx: CallContext, batch: Item[], options: ImportBatchOptions, summary: ImportSummary): Promise<Item[]> {
  const slice = slicer()
  let live: Item[] = []
  for (const item of batch) {
    await slice()
    try {
      item.input = parseItem(item.raw)
      live.push(item)
    } catch (err) {
      fail(summary, item, err)
    }
  }
  // The batch's events by origin id, in one statement.
  const uids = live.flatMap((i) => (i.origin ? [i.origin] : []))
  const found = uids.length === 0 ? [] : await eventsByOrigin(ctx, uids)
  const byOrigin = new Map(found.map((row) => [row.origin_uid!, row]))
  const needs = new WriteLookups()
  const drafts = new Map<Item, (answers: LookupAnswers) => EventWritePlan>()
  const next: Item[] = []
  for (const item of live) {
    await slice()
    const existing = item.origin ? byOrigin.get(item.origin) : undefined
    if (existing?.status === 'trash') {
      summary.skipped++
      continue
    }
    item.existing = existing
    try {
      if (existing && !updatesExisting(options.existing, () => serializeEvent(existing, ctx, { single: true, unlocked: true }), item.raw)) {
        summary.unchanged++
        continue
      }
      drafts.set(item, draftEventWrite(item.input!, existing, ctx, needs))
      next.push(item)
    } catch (err) {
      fail(summary, item, err)
    }
  }
  // The batch's origin ids were asked above: their holders answer the drafts' origin checks.
  const asked = needs.origins.get(ctx.language)
  for (const uid of uids) asked?.delete(uid)
  if (asked?.size === 0) needs.origins.delete(ctx.language)
  const answers = await answerLookups(ctx.db, needs, ctx.principal)
  for (const row of found) answers.origins.set(originKey(row.language, row.origin_uid!), row.id)
  live = []
  for (const item of next) {
    await slice()
    try {
      const plan = drafts.get(item)!(answers)
      require(ctx.principal, item.existing ? canEditItem(ctx.principal, item.existing) : canEditType(ctx.principal))
      require(ctx.principal, plannedAuthors(plan).every((author) => canAssignAuthor(ctx.principal, author)))
      await verifyEventPlan(plan)
      item.plan = plan
      live.push(item)
    } catch (err) {
      fail(summary, item, err)
    }
  }
  return live
}

/** Writes a checked batch in one transaction; when it fails as a whole, item by item. */
async function writeChecked(ctx: CallContext, live: Item[], summary: ImportSummary, resolved: Map<string, number>): Promise<void> {
  await writeWholeOrEach(
    live,
    async () => {
      const pending = new Map<string, number>()
      const counts = await writeTransaction(ctx, (trx) => writeBatch(trx, live, ctx, resolved, pending))
      for (const [key, id] of pending) resolved.set(key, id)
      summary.created += counts.created
      summary.updated += counts.updated
    },
    async (item) => {
      await writeTransaction(ctx, (trx) => applyEventWrite(trx, item.plan!, item.existing, ctx))
      if (item.existing) summary.updated++
      else summary.created++
    },
    (item, err) => fail(summary, item, err),
  )
}

/**
 * The events holding these origin ids, with their relations: the ids first, one index probe each
 * (an `in` list, planned generic, scanned the table: 4 s a batch at 178,000 events; a join read
 * the origin index up to the batch's last id, 57-97 ms a batch at 1,000,000; `limit 1` keeps the
 * lateral a probe, an id being held once per language), then the rows of those found.
 */
async function eventsByOrigin(ctx: CallContext, uids: string[]): Promise<EventRow[]> {
  const { rows } = await sql<{ id: number }>`select e.id from unnest(${uids}::text[]) u(uid)
    cross join lateral (select id from events where language = ${ctx.language} and origin_uid = u.uid limit 1) e`.execute(ctx.db)
  if (rows.length === 0) return []
  return await selectEvents(ctx.db).where('e.id', '=', sql<number>`any(${rows.map((r) => r.id)}::int[])`).execute()
}

/** An item's fields as a create declares them; `origin_uid` is what makes a re-import find it again. */
function parseItem(raw: Record<string, unknown>): EventInput {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalidParams({ item: 'An event input is an object.' })
  refuseUnknownParams(Object.keys(raw), (name) => Object.hasOwn(ARGS, name))
  const input = parseArgs(ARGS, raw) as EventInput
  if (typeof input.origin_uid !== 'string' || input.origin_uid === '') throw invalidParams({ origin_uid: 'An imported event needs an origin_uid.' })
  return input
}

/** Writes a checked batch in the caller's transaction: updates one by one, creates together. */
async function writeBatch(
  trx: Transaction<DB>,
  items: Item[],
  ctx: CallContext,
  resolved: Map<string, number>,
  pending: Map<string, number>,
): Promise<{ created: number; updated: number }> {
  pending.clear()
  const known = (key: string) => resolved.get(key) ?? pending.get(key)
  // Inline venues and organizers, image URLs: resolved once per import (the first one written).
  const linkId = async (kind: LinkedKind, ref: { id: number } | { create: Record<string, unknown> }) => {
    if ('id' in ref) return ref.id
    const key = `${kind.table}:${JSON.stringify(ref.create)}`
    let id = known(key)
    if (id === undefined) pending.set(key, (id = (await createLinked(trx, kind, ref.create, ctx)).id))
    return id
  }
  // Image URLs: registered once per import, updates' and creates' alike.
  const imageId = async (image: { url: string; extension: string }) => {
    const key = `images:${image.url}`
    let id = known(key)
    if (id === undefined) pending.set(key, (id = (await resolveImage(trx, image))!))
    return id
  }
  // Term names of the batch, each taxonomy's in one lock statement.
  const language = ctx.language
  for (const taxonomy of TAXONOMIES) {
    const names = [...new Set(items.flatMap((i) => splitTermItems(taxonomy, i.plan![taxonomy.plural] ?? []).names))]
    const missing = names.filter((n) => known(termKey(taxonomy.name, n)) === undefined)
    const ids = await resolveTermNames(trx, taxonomy, missing, language)
    missing.forEach((name, i) => pending.set(termKey(taxonomy.name, name), ids[i]!))
  }
  // Every plan by ids only (copies: a batch rolled back is written again from the originals).
  const plans = new Map<Item, EventWritePlan>()
  for (const item of items) {
    const plan = { ...item.plan! }
    if (plan.venue) plan.venue = await Promise.all(plan.venue.map(async (ref) => ({ id: await linkId(VENUE, ref) })))
    if (plan.organizers) plan.organizers = await Promise.all(plan.organizers.map(async (ref) => ({ id: await linkId(ORGANIZER, ref) })))
    if (plan.image && 'url' in plan.image) plan.image = { id: await imageId(plan.image) }
    for (const taxonomy of TAXONOMIES) {
      const named = plan[taxonomy.plural]
      if (!named) continue
      const { ids, names } = splitTermItems(taxonomy, named)
      plan[taxonomy.plural] = [...ids, ...names.map((n) => known(termKey(taxonomy.name, n))!)]
    }
    plans.set(item, plan)
  }
  let updated = 0
  for (const item of items.filter((i) => i.existing)) {
    await applyEventWrite(trx, plans.get(item)!, item.existing, ctx)
    updated++
  }
  const creates = items.filter((i) => !i.existing)
  if (creates.length === 0) return { created: 0, updated }
  const rows: NewEventRow[] = []
  // The rows whose slug (its base so far) is made unique, as a single create's is.
  const slugged: Record<string, unknown>[] = []
  for (const item of creates) {
    const plan = plans.get(item)!
    const cols: Record<string, unknown> = { ...plan.columns }
    if (plan.venue !== undefined) cols.venue_id = plan.venue.length === 0 ? null : await linkId(VENUE, plan.venue[0]!)
    const organizers = await Promise.all((plan.organizers ?? []).map((ref) => linkId(ORGANIZER, ref)))
    // An id, or `clear` (a URL became its id above).
    if (plan.image !== undefined) cols.image_id = 'id' in plan.image ? plan.image.id : null
    if (plan.title !== undefined) cols.title = plan.title.trim()
    const { columns: post, slugToMakeUnique } = initialPostDraft('events', (cols.title as string | undefined) ?? '', plan, ctx)
    const columns = { ...cols, ...post }
    if (slugToMakeUnique) slugged.push(columns)
    const terms: { taxonomy: string; id: number }[] = []
    for (const taxonomy of TAXONOMIES) {
      for (const id of new Set(splitTermItems(taxonomy, plan[taxonomy.plural] ?? []).ids)) terms.push({ taxonomy: taxonomy.name, id })
    }
    rows.push({ columns, organizers: [...new Set(organizers)], terms })
  }
  // Where this import's earlier batches left each title's suffixes (committed ones only).
  const bases = slugged.map((columns) => columns.slug as string)
  const carried = new Map<string, number>()
  for (const [base, at] of bases.map((b) => [b, known(`slugs:${language}:${b}`)] as const)) if (at !== undefined) carried.set(base, at)
  const advanced = new Map<string, number>()
  const free = await uniqueSlugs(trx, 'events', bases, language, carried, advanced)
  for (const [base, n] of advanced) pending.set(`slugs:${language}:${base}`, n)
  slugged.forEach((columns, i) => (columns.slug = free[i]))
  const inserted = await insertEventRows(trx, rows)
  const ids = new Map(inserted.map((r) => [r.origin_uid, r.id]))
  let created = inserted.length
  const series: number[] = []
  const expanded = new Map<number, Occurrence[]>()
  for (const item of creates) {
    const id = ids.get(item.origin!)
    if (id === undefined) {
      // A single create took a slug this insert picked: written alone, as a single create is.
      await applyEventWrite(trx, plans.get(item)!, undefined, ctx)
      created++
      continue
    }
    if (item.plan!.rule) series.push(id)
    if (item.plan!.rule?.occurrences) expanded.set(id, item.plan!.rule.occurrences)
  }
  await materialiseNewSeries(trx, series, ctx.clock.now(), expanded)
  return { created, updated }
}

const termKey = (taxonomy: string, name: string) => `terms:${taxonomy}:${name.trim().toLowerCase()}`
