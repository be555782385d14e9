import { sql, type Transaction } from 'kysely'
import { args } from '../api/arg-kinds.js'
import type { CallContext } from '../api/context.js'
import { defineOperation } from '../api/operation.js'
import { answerCommitted, writeTransaction } from '../api/write.js'
import { canEditItem, canEditType, require } from '../auth/permissions.js'
import type { DB } from '../db/generated.js'
import { CalendarError } from '../errors.js'
import { expandSliced, findException, occurrenceAt, occurrenceKey, occurrenceNotFound, ruleWork, splitRecurrence, withExdate, type RuleWork, type SeriesStart } from '../recurrence/index.js'
import { epochMsToUtcWall, utcWallToEpochMs, wallToUtc, wallFromDb } from '../time/wall-time.js'
import { locatePost } from '../posts/locate.js'
import { eventWriteArgs } from './event.args.js'
import { EVENT_WRITE_READS, EVENT_WRITES } from './event-resources.js'
import { findEventRow } from './event.repository.js'
import { serializeEvent, serializeException, type EventRow } from './event.serializer.js'
import { applyEventWrite, planEventWrite, type EventInput } from './event-write.js'
import { notAnEvent } from './event.operations.js'

// Operations on one occurrence of a series (issue 19 item 3, docs/recurrence.md). Permissions and
// visibility are the series' (CONTRACT section 3): whoever may edit the series may change or
// delete its occurrences.

const DAY_MS = 86_400_000

const idArg = args.int({ required: true, description: 'Unique identifier of the series (the event).' })
const keyArg = args.shortText(20, {
  required: true,
  description: 'Occurrence key: its original start in UTC (20270105T090000Z, the RECURRENCE-ID), or its date (20270105) in an all-day series.',
})

/**
 * `DELETE /events/{id}/occurrences/{key}`: excludes one occurrence (an EXDATE is added to the
 * series, which is not trashed); answers the series. A key that is no occurrence of the series
 * now (already deleted, or the event is no series) is `404 rest-event-occurrence-not-found`;
 * deleting the last occurrence left is `400` on `recurrence` (delete the series instead).
 */
export function eventOccurrenceDeleteOperation() {
  return defineOperation({
    policy: { reads: EVENT_WRITE_READS, writes: EVENT_WRITES },
    args: { id: idArg, key: keyArg },
    async prepare(input, ctx) {
      return { ...(await locatePost(ctx, 'events', { id: input.id }, findEventRow)), key: input.key as string }
    },
    authorize: ({ row }, ctx) => authorizeSeriesEdit(row, ctx),
    async run({ id, row, key }, ctx) {
      if (!row) return notAnEvent(ctx, id)
      if (row.status === 'trash') throw new CalendarError('EVENT_IN_TRASH', 'The event is already trashed')
      await writeTransaction(ctx, async (trx) => {
        // Read again under a row lock: two deletes of different occurrences must both keep their EXDATE.
        await trx.selectFrom('events').select('id').where('id', '=', row.id).forUpdate().execute()
        const series = (await findEventRow(trx, row.id))!
        if (!(await occurrenceAt(series, key))) throw occurrenceNotFound(series.id, key)
        const plan = await planEventWrite(trx, { recurrence: withExdate(series.recurrence!, key, series.all_day) }, series, ctx)
        await applyEventWrite(trx, plan, series, ctx)
        // A changed occurrence goes with it: its own row and the kept (overridden) stored occurrence.
        await trx.deleteFrom('events').where('exception_of', '=', series.id).where('exception_key', '=', key).execute()
        await trx.deleteFrom('event_occurrences').where('series_id', '=', series.id).where('occurrence_key', '=', key).execute()
      })
      return { body: serializeEvent((await findEventRow(ctx.db, row.id))!, ctx) }
    },
  })
}

/** The event fields one occurrence may change; the rest (status, author, password, slug, rule) are the series'. */
const OVERRIDE_FIELDS = [
  'title', 'start_date', 'end_date', 'timezone', 'description', 'excerpt', 'image', 'cost', 'website',
  'show_map', 'show_map_link', 'featured', 'categories', 'tags', 'venue', 'organizer',
] as const

/** The declared arguments of a change of one occurrence (the fields of `OVERRIDE_FIELDS`). */
export function overrideArgs() {
  const all = eventWriteArgs(false)
  return Object.fromEntries(OVERRIDE_FIELDS.map((name) => [name, all[name]])) as Pick<typeof all, (typeof OVERRIDE_FIELDS)[number]>
}

