import { timingSafeEqual } from 'node:crypto'
import type { CallContext } from '../api/context.js'
import { args } from '../api/arg-kinds.js'
import { defineOperation, type OperationResult } from '../api/operation.js'
import type { GuessLimitName, OperationPolicy } from '../api/policy.js'
import { answerCommitted, writeTransaction } from '../api/write.js'
import { canAssignAuthor, canEditItem, canEditType, canReadItem, require } from '../auth/permissions.js'
import type { VariantConfig } from '../config/variants.js'
import type { ResolvedOptions } from '../config/options.js'
import { createGuessLimiter, type GuessLimiter } from '../auth/guess-limiter.js'
import { CalendarError, invalidParam } from '../errors.js'
import { trashPost } from '../posts/lifecycle.js'
import { utcWall } from '../time/wall-time.js'
import { locatePost } from '../posts/locate.js'
import { eventWriteArgs } from './event.args.js'
import { EVENT_READS, EVENT_WRITE_READS, EVENT_WRITES } from './event-resources.js'
import { findEventIdByOrigin, findEventRow, postTypeOf } from './event.repository.js'
import { serializeEvent, serializeException, serializeOccurrence, type EventRow } from './event.serializer.js'
import { findException, occurrenceAt } from '../recurrence/index.js'
import { applyEventWrite, planEventWrite, plannedAuthors, verifyEventPlan, type EventInput, type EventWritePlan } from './event-write.js'

/** How a by-id or by-slug route names its event. */
type Locator = 'id' | 'slug'

const idArg = args.int({ required: true, description: 'Unique identifier for the event.' })
const slugArg = args.nestr({ required: true, description: 'Slug of the event.' })
// A guess is counted per client and event: a request that sends one is never answered from the cache.
const passwordArg = args.nestr({ description: "The event's password.", policy: { cache: 'uncached' } })

/** The parameters that name one event: `id` or `slug`, and `password` where variant B reads one. */
type LocatorArgs = {
  id?: typeof idArg
  slug?: typeof slugArg
  password?: typeof passwordArg
}

function locatorArgs(locator: Locator, variant: VariantConfig, withPassword: boolean): LocatorArgs {
  const declared: LocatorArgs = locator === 'id' ? { id: idArg } : { slug: slugArg }
  if (withPassword && variant.passwordParam) declared.password = passwordArg
  return declared
}

/** Throws the by-id answer for an id that is not an event (CONTRACT 9.1). */
export async function notAnEvent(ctx: CallContext, id: number): Promise<never> {
  const type = id > 0 ? await postTypeOf(ctx.db, id) : undefined
  if (type && type !== 'event') throw new CalendarError('INVALID_EVENT_ID', `The ID ${id} is not the ID of an event.`)
  throw new CalendarError('EVENT_NOT_FOUND', `Event with ID ${id} does not exist.`)
}

/** Finds the event a request names: by id (row undefined when absent), or by slug. */
function locate(ctx: CallContext, input: { id?: number; slug?: string }): Promise<{ id: number; row: EventRow | undefined }> {
  return locatePost(ctx, 'events', input, findEventRow)
}

function samePassword(given: unknown, actual: string): boolean {
  if (typeof given !== 'string') return false
  const a = Buffer.from(given)
  const b = Buffer.from(actual)
  return a.length === b.length && timingSafeEqual(a, b)
}

const limiters = new WeakMap<ResolvedOptions, Map<GuessLimitName, GuessLimiter>>()

/**
 * An event read: what it reads, and the rate limit a wrong password counts against (the options'
 * `passwordGuesses`, which `checkPassword` reads from here).
 */
const READ_POLICY = { reads: EVENT_READS, writes: [], guesses: 'passwordGuesses' } as const satisfies OperationPolicy

/**
 * Throws unless `given` is the event's password. Wrong guesses are counted per event and client
 * (bounded memory); once a client used up its window, every guess is a 429 without a comparison,
 * the right one included, so guessing costs the window's length per few tries.
 */
function checkPassword(ctx: CallContext, eventId: number, actual: string, given: unknown, limit: GuessLimitName = READ_POLICY.guesses): void {
  const protectedError = () => new CalendarError('EVENT_PASSWORD_PROTECTED', 'The requested event is password protected')
  // Reading without a password is no guess: it only learns that the event is protected.
  if (given === undefined) throw protectedError()
  let byLimit = limiters.get(ctx.options)
  if (!byLimit) limiters.set(ctx.options, (byLimit = new Map<GuessLimitName, GuessLimiter>()))
  let limiter = byLimit.get(limit)
  if (!limiter) byLimit.set(limit, (limiter = createGuessLimiter(ctx.options[limit])))
  const key = `${eventId} ${ctx.client}`
  const nowMs = ctx.clock.now().getTime()
  limiter.check(key, nowMs)
  if (samePassword(given, actual)) return
  limiter.fail(key, nowMs)
  throw protectedError()
}

