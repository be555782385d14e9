import type { Kysely, Transaction } from 'kysely'
import { cleanPostHtml, cleanTitle } from '../posts/html.js'
import type { CallContext } from '../api/context.js'
import type { ParsedArgs } from '../api/operation.js'
import type { eventWriteArgs } from './event.args.js'
import { toList } from '../api/arg-kinds.js'
import type { DB } from '../db/generated.js'
import { invalidParam } from '../errors.js'
import { ORGANIZER, VENUE, type LinkedKind } from '../linked/kinds.js'
import { createLinked } from '../linked/linked.write.js'
import { parseCost } from '../shared/cost.js'
import { initialPostColumns, requestedDateUtc, updatedPostColumns } from '../posts/lifecycle.js'
import { isValidTimezone, storableWall, utcToWall, utcWallToEpochMs, wallToUtc, wallFromDb } from '../time/wall-time.js'
import { checkAuthor, checkImageValue, resolveImage, timeToWall } from '../posts/write-inputs.js'
import { resolveTermsForWrite, setEventTerms } from '../terms/term-links.js'
import { TAXONOMIES } from '../terms/taxonomies.js'
import { checkLinkRefs, type LinkRef } from './event-links-input.js'
import { parseRecurrence, type SeriesStart } from '../recurrence/recurrence.js'
import { verifyRecurrence } from '../recurrence/rule-work.js'
import { materialiseSeries, occurrenceAt, type SeriesRow } from '../recurrence/occurrences.js'
import { findEventIdByOrigin } from './event.repository.js'
import type { EventRow } from './event.serializer.js'

/** Parsed event write fields (from `eventWriteArgs`), plus `password` in variant B; internal writes name only what they change. */
export type EventInput = Partial<ParsedArgs<ReturnType<typeof eventWriteArgs>>> & { password?: string | null }

/** A checked event write: column values and link plans, nothing written yet. */
export interface EventWritePlan {
  columns: Record<string, unknown>
  /** Requested status (scaled back at write time), `undefined` = keep / default. */
  status: string | undefined
  dateUtc: string | undefined
  author: number | undefined
  title: string | undefined
  slug: string | undefined
  venue: LinkRef[] | undefined
  organizers: LinkRef[] | undefined
  categories: (string | number)[] | undefined
  tags: (string | number)[] | undefined
  image: ReturnType<typeof checkImageValue> | undefined
  /**
   * A rule to store, checked from its text only: `verifyEventPlan` runs the rule engine on it
   * after the permission check (issue 28), and `verified` says it did.
   */
  rule?: { lines: string[]; start: SeriesStart; verified: boolean }
}

function termItems(value: unknown): (string | number)[] | undefined {
  if (value === undefined) return undefined
  if (value === null || value === '') return []
  return toList(value) as (string | number)[]
}

/**
 * Validates an event write against CONTRACT 10 and the stored event (for updates), so that every
 * 400 of the declared arguments is raised before the permission check and before anything is
 * written; a rule's expansion is left to `verifyEventPlan`, after the permission check.
 */