/** The exception row of occurrence `key` of series `seriesId`, if one was written. */
async function exceptionRow(db: CallContext['db'] | Transaction<DB>, seriesId: number, key: string): Promise<EventRow | undefined> {
  const found = await findException(db, seriesId, key)
  return found ? findEventRow(db, found.id) : undefined
}

/** The series' own fields as an event write: what an exception or a split-off series starts from. */
async function seriesFields(trx: Transaction<DB>, series: EventRow): Promise<EventInput> {
  const terms = await trx
    .selectFrom('event_terms as et')
    .innerJoin('terms as t', 't.id', 'et.term_id')
    .select(['t.id', 't.taxonomy'])
    .where('et.event_id', '=', series.id)
    .execute()
  const organizers = await trx.selectFrom('event_organizers').select('organizer_id').where('event_id', '=', series.id).orderBy('position').execute()
  return {
    title: series.title,
    timezone: series.timezone,
    all_day: series.all_day,
    venue: series.venue_id ?? undefined,
    organizer: organizers.map((o) => o.organizer_id),
    categories: terms.filter((t) => t.taxonomy === 'category').map((t) => t.id),
    tags: terms.filter((t) => t.taxonomy === 'tag').map((t) => t.id),
    website: series.website ?? undefined,
    featured: series.featured,
    show_map: series.show_map,
    show_map_link: series.show_map_link,
  }
}

/**
 * Copies onto event `id`, as stored, what the write path would check or filter again: the
 * series' HTML, cost and image unless `input` changed them, and everything that makes its
 * visibility (status, author, password; the trigger of 0015 keeps an exception's equal later).
 */
async function copySeriesColumns(trx: Transaction<DB>, seriesId: number, id: number, input: EventInput): Promise<void> {
  await sql`
    update events x set
      description = case when ${input.description !== undefined} then x.description else s.description end,
      excerpt = case when ${input.excerpt !== undefined} then x.excerpt else s.excerpt end,
      cost_values = case when ${input.cost !== undefined} then x.cost_values else s.cost_values end,
      cost_symbol = case when ${input.cost !== undefined} then x.cost_symbol else s.cost_symbol end,
      cost_position = case when ${input.cost !== undefined} then x.cost_position else s.cost_position end,
      image_id = case when ${input.image !== undefined} then x.image_id else s.image_id end,
      status = s.status, author_id = s.author_id, password = s.password, hide_from_listings = s.hide_from_listings,
      language = s.language, date_utc = s.date_utc, date_floating = s.date_floating
    from events s where s.id = ${seriesId} and x.id = ${id}`.execute(trx)
}

/**
 * Keeps the stored occurrence `key` of series `seriesId`, which an exception now replaces,
 * overridden and hidden from lists; one past the stored horizon is stored now, so extending the
 * horizon does not list it.
 */
async function keepOverridden(trx: Transaction<DB>, seriesId: number, key: string, occurrence: NonNullable<Awaited<ReturnType<typeof occurrenceAt>>>): Promise<void> {
  const marked = await trx
    .updateTable('event_occurrences')
    .set({ overridden: true, hide_from_listings: true })
    .where('series_id', '=', seriesId)
    .where('occurrence_key', '=', key)
    .executeTakeFirst()
  if (Number(marked.numUpdatedRows) === 0) {
    await trx.insertInto('event_occurrences').values({ ...occurrence, overridden: true, hide_from_listings: true }).execute()
  }
}

/**
 * Writes the exception row of occurrence `key`: the series' fields, the occurrence's times, then
 * `input` on top. The stored occurrence is kept, overridden and hidden from lists, so the series'
 * rematerialisation keeps its place and never lists it twice.
 */
async function createException(trx: Transaction<DB>, series: EventRow, key: string, input: EventInput, ctx: CallContext): Promise<number> {
  const occurrence = await occurrenceAt(series, key)
  if (!occurrence) throw occurrenceNotFound(series.id, key)
  const base: EventInput = { ...(await seriesFields(trx, series)), start_date: occurrence.start_local, end_date: occurrence.end_local }
  const plan = await planEventWrite(trx, { ...base, ...input }, undefined, ctx)
  const id = await applyEventWrite(trx, plan, undefined, ctx)
  await copySeriesColumns(trx, series.id, id, input)
  await trx.updateTable('events').set({ exception_of: series.id, exception_key: key }).where('id', '=', id).execute()
  await keepOverridden(trx, series.id, key, occurrence)
  return id
}

/** The series a change of an occurrence names, the key, and only the fields sent (an absent one keeps the series' value). */
async function prepareChange(input: Record<string, unknown>, ctx: CallContext) {
  const { id: _id, key, ...declared } = input
  const fields = Object.fromEntries(Object.entries(declared).filter(([, v]) => v !== undefined)) as EventInput
  return { ...(await locatePost(ctx, 'events', { id: input.id as number }, findEventRow)), key: key as string, fields }
}

