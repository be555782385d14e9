import type { Kysely, Transaction } from 'kysely'
import { cleanPostHtml, cleanTitle } from '../posts/html.js'
import type { CallContext } from '../api/context.js'
import type { ParsedArgs } from '../api/operation.js'
import type { eventWriteArgs } from './event.args.js'
import { toList } from '../api/arg-kinds.js'
import type { DB } from '../db/generated.js'
import { CalendarError, invalidParam } from '../errors.js'
import { ORGANIZER, VENUE, type LinkedKind } from '../linked/kinds.js'
import { createLinked } from '../linked/linked.write.js'
import { parseCost } from '../shared/cost.js'
import { initialPostDraft, requestedDateUtc, updatedPostColumns } from '../posts/lifecycle.js'
import { isValidTimezone, storableWall, utcToWall, utcWallToEpochMs, wallToUtc, wallFromDb } from '../time/wall-time.js'
import { checkImageValue, resolveImage, timeToWall } from '../posts/write-inputs.js'
import { answerLookups, originKey, WriteLookups, type LookupAnswers } from '../posts/write-lookups.js'
import { resolveTermNames, splitTermItems } from '../terms/term-links.js'
import { TAXONOMIES } from '../terms/taxonomies.js'
import { checkLinkRefs, parseLinkRefs, type LinkRef } from './event-links-input.js'
import { lockSlug } from '../posts/slug-store.js'
import { insertEventStatement, updateEventStatement, type EventLinkWrites } from './event-store.js'
import { materialiseSeries, occurrenceAt, parseRecurrence, ruleWork, verifyRecurrence, type Occurrence, type SeriesRow, type SeriesStart } from '../recurrence/index.js'
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
  rule?: { lines: string[]; start: SeriesStart; verified: boolean; occurrences?: Occurrence[] }
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
  const needs = new WriteLookups()
  const finish = draftEventWrite(input, existing, ctx, needs)
  // Nothing registered: the answers come back empty without a statement.
  return finish(await answerLookups(db, needs, ctx.principal))
}

/**
 * `planEventWrite` in two steps, so that a batch of writes asks its existence checks in one
 * statement (`event-import.ts`): the checks that need no database, registering the others in
 * `needs`; then, given the answers, the plan.
 */
export function draftEventWrite(
  input: EventInput,
  existing: EventRow | undefined,
  ctx: CallContext,
  needs: WriteLookups,
): (found: LookupAnswers) => EventWritePlan {
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
  // Existence checks are registered here and asked in one statement (issue 33).
  if (input.author !== undefined) needs.users.add(input.author)
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
  const originLanguage = existing?.language ?? ctx.language
  const origin = input.origin_uid === undefined ? undefined : input.origin_uid === null || input.origin_uid === '' ? null : input.origin_uid
  if (origin) needs.origin(originLanguage, origin)
  const image = input.image === undefined ? undefined : checkImageValue(input.image)
  if (image && 'id' in image) needs.images.add(image.id)
  const venue = input.venue === undefined ? undefined : parseLinkRefs(VENUE, input.venue, needs)
  const organizers = input.organizer === undefined ? undefined : parseLinkRefs(ORGANIZER, input.organizer, needs)
  return (found) => {
    if (input.author !== undefined && !found.users.has(input.author)) throw invalidParam('author')
    if (origin !== undefined) {
      // `null` clears; another event of the language holding it is a 400.
      const holder = origin === null ? undefined : found.origins.get(originKey(originLanguage, origin))
      if (holder !== undefined && holder !== existing?.id) throw originTaken()
      cols.origin_uid = origin
    }
    if (image && 'id' in image && !found.images.has(image.id)) throw invalidParam('image')
    return {
      columns: cols,
      status: input.status,
      dateUtc,
      author: input.author,
      title,
      slug: input.slug,
      venue: venue && checkLinkRefs(venue, found),
      organizers: organizers && checkLinkRefs(organizers, found),
      categories: cleanTerms(termItems(input.categories)),
      tags: cleanTerms(termItems(input.tags)),
      image,
      rule,
    }
  }
}