export async function planEventWrite(
  db: Kysely<DB>,
  input: EventInput,
  existing: EventRow | undefined,
  ctx: CallContext,
): Promise<EventWritePlan> {
  const cols: Record<string, unknown> = {}
  let timezone = existing?.timezone ?? ctx.options.siteTimezone
  if (input.timezone !== undefined) {
    if (input.timezone !== '' && !isValidTimezone(input.timezone)) throw invalidParam('timezone')
    timezone = input.timezone === '' ? ctx.options.siteTimezone : input.timezone
  }
  // A new event stores the zone its wall times were read in: the site zone when none is given.
  if (input.timezone !== undefined || !existing) cols.timezone = timezone
  const allDay: boolean = input.all_day ?? existing?.all_day ?? false
  if (input.all_day !== undefined) cols.all_day = input.all_day
  let start = input.start_date !== undefined ? timeToWall(input.start_date, timezone, ctx.clock.now(), 'start_date') : existing && wallFromDb(existing.start_local)
  let end = input.end_date !== undefined ? timeToWall(input.end_date, timezone, ctx.clock.now(), 'end_date') : existing && wallFromDb(existing.end_local)
  if (start !== undefined && end !== undefined) {
    if (allDay) {
      start = `${start.slice(0, 10)} 00:00:00`
      end = `${end.slice(0, 10)} 23:59:59`
    }
    const startUtc = storableWall(() => wallToUtc(start!, timezone))
    const endUtc = storableWall(() => wallToUtc(end!, timezone))
    if (startUtc === null) throw invalidParam('start_date')
    if (endUtc === null) throw invalidParam('end_date')
    // A wall time inside a DST gap does not exist; it moves forward by the gap (02:30 -> 03:30), as
    // RFC 5545 and Temporal's 'compatible' read it, so the stored wall and UTC agree.
    start = utcToWall(startUtc, timezone)
    end = utcToWall(endUtc, timezone)
    // O-5: an end before the start is refused rather than silently moved.
    if (utcWallToEpochMs(endUtc) < utcWallToEpochMs(startUtc)) throw invalidParam('end_date', 'The end date is before the start date.')
    Object.assign(cols, { start_local: start, end_local: end, start_utc: startUtc, end_utc: endUtc })
  }
  // A series is checked against its start, zone and all-day flag, so a write that moves the start
  // past UNTIL is refused as well as a bad rule.
  // Only the text is checked here, before the permission check (CONTRACT: declared arguments first);
  // expanding the rule waits for `verifyEventPlan`, so that no caller without the right to write
  // reaches the engine (issue 28).
  const recurrence = input.recurrence === undefined ? existing?.recurrence ?? null : input.recurrence
  let rule: EventWritePlan['rule']
  if (input.recurrence !== undefined && (recurrence === null || recurrence.length === 0)) cols.recurrence = null
  else if (recurrence !== null && recurrence.length > 0 && start !== undefined) {
    const seriesStart: SeriesStart = { wall: start, zone: timezone, allDay }
    const checked = parseRecurrence(recurrence, seriesStart)
    if (input.recurrence !== undefined || 'start_local' in cols || 'timezone' in cols || 'all_day' in cols) {
      cols.recurrence = checked
      rule = { lines: checked, start: seriesStart, verified: false }
    }
  }
  // An event's `date` is read in its own zone, not the site's.
  const dateUtc = requestedDateUtc(input, timezone, ctx.clock.now())
  await checkAuthor(db, input.author)
  for (const field of ['show_map', 'show_map_link', 'hide_from_listings', 'sticky', 'featured'] as const) {
    if (input[field] !== undefined) cols[field] = input[field]
  }
  // Issue 15 item 9: HTML reduced to the documented allow-list unless the caller keeps unfiltered HTML.
  const policy = ctx.options.unfilteredHtml
  for (const field of ['description', 'excerpt'] as const) {
    if (typeof input[field] === 'string') cols[field] = cleanPostHtml(input[field], ctx.principal, policy)
  }
  const title = typeof input.title === 'string' ? cleanTitle(input.title, ctx.principal, policy) : undefined
  if (title !== undefined && title.trim() === '') throw invalidParam('title', 'The title has no text once its markup is cleaned.')
  const cleanTerms = (items: (string | number)[] | undefined) =>
    items?.map((item) => (typeof item === 'string' ? cleanTitle(item, ctx.principal, policy) : item)).filter((item) => item !== '')
  if (input.website !== undefined) cols.website = input.website
  if (input.cost !== undefined) {
    const parts = input.cost === null || input.cost === '' ? { values: [], symbol: '', position: '' } : parseCost(
      Array.isArray(input.cost) ? input.cost.map(String) : String(input.cost),
    )
    Object.assign(cols, { cost_values: parts.values, cost_symbol: parts.symbol, cost_position: parts.position })
  }
  if (input.password !== undefined) cols.password = input.password === null || input.password === '' ? null : input.password
  if (input.origin_uid !== undefined) cols.origin_uid = await checkOriginUid(db, input.origin_uid, existing, ctx)
  const image = input.image === undefined ? undefined : checkImageValue(input.image)
  if (image && 'id' in image) {
    const found = await db.selectFrom('images').select('id').where('id', '=', image.id).executeTakeFirst()
    if (!found) throw invalidParam('image')
  }
  return {
    columns: cols,
    status: input.status,
    dateUtc,
    author: input.author,
    title,
    slug: input.slug,
    venue: input.venue === undefined ? undefined : await checkLinkRefs(db, VENUE, input.venue, ctx.principal),
    organizers: input.organizer === undefined ? undefined : await checkLinkRefs(db, ORGANIZER, input.organizer, ctx.principal),
    categories: cleanTerms(termItems(input.categories)),
    tags: cleanTerms(termItems(input.tags)),
    image,
    rule,
  }
}

/**
 * Runs the costly checks of a plan, after the permission check and before anything is written:
 * the rule engine on a rule to store (`verifyRecurrence`: sliced, bounded; a 400 on
 * `recurrence`). Once per plan; `applyEventWrite` runs it when the caller did not.
 */
export async function verifyEventPlan(plan: EventWritePlan): Promise<void> {
  if (!plan.rule || plan.rule.verified) return
  await verifyRecurrence(plan.rule.lines, plan.rule.start)
  plan.rule.verified = true
}

/** `origin_uid` to store: `null` clears; another event of the language holding it is a 400. */
async function checkOriginUid(db: Kysely<DB>, value: string | null, existing: EventRow | undefined, ctx: CallContext): Promise<string | null> {
  if (value === null || value === '') return null
  const holder = await findEventIdByOrigin(db, value, existing?.language ?? ctx.language)
  if (holder !== undefined && holder !== existing?.id) throw originTaken()
  return value
}

function rethrowOriginConflict(err: unknown): never {
  throw isOriginConflict(err) ? originTaken() : err
}

function originTaken() {
  return invalidParam('origin_uid', 'Another event already has this origin_uid.')
}

/** A concurrent write took the origin id between the check and the write: the same 400. */
function isOriginConflict(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown } | null
  return typeof e === 'object' && e !== null && e.code === '23505' && e.constraint === 'events_origin_uid'
}