/** Who may edit the series may change its occurrences (CONTRACT section 3). */
function authorizeSeriesEdit(row: EventRow | undefined, ctx: CallContext): void {
  require(ctx.principal, row ? canEditItem(ctx.principal, row) : canEditType(ctx.principal))
}

/** A change of occurrence `key` needs a series out of the trash: an exception or single event has no occurrences (404). */
function requireSeries(row: EventRow, key: string): void {
  if (row.status === 'trash') throw new CalendarError('EVENT_IN_TRASH', 'The event is already trashed')
  if (row.exception_of !== null || !row.recurrence || row.recurrence.length === 0) throw occurrenceNotFound(row.id, key)
}

/**
 * `PATCH|PUT|POST /events/{id}/occurrences/{key}`: changes one occurrence only. The first change
 * writes an exception (an event row of its own that keeps the occurrence's key and place in the
 * series); later series edits leave it as it is, and lists show its values and filter on them.
 * Answers the occurrence. Permissions are the series'; a key that is no occurrence of the series
 * is `404 rest-event-occurrence-not-found`.
 */
export function eventOccurrenceUpdateOperation() {
  return defineOperation({
    policy: { reads: EVENT_WRITE_READS, writes: EVENT_WRITES },
    args: { id: idArg, key: keyArg, ...overrideArgs() },
    prepare: prepareChange,
    authorize: ({ row }, ctx) => authorizeSeriesEdit(row, ctx),
    async run({ id, row, key, fields }, ctx) {
      if (!row) return notAnEvent(ctx, id)
      requireSeries(row, key)
      const exceptionId = await writeTransaction(ctx, async (trx) => {
        // One exception per key, even when two changes of a new one race.
        await trx.selectFrom('events').select('id').where('id', '=', row.id).forUpdate().execute()
        const series = (await findEventRow(trx, row.id))!
        const existing = await exceptionRow(trx, series.id, key)
        if (!existing) return createException(trx, series, key, fields, ctx)
        const plan = await planEventWrite(trx, fields, existing, ctx)
        return applyEventWrite(trx, plan, existing, ctx)
      })
      return { body: serializeException((await findEventRow(ctx.db, exceptionId))!, ctx, { single: true, unlocked: true }) }
    },
  })
}

/** The declared arguments of "this and all following": an occurrence's fields, and the new series' `recurrence`. */
export function followingArgs() {
  return { ...overrideArgs(), recurrence: eventWriteArgs(false).recurrence }
}

/** What a split wrote: the series that now holds the chosen occurrence, and whether it is new. */
interface SplitResult {
  id: number
  created: boolean
}

/**
 * Moves the changed occurrences of `series` at or after `key` to the split-off series `newId`,
 * as they are, under the key of the same instance there (its original start moved by `shiftMs`
 * on the wall clock). The one at `key` itself also takes the split's change. One the new series
 * does not have (its rule was replaced) is dropped.
 */
async function moveExceptions(trx: Transaction<DB>, series: EventRow, newId: number, key: string, shiftMs: number, input: EventInput, ctx: CallContext, work: RuleWork): Promise<void> {
  const moving = await trx.selectFrom('events').select(['id', 'exception_key']).where('exception_of', '=', series.id).where('exception_key', '>=', key).execute()
  if (moving.length === 0) return
  const target = (await findEventRow(trx, newId))!
  for (const ex of moving) {
    const oldKey = ex.exception_key!
    await trx.deleteFrom('event_occurrences').where('series_id', '=', series.id).where('occurrence_key', '=', oldKey).execute()
    const was = await occurrenceAt(series, oldKey, work)
    const wall = was && epochMsToUtcWall(utcWallToEpochMs(was.start_local) + shiftMs)
    const newKey = wall && occurrenceKey(target.all_day ? wall : wallToUtc(wall, target.timezone), wall, target.all_day)
    const now = newKey ? await occurrenceAt(target, newKey, work) : undefined
    if (!now) {
      await trx.deleteFrom('events').where('id', '=', ex.id).execute()
      continue
    }
    if (oldKey === key) {
      const { recurrence: _rule, ...change } = input
      const row = (await findEventRow(trx, ex.id))!
      await applyEventWrite(trx, await planEventWrite(trx, change, row, ctx), row, ctx)
    }
    await trx.updateTable('events').set({ exception_of: newId, exception_key: now.occurrence_key }).where('id', '=', ex.id).execute()
    await keepOverridden(trx, newId, now.occurrence_key, now)
  }
}

