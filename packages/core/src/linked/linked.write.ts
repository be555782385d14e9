import { editableSql, editScope } from '../auth/visibility.js'
import { cleanPostHtml, cleanTitle } from '../posts/html.js'
import { sql, type Kysely, type Transaction } from 'kysely'
import type { CallContext } from '../api/context.js'
import type { DB } from '../db/generated.js'
import { CalendarError, invalidParam, invalidParams } from '../errors.js'
import { initialPostColumns, requestedDateUtc, updatedPostColumns, type LifecycleInput } from '../posts/lifecycle.js'
import { utcWall } from '../time/wall-time.js'
import { checkImageValue, resolveImage } from '../posts/write-inputs.js'
import { answerLookups, WriteLookups, type LookupAnswers } from '../posts/write-lookups.js'
import type { LinkedKind } from './kinds.js'
import { linkedDb } from './linked.repository.js'
import type { LinkedRow } from './linked.serializer.js'

type Db = Kysely<DB> | Transaction<DB>

/** Parsed write fields of a venue/organizer (from `linkedWriteArgs`). */
export type LinkedInput = Record<string, unknown>

/** The lifecycle part of a venue/organizer write; its `date` is read in the site zone. */
export function lifecycleInput(input: LinkedInput, ctx: CallContext): LifecycleInput {
  return {
    status: input.status as string | undefined,
    dateUtc: requestedDateUtc(input, ctx.options.siteTimezone, ctx.clock.now()),
    author: input.author as number | undefined,
  }
}

/** Coordinates come in pairs: one without the other is a 400 naming the missing one. */
function checkCoordinatePair(input: LinkedInput): void {
  if ((input.geo_lat === undefined) === (input.geo_lng === undefined)) return
  throw invalidParams(
    input.geo_lat === undefined
      ? { geo_lat: 'geo_lat must come with geo_lng.' }
      : { geo_lng: 'geo_lng must come with geo_lat.' },
  )
}

/**
 * The shape rules of a venue/organizer write that need no database (coordinate pair, image
 * value), registering the ids its database rules need (author, image) in `needs`.
 */
export function checkLinkedShape(kind: LinkedKind, input: LinkedInput, needs: WriteLookups): void {
  if (kind.coordinates) checkCoordinatePair(input)
  if (input.author !== undefined) needs.users.add(input.author as number)
  if (input.image === undefined) return
  const image = checkImageValue(input.image)
  if ('id' in image) needs.images.add(image.id)
}

/** The database rules of a venue/organizer write, from the answers to what `checkLinkedShape` registered. */
export function checkLinkedAnswers(input: LinkedInput, answers: LookupAnswers): void {
  if (input.author !== undefined && !answers.users.has(input.author as number)) throw invalidParam('author')
  const image = input.image === undefined ? undefined : checkImageValue(input.image)
  if (image && 'id' in image && !answers.images.has(image.id)) throw invalidParam('image')
}

/**
 * The database-backed parameter rules of a venue/organizer write (author, image id,
 * coordinate pair), so they answer 400 before the permission check (CONTRACT 2.2).
 */
export async function checkLinkedInput(db: Db, kind: LinkedKind, input: LinkedInput): Promise<void> {
  const needs = new WriteLookups()
  checkLinkedShape(kind, input, needs)
  if (!needs.empty) checkLinkedAnswers(input, await answerLookups(db, needs, null))
}

/** A text or number column's value as text (`''` when unset): what derived columns are built from. */
function columnText(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : ''
}

/** The detail columns a write sets: text fields, flags, coordinates, derived columns, image. */
async function detailColumns(
  db: Db,
  kind: LinkedKind,
  input: LinkedInput,
  current: Record<string, unknown> | undefined,
  applyFlagDefaults: boolean,
): Promise<Record<string, unknown>> {
  const cols = plainDetailColumns(kind, input, current, applyFlagDefaults)
  if (input.image !== undefined) cols.image_id = await resolveImage(db, checkImageValue(input.image))
  return cols
}