/** Every `author` a write names: the event's and those of inline venues/organizers. */
export function plannedAuthors(plan: EventWritePlan): (number | undefined)[] {
  const inline = [...(plan.venue ?? []), ...(plan.organizers ?? [])].map((ref) => ('create' in ref ? (ref.create.author as number | undefined) : undefined))
  return [plan.author, ...inline]
}

/**
 * Runs the costly checks of a plan, after the permission check and before anything is written:
 * the rule engine on a rule to store (`verifyRecurrence`: sliced, bounded; a 400 on
 * `recurrence`). Once per plan; `applyEventWrite` runs it when the caller did not.
 */
export async function verifyEventPlan(plan: EventWritePlan): Promise<void> {
  if (!plan.rule || plan.rule.verified) return
  plan.rule.occurrences = await verifyRecurrence(plan.rule.lines, plan.rule.start)
  plan.rule.verified = true
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
  const organizers = plan.organizers === undefined ? undefined : await linkIds(trx, ORGANIZER, plan.organizers, ctx)
  // An image id was checked with the plan; a URL is registered (one statement).
  if (plan.image !== undefined) cols.image_id = 'id' in plan.image ? plan.image.id : await resolveImage(trx, plan.image)
  if (plan.title !== undefined) cols.title = plan.title.trim()
  const title = (cols.title as string | undefined) ?? existing?.title ?? ''
  const language = existing?.language ?? ctx.language
  const terms = await termLinks(trx, plan, language)
  const lifecycle = { status: plan.status, dateUtc: plan.dateUtc, author: plan.author, slug: plan.slug }
  let id: number
  if (existing) {
    id = existing.id
    const row = { ...cols, ...(await updatedPostColumns(trx, 'events', existing, title, lifecycle, ctx)) }
    // Term counts follow an event's status by triggers that read its links when the statement
    // ends: a status change and new links in one statement would count the new links twice.
    const apart = 'status' in row && terms.length > 0
    await updateEventStatement(trx, id, row, { organizers, terms: apart ? [] : terms }).catch(rethrowOriginConflict)
    if (apart) await updateEventStatement(trx, id, {}, { terms })
  } else {
    const { columns: post, slugToMakeUnique } = initialPostDraft('events', title, lifecycle, ctx)
    const row = { ...cols, ...post }
    for (let attempt = 1; ; attempt++) {
      // Past a first clash, writers of one slug queue as `uniqueSlug` makes them (the lock is held
      // to COMMIT, so the next one's statement sees the slug taken); the first try takes no lock.
      if (attempt > 1 && slugToMakeUnique) await lockSlug(trx, 'events', post.slug, language)
      const inserted = await insertEventStatement(trx, row, slugToMakeUnique ? post.slug : undefined, language, { organizers, terms }).catch(rethrowOriginConflict)
      if (inserted !== undefined) {
        id = inserted
        break
      }
      // Another write took the slug after this statement's snapshot; the next one sees it.
      if (attempt >= SLUG_ATTEMPTS) throw new CalendarError('DATABASE_UNAVAILABLE', 'The database is busy; try again shortly.')
    }
  }
  if (changesOccurrences(plan.columns, existing)) await materialiseSeries(trx, id, ctx.clock.now())
  if (existing && changesRuleOnly(plan.columns, existing)) await dropExceptionsOutsideRule(trx, id)
  return id
}

/** How often a create's insert runs when concurrent writes keep taking its slug first. */
const SLUG_ATTEMPTS = 20

/** Term ids per taxonomy a plan names: ids as given (unknown ones skip at insert), names resolved. */
async function termLinks(trx: Transaction<DB>, plan: EventWritePlan, language: string): Promise<EventLinkWrites['terms']> {
  const out: { taxonomy: string; ids: number[] }[] = []
  for (const taxonomy of TAXONOMIES) {
    const items = plan[taxonomy.plural]
    if (items === undefined) continue
    const { ids, names } = splitTermItems(taxonomy, items)
    out.push({ taxonomy: taxonomy.name, ids: [...new Set([...ids, ...(await resolveTermNames(trx, taxonomy, names, language))])] })
  }
  return out
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
  // One budget of rule work for the write, however many exceptions.
  const work = ruleWork()
  for (const ex of exceptions) {
    if (await occurrenceAt(series, ex.exception_key!, work)) continue
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