/**
 * Splits series `seriesId` at occurrence `key` ("this and all following", docs/recurrence.md):
 * the series ends before it, and a new series starts there with the series' fields and `input`
 * on top, its recurrence adapted (`splitRecurrence`) unless `input` gives one, its lineage naming
 * the old (`split_from`). Changed occurrences from `key` on move with it. At the first occurrence
 * there is nothing to split: the whole series is edited.
 */
async function splitSeries(trx: Transaction<DB>, seriesId: number, key: string, input: EventInput, ctx: CallContext): Promise<SplitResult> {
  // Under a row lock, as every series write: a concurrent split or occurrence delete waits.
  await trx.selectFrom('events').select('id').where('id', '=', seriesId).forUpdate().execute()
  const series = (await findEventRow(trx, seriesId))!
  // One budget of rule work for the whole split (a rule stored before its bounds may be costly).
  const work = ruleWork()
  const occurrence = await occurrenceAt(series, key, work)
  if (!occurrence) throw occurrenceNotFound(series.id, key)
  const start: SeriesStart = { wall: wallFromDb(series.start_local), zone: series.timezone, allDay: series.all_day }
  const from = new Date(utcWallToEpochMs(wallFromDb(series.start_utc)) - 2 * DAY_MS)
  // The first occurrence only: sliced, the walk stops at it (one call from the start to the key
  // expanded every occurrence in between on the event loop: seconds for a daily series of decades).
  const [first] = await expandSliced(series.recurrence!, start, from, new Date(utcWallToEpochMs(occurrence.start_utc) + 2 * DAY_MS), 1, work)
  if (!first || first.wall >= occurrence.start_local) {
    await applyEventWrite(trx, await planEventWrite(trx, input, series, ctx), series, ctx)
    return { id: series.id, created: false }
  }
  const base: EventInput = { ...(await seriesFields(trx, series)), sticky: series.sticky, start_date: occurrence.start_local, end_date: occurrence.end_local }
  // Where the new series starts decides how far its dates move: plan its times first, without a rule.
  const times = await planEventWrite(trx, { ...base, ...input, recurrence: [] }, undefined, ctx)
  const shiftMs = utcWallToEpochMs(times.columns.start_local as string) - utcWallToEpochMs(occurrence.start_local)
  const lines = await splitRecurrence(series.recurrence!, start, { wall: occurrence.start_local, utc: occurrence.start_utc }, shiftMs, times.columns.timezone as string, work)
  const plan = await planEventWrite(trx, { ...base, ...input, recurrence: input.recurrence !== undefined ? input.recurrence : lines.after }, undefined, ctx)
  const ending = await planEventWrite(trx, { recurrence: lines.before }, series, ctx)
  const id = await applyEventWrite(trx, plan, undefined, ctx)
  await copySeriesColumns(trx, series.id, id, input)
  await trx.updateTable('events').set({ split_from: series.id }).where('id', '=', id).execute()
  // Before the old rule is cut: a rule edit drops the exceptions whose key it no longer has.
  await moveExceptions(trx, series, id, key, shiftMs, input, ctx, work)
  await applyEventWrite(trx, ending, series, ctx)
  return { id, created: true }
}

/**
 * `PATCH|PUT|POST /events/{id}/occurrences/{key}/following`: changes occurrence `key` and every
 * later one by splitting the series there (docs/recurrence.md). Answers the new series with 201
 * and its `Location`; at the first occurrence, the whole series is edited and answered with 200.
 * Permissions are the series'; a key that is no occurrence of the series is
 * `404 rest-event-occurrence-not-found`; a change that leaves the new series no occurrence is a
 * `400` on `recurrence`. Nothing is written on any refusal.
 */
export function eventOccurrenceSplitOperation() {
  return defineOperation({
    policy: { reads: EVENT_WRITE_READS, writes: EVENT_WRITES },
    args: { id: idArg, key: keyArg, ...followingArgs() },
    prepare: prepareChange,
    authorize: ({ row }, ctx) => authorizeSeriesEdit(row, ctx),
    async run({ id, row, key, fields }, ctx) {
      if (!row) return notAnEvent(ctx, id)
      requireSeries(row, key)
      const split = await writeTransaction(ctx, (trx) => splitSeries(trx, row.id, key, fields, ctx))
      const body = await answerCommitted(async () => serializeEvent((await findEventRow(ctx.db, split.id))!, ctx), () => ({ id: split.id }))
      return split.created ? { status: 201, headers: { Location: `${ctx.urls.rest}/events/${split.id}` }, body } : { body }
    },
  })
}