/** `detailColumns` without the image (which may need the database): text fields, flags, coordinates, derived columns. */
export function plainDetailColumns(
  kind: LinkedKind,
  input: LinkedInput,
  current: Record<string, unknown> | undefined,
  applyFlagDefaults: boolean,
): Record<string, unknown> {
  const cols: Record<string, unknown> = {}
  for (const field of kind.textFields) if (typeof input[field] === 'string') cols[field] = input[field]
  for (const flag of kind.flags) {
    if (input[flag] !== undefined) cols[flag] = input[flag]
    else if (applyFlagDefaults) cols[flag] = true
  }
  if (kind.coordinates && input.geo_lat !== undefined) {
    cols.geo_lat = input.geo_lat
    cols.geo_lng = input.geo_lng
  }
  if (kind.derive) Object.assign(cols, kind.derive(input, (f) => columnText(cols[f] ?? current?.[f]), current === undefined))
  return cols
}

/**
 * Creates a venue/organizer, or reuses the one with the same name (and description, when one
 * is sent), writing the sent details onto it (CONTRACT 11.2). Inline creation from an event
 * body goes through here too.
 */
export async function createLinked(
  trx: Transaction<DB>,
  kind: LinkedKind,
  input: LinkedInput,
  ctx: CallContext,
): Promise<{ id: number; reused: boolean }> {
  const policy = ctx.options.unfilteredHtml
  const sentName = typeof input[kind.nameField] === 'string' ? (input[kind.nameField] as string) : ''
  const name = cleanTitle(sentName, ctx.principal, policy).trim()
  if (name === '') throw new CalendarError(kind.errors.couldNotCreate, `Could not create the ${kind.type}: it has no name.`)
  const description = typeof input.description === 'string' ? cleanPostHtml(input.description, ctx.principal, policy) : ''
  // Serialise creators of the same name so two concurrent requests cannot both miss the match.
  await sql`select pg_advisory_xact_lock(hashtext(${`${kind.table}:${name.toLowerCase()}`}))`.execute(trx)
  const db = linkedDb(trx)
  const existing = await db
    .selectFrom(kind.table)
    .selectAll()
    .where(sql<boolean>`lower(title) = lower(${name})`)
    .$if(description !== '', (qb) => qb.where(sql<boolean>`lower(description) = lower(${description})`))
    .where('status', '<>', 'trash')
    // Issue 15 item 3: only a record the caller may edit is reused (and its details overwritten);
    // otherwise a new one is created, so the answer never hands out, nor rewrites, another's record.
    .where(editableSql(editScope(ctx.principal), kind.table))
    .orderBy('id')
    .limit(1)
    .executeTakeFirst()
  const nowWall = utcWall(ctx.clock.now())
  if (existing) {
    const cols = await detailColumns(trx, kind, input, existing, true)
    await db.updateTable(kind.table).set({ ...cols, modified_utc: nowWall }).where('id', '=', existing.id).execute()
    return { id: existing.id, reused: true }
  }
  const cols = await detailColumns(trx, kind, input, undefined, true)
  const post = await initialPostColumns(trx, kind.table, name, lifecycleInput(input, ctx), ctx)
  const row = await db
    .insertInto(kind.table)
    .values({ ...cols, ...post, title: name, description })
    .returning('id')
    .executeTakeFirstOrThrow()
  return { id: row.id, reused: false }
}

/** Applies a partial update to a venue/organizer (absent fields unchanged, O-2). */
export async function updateLinked(
  trx: Transaction<DB>,
  kind: LinkedKind,
  current: LinkedRow,
  input: LinkedInput,
  ctx: CallContext,
): Promise<void> {
  const db = linkedDb(trx)
  const cols = await detailColumns(trx, kind, input, current, false)
  const name = input[kind.nameField]
  const policy = ctx.options.unfilteredHtml
  if (typeof name === 'string') {
    const cleaned = cleanTitle(name, ctx.principal, policy).trim()
    if (cleaned === '') throw new CalendarError(kind.errors.couldNotUpdate, `Could not update the ${kind.type}: the name is blank.`)
    cols.title = cleaned
  }
  if (typeof input.description === 'string') cols.description = cleanPostHtml(input.description, ctx.principal, policy)
  Object.assign(cols, await updatedPostColumns(trx, kind.table, current, typeof cols.title === 'string' ? cols.title : current.title, lifecycleInput(input, ctx), ctx))
  await db.updateTable(kind.table).set(cols).where('id', '=', current.id).execute()
}