/** GET of one event by id or slug (CONTRACT 9). */
export function eventReadOperation(locator: Locator, variant: VariantConfig) {
  return defineOperation({
    policy: READ_POLICY,
    // The reference honours `password` on by-slug reads although it does not declare it.
    args: { ...locatorArgs(locator, variant, true), ...(variant.passwordParam ? { password: passwordArg } : {}) },
    async prepare(input, ctx) {
      const found = await locate(ctx, input)
      if (locator === 'slug' && !found.row) throw invalidParam('slug')
      return { ...found, password: input.password }
    },
    async run({ id, row, password }, ctx) {
      if (!row) return notAnEvent(ctx, id)
      checkReadable(ctx, row, password)
      return { body: serializeEvent(row, ctx, { single: true, unlocked: true }) }
    },
  })
}

/** Whether the caller may read `row` (trash, status, password), throwing the single read's answer when not. */
function checkReadable(ctx: CallContext, row: EventRow, password: unknown): void {
  if (row.status === 'trash') throw new CalendarError('EVENT_NO_LONGER_AVAILABLE', 'This event is no longer available')
  if (!canReadItem(ctx.principal, row)) throw new CalendarError('EVENT_NOT_ACCESSIBLE', 'The requested event is not accessible')
  if (row.password && !canEditItem(ctx.principal, row)) checkPassword(ctx, row.id, row.password, password)
}

/**
 * `GET /events/{id}/occurrences/{key}`: one occurrence of a series, with the series' permissions
 * and visibility; a key that is no occurrence of the series (or an event that is no series) is
 * `404 rest-event-occurrence-not-found` (docs/recurrence.md).
 */
export function eventOccurrenceReadOperation(variant: VariantConfig) {
  return defineOperation({
    policy: READ_POLICY,
    args: {
      id: idArg,
      key: args.shortText(20, { required: true, description: 'Occurrence key: its original start in UTC (20270105T090000Z), or its date (20270105) in an all-day series.' }),
      ...(variant.passwordParam ? { password: passwordArg } : {}),
    },
    async prepare(input, ctx) {
      return { ...(await locate(ctx, { id: input.id })), key: input.key as string, password: input.password }
    },
    async run({ id, row, key, password }, ctx) {
      if (!row) return notAnEvent(ctx, id)
      checkReadable(ctx, row, password)
      // A changed occurrence answers with its own values (migration 0015).
      const exception = await findException(ctx.db, row.id, key)
      if (exception) return { body: serializeException((await findEventRow(ctx.db, exception.id))!, ctx, { single: true, unlocked: true }) }
      const stored = await ctx.db
        .selectFrom('event_occurrences')
        .select(['occurrence_key', 'start_local', 'end_local', 'start_utc', 'end_utc'])
        .where('series_id', '=', row.id)
        .where('occurrence_key', '=', key)
        .executeTakeFirst()
      const found = stored ?? (await occurrenceAt(row, key))
      if (!found) throw new CalendarError('EVENT_OCCURRENCE_NOT_FOUND', `Event ${row.id} has no occurrence ${key}.`)
      const occurrence = {
        occurrence_key: found.occurrence_key,
        occurrence_start_local: found.start_local,
        occurrence_end_local: found.end_local,
        occurrence_start_utc: found.start_utc,
        occurrence_end_utc: found.end_utc,
      }
      return { body: serializeOccurrence({ ...row, ...occurrence }, ctx, { single: true, unlocked: true }) }
    },
  })
}

/**
 * Script API only (no route): the event imported from an origin id (`origin_uid`) in the active
 * language, or `undefined` when there is none or the caller may not see it. Trashed events are
 * returned to callers who may edit them (an importer must not recreate what was deleted), and
 * password-protected ones only to callers who may edit them.
 */
export function eventByOriginOperation() {
  return defineOperation({
    policy: { reads: EVENT_READS, writes: [] },
    args: { origin_uid: args.shortText(1000, { required: true, description: 'Origin id of the event.' }) },
    async run(input, ctx) {
      const id = await findEventIdByOrigin(ctx.db, input.origin_uid!, ctx.language)
      const row = id === undefined ? undefined : await findEventRow(ctx.db, id)
      if (!row) return { body: undefined }
      const editable = canEditItem(ctx.principal, row)
      const visible = row.status === 'trash' || row.password ? editable : canReadItem(ctx.principal, row)
      return { body: visible ? serializeEvent(row, ctx, { single: true, unlocked: true }) : undefined }
    },
  })
}

