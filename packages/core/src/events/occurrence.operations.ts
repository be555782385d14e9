import { sql, type Transaction } from 'kysely'
import { args } from '../api/arg-kinds.js'
import type { CallContext } from '../api/context.js'
import { defineOperation } from '../api/operation.js'
import { writeTransaction } from '../api/write.js'
import { canEditItem, canEditType, require } from '../auth/permissions.js'
import type { DB } from '../db/generated.js'
import { CalendarError } from '../errors.js'
import { occurrenceNotFound, withExdate } from '../recurrence/exceptions.js'
import { occurrenceAt } from '../recurrence/occurrences.js'
import { locatePost } from '../shared/locate.js'
import { eventWriteArgs } from './event.args.js'
import { findEventRow } from './event.repository.js'
import { serializeEvent, serializeException, type EventRow } from './event.serializer.js'
import { applyEventWrite, planEventWrite, type EventInput } from './event-write.js'
import { notAnEvent } from './event.operations.js'

// Operations on one occurrence of a series (issue 19 item 3, docs/recurrence.md). Permissions and
// visibility are the series' (CONTRACT section 3): whoever may edit the series may change or
// delete its occurrences.

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
    args: { id: idArg, key: keyArg },
    async prepare(input, ctx) {
      return { ...(await locatePost(ctx, 'events', { id: input.id as number }, findEventRow)), key: input.key as string }
    },
    authorize({ row }, ctx) {
      require(ctx.principal, row ? canEditItem(ctx.principal, row) : canEditType(ctx.principal))
    },
    async run({ id, row, key }, ctx) {
      if (!row) return notAnEvent(ctx, id)
      if (row.status === 'trash') throw new CalendarError('EVENT_IN_TRASH', 'The event is already trashed')
      await writeTransaction(ctx, async (trx) => {
        // Read again under a row lock: two deletes of different occurrences must both keep their EXDATE.
        await trx.selectFrom('events').select('id').where('id', '=', row.id).forUpdate().execute()
        const series = (await findEventRow(trx, row.id))!
        if (!occurrenceAt(series, key)) throw occurrenceNotFound(series.id, key)
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
async function findException(db: CallContext['db'] | Transaction<DB>, seriesId: number, key: string): Promise<EventRow | undefined> {
  const found = await db.selectFrom('events').select('id').where('exception_of', '=', seriesId).where('exception_key', '=', key).executeTakeFirst()
  return found ? findEventRow(db, found.id) : undefined
}

/**
 * Writes the exception row of occurrence `key`: the series' fields, the occurrence's times, then
 * `input` on top. The stored occurrence is kept, overridden and hidden from lists, so the series'
 * rematerialisation keeps its place and never lists it twice.
 */
async function createException(trx: Transaction<DB>, series: EventRow, key: string, input: EventInput, ctx: CallContext): Promise<number> {
  const occurrence = occurrenceAt(series, key)
  if (!occurrence) throw occurrenceNotFound(series.id, key)
  const terms = await trx
    .selectFrom('event_terms as et')
    .innerJoin('terms as t', 't.id', 'et.term_id')
    .select(['t.id', 't.taxonomy'])
    .where('et.event_id', '=', series.id)
    .execute()
  const organizers = await trx.selectFrom('event_organizers').select('organizer_id').where('event_id', '=', series.id).orderBy('position').execute()
  const base: EventInput = {
    title: series.title,
    start_date: occurrence.start_local,
    end_date: occurrence.end_local,
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
  const plan = await planEventWrite(trx, { ...base, ...input }, undefined, ctx)
  const id = await applyEventWrite(trx, plan, undefined, ctx)
  // What the write path would check or filter again is copied as stored: the series' HTML,
  // cost, image, and everything that makes its visibility (the trigger of 0015 keeps that).
  await sql`
    update events x set
      description = case when ${input.description !== undefined} then x.description else s.description end,
      excerpt = case when ${input.excerpt !== undefined} then x.excerpt else s.excerpt end,
      cost_values = case when ${input.cost !== undefined} then x.cost_values else s.cost_values end,
      cost_symbol = case when ${input.cost !== undefined} then x.cost_symbol else s.cost_symbol end,
      cost_position = case when ${input.cost !== undefined} then x.cost_position else s.cost_position end,
      image_id = case when ${input.image !== undefined} then x.image_id else s.image_id end,
      status = s.status, author_id = s.author_id, password = s.password, hide_from_listings = s.hide_from_listings,
      language = s.language, date_utc = s.date_utc, date_floating = s.date_floating,
      exception_of = s.id, exception_key = ${key}
    from events s where s.id = ${series.id} and x.id = ${id}`.execute(trx)
  const marked = await trx
    .updateTable('event_occurrences')
    .set({ overridden: true, hide_from_listings: true })
    .where('series_id', '=', series.id)
    .where('occurrence_key', '=', key)
    .executeTakeFirst()
  if (Number(marked.numUpdatedRows) === 0) {
    // Past the stored horizon: store it now, so extending the horizon does not list it.
    await trx.insertInto('event_occurrences').values({ ...occurrence, overridden: true, hide_from_listings: true } as any).execute()
  }
  return id
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
    args: { id: idArg, key: keyArg, ...overrideArgs() },
    async prepare(input, ctx) {
      const { id: _id, key, ...declared } = input as Record<string, unknown>
      // Only the fields sent: an absent one keeps the series' value.
      const fields = Object.fromEntries(Object.entries(declared).filter(([, v]) => v !== undefined)) as EventInput
      return { ...(await locatePost(ctx, 'events', { id: input.id as number }, findEventRow)), key: key as string, fields }
    },
    authorize({ row }, ctx) {
      require(ctx.principal, row ? canEditItem(ctx.principal, row) : canEditType(ctx.principal))
    },
    async run({ id, row, key, fields }, ctx) {
      if (!row) return notAnEvent(ctx, id)
      if (row.status === 'trash') throw new CalendarError('EVENT_IN_TRASH', 'The event is already trashed')
      if (row.exception_of !== null || !row.recurrence || row.recurrence.length === 0) throw occurrenceNotFound(row.id, key)
      const exceptionId = await ctx.db.transaction().execute(async (trx) => {
        // One exception per key, even when two changes of a new one race.
        await trx.selectFrom('events').select('id').where('id', '=', row.id).forUpdate().execute()
        const series = (await findEventRow(trx, row.id))!
        const existing = await findException(trx, series.id, key)
        if (!existing) return createException(trx, series, key, fields, ctx)
        const plan = await planEventWrite(trx, fields, existing, ctx)
        return applyEventWrite(trx, plan, existing, ctx)
      })
      return { body: serializeException((await findEventRow(ctx.db, exceptionId))!, ctx, { single: true, unlocked: true }) }
    },
  })
}