async function linkIds(trx: Transaction<DB>, kind: LinkedKind, refs: LinkRef[], ctx: CallContext): Promise<number[]> {
  const ids: number[] = []
  for (const ref of refs) ids.push('id' in ref ? ref.id : (await createLinked(trx, kind, ref.create, ctx)).id)
  return [...new Set(ids)]
}

/** Writes a checked plan: creates or updates the event and its links in the caller's transaction. */
export async function applyEventWrite(
  trx: Transaction<DB>,
  plan: EventWritePlan,
  existing: EventRow | undefined,
  ctx: CallContext,
): Promise<number> {
  await verifyEventPlan(plan)
  const cols: Record<string, unknown> = { ...plan.columns }
  if (plan.venue !== undefined) cols.venue_id = (await linkIds(trx, VENUE, plan.venue, ctx))[0] ?? null
  const organizerIds = plan.organizers === undefined ? undefined : await linkIds(trx, ORGANIZER, plan.organizers, ctx)
  if (plan.image !== undefined) cols.image_id = await resolveImage(trx, plan.image)
  if (plan.title !== undefined) cols.title = plan.title.trim()
  const title = (cols.title as string | undefined) ?? existing?.title ?? ''
  const language = existing?.language ?? ctx.language
  const lifecycle = { status: plan.status, dateUtc: plan.dateUtc, author: plan.author, slug: plan.slug }
  let id: number
  if (existing) {
    id = existing.id
    const post = await updatedPostColumns(trx, 'events', existing, title, lifecycle, ctx)
    await trx.updateTable('events').set({ ...cols, ...post }).where('id', '=', id).execute().catch(rethrowOriginConflict)
  } else {
    const post = await initialPostColumns(trx, 'events', title, lifecycle, ctx)
    const row = await trx
      .insertInto('events')
      .values({ ...(cols as any), ...post })
      .returning('id')
      .executeTakeFirstOrThrow()
      .catch(rethrowOriginConflict)
    id = row.id
  }
  if (organizerIds !== undefined) {
    await trx.deleteFrom('event_organizers').where('event_id', '=', id).execute()
    if (organizerIds.length > 0) {
      await trx.insertInto('event_organizers').values(organizerIds.map((organizer_id, position) => ({ event_id: id, organizer_id, position }))).execute()
    }
  }
  for (const taxonomy of TAXONOMIES) {
    const items = plan[taxonomy.plural]
    if (items !== undefined) await setEventTerms(trx, id, taxonomy, await resolveTermsForWrite(trx, taxonomy, items, language))
  }
  if (changesOccurrences(plan.columns, existing)) await materialiseSeries(trx, id, ctx.clock.now())
  if (existing && changesRuleOnly(plan.columns, existing)) await dropExceptionsOutsideRule(trx, id)
  return id
}

/**
 * Whether a write changes when a series occurs (or makes a series or a single event of it), so its
 * stored occurrences are written anew. Its other list columns follow by migration 0012's trigger.
 */
function changesOccurrences(cols: Record<string, unknown>, existing: EventRow | undefined): boolean {
  if ('recurrence' in cols) return true
  if (!existing?.recurrence || existing.recurrence.length === 0) return false
  const stored: Record<string, unknown> = {
    start_local: wallFromDb(existing.start_local),
    end_local: wallFromDb(existing.end_local),
    timezone: existing.timezone,
    all_day: existing.all_day,
  }
  return Object.keys(stored).some((k) => k in cols && cols[k] !== stored[k])
}

/**
 * After a write that changes a series' rule but not its times: its changed occurrences
 * (exceptions, migration 0015) whose key the rule no longer has (an EXDATE, a shorter COUNT or
 * UNTIL, no rule) are deleted with their kept occurrence row. A move of the whole series keeps
 * them where they are, as RFC 5545 overrides (docs/recurrence.md).
 */
async function dropExceptionsOutsideRule(trx: Transaction<DB>, seriesId: number): Promise<void> {
  const exceptions = await trx.selectFrom('events').select(['id', 'exception_key']).where('exception_of', '=', seriesId).execute()
  if (exceptions.length === 0) return
  const series = (await trx.selectFrom('events').selectAll().where('id', '=', seriesId).executeTakeFirst()) as unknown as SeriesRow
  for (const ex of exceptions) {
    if (occurrenceAt(series, ex.exception_key!)) continue
    await trx.deleteFrom('events').where('id', '=', ex.id).execute()
    await trx.deleteFrom('event_occurrences').where('series_id', '=', seriesId).where('occurrence_key', '=', ex.exception_key!).execute()
  }
}

/** Whether a write changes a series' rule lines and leaves its start, zone and all-day flag. */
function changesRuleOnly(cols: Record<string, unknown>, existing: EventRow): boolean {
  if (!('recurrence' in cols) || JSON.stringify(cols.recurrence) === JSON.stringify(existing.recurrence)) return false
  const stored: Record<string, unknown> = { start_local: wallFromDb(existing.start_local), timezone: existing.timezone, all_day: existing.all_day }
  return !Object.keys(stored).some((k) => k in cols && cols[k] !== stored[k])
}