/** DELETE of one event: moves it to the trash (CONTRACT 13). */
export function eventDeleteOperation(locator: Locator, variant: VariantConfig) {
  return defineOperation({
    policy: { reads: EVENT_WRITE_READS, writes: EVENT_WRITES },
    args: locatorArgs(locator, variant, true),
    async prepare(input, ctx) {
      const found = await locate(ctx, input)
      if (locator === 'slug' && !found.row) throw invalidParam('slug')
      return found
    },
    authorize({ row }, ctx) {
      require(ctx.principal, row ? canEditItem(ctx.principal, row) : canEditType(ctx.principal))
    },
    async run({ id, row }, ctx) {
      if (!row) return notAnEvent(ctx, id)
      const inTrash = () => new CalendarError('EVENT_IN_TRASH', 'The event is already trashed')
      if (row.status === 'trash') throw inTrash()
      if (!(await writeTransaction(ctx, (trx) => trashPost(trx, 'events', row.id, utcWall(ctx.clock.now()))))) throw inTrash()
      return readAfterWrite(ctx, row.id)
    },
  })
}

async function writeAndRead(ctx: CallContext, plan: EventWritePlan, existing: EventRow | undefined): Promise<OperationResult> {
  // The rule engine after the permission check, and outside the transaction: it holds no connection.
  await verifyEventPlan(plan)
  const id = await writeTransaction(ctx, (trx) => applyEventWrite(trx, plan, existing, ctx))
  return readAfterWrite(ctx, id)
}

/**
 * The event as a committed write left it, and what its by-id GET answers this caller (the new
 * `ETag` is of that); only its id when the database fails to say more.
 */
function readAfterWrite(ctx: CallContext, id: number): Promise<OperationResult> {
  return answerCommitted<OperationResult>(
    async () => {
      const row = (await findEventRow(ctx.db, id))!
      return { body: serializeEvent(row, ctx), read: readView(ctx, row) }
    },
    () => ({ body: { id } }),
  )
}

/** What `eventReadOperation` answers for `row` without a password: its body, or `null` for its errors. */
function readView(ctx: CallContext, row: EventRow): OperationResult | null {
  try {
    checkReadable(ctx, row, undefined)
  } catch (err) {
    if (err instanceof CalendarError) return null
    throw err
  }
  return { body: serializeEvent(row, ctx, { single: true, unlocked: true }) }
}

/** POST /events (CONTRACT 10). */
export function eventCreateOperation() {
  return defineOperation({
    // A retry with the same Idempotency-Key returns the first answer (api/idempotency.ts).
    policy: { idempotent: true, reads: EVENT_WRITE_READS, writes: EVENT_WRITES },
    args: eventWriteArgs(true),
    async prepare(input, ctx) {
      return planEventWrite(ctx.db, input, undefined, ctx)
    },
    authorize(plan, ctx) {
      require(ctx.principal, canEditType(ctx.principal))
      require(ctx.principal, plannedAuthors(plan).every((author) => canAssignAuthor(ctx.principal, author)))
    },
    async run(plan, ctx) {
      return { status: 201, ...(await writeAndRead(ctx, plan, undefined)) }
    },
  })
}

/** POST/PUT/PATCH of one event: a partial update (CONTRACT 10.6, 10.7). */
export function eventUpdateOperation(locator: Locator, variant: VariantConfig) {
  const declared = { ...eventWriteArgs(false), ...locatorArgs(locator, variant, locator === 'id') }
  // O-23: a password sent on update-by-id protects the event; null clears it.
  if (declared.password) declared.password = { ...declared.password, nullable: true }
  return defineOperation({
    policy: { reads: EVENT_WRITE_READS, writes: EVENT_WRITES },
    args: declared,
    async prepare(input, ctx) {
      const found = await locate(ctx, locator === 'id' ? { id: input.id } : { slug: input.slug! })
      const writeInput: EventInput = { ...input }
      if (locator === 'slug') {
        // O-14: the path slug selects the event; a `slug` in the body renames it.
        const rename = ctx.raw.body.slug
        if (rename !== undefined && rename !== null && (typeof rename !== 'string' || rename === '')) throw invalidParam('slug')
        writeInput.slug = rename ?? undefined
      }
      const plan = await planEventWrite(ctx.db, writeInput, found.row, ctx)
      return { ...found, plan }
    },
    authorize({ row, plan }, ctx) {
      require(ctx.principal, row ? canEditItem(ctx.principal, row) : canEditType(ctx.principal))
      require(ctx.principal, plannedAuthors(plan).every((author) => canAssignAuthor(ctx.principal, author)))
    },
    async run({ id, row, plan }, ctx) {
      if (!row) return notAnEvent(ctx, id)
      return writeAndRead(ctx, plan, row)
    },
  })
}
