import { sql, type Kysely, type Transaction } from 'kysely'
import type { CallContext } from '../api/context.js'
import { canPublish } from '../auth/permissions.js'
import type { Principal } from '../auth/principal.js'
import type { DB } from '../db/generated.js'
import { slugify } from '../shared/slug.js'
import { uniqueSlug } from './slug-store.js'
import { utcWallToEpochMs, utcWall, wallFromDb } from '../time/wall-time.js'
import { timeToUtc } from './write-inputs.js'

// The rules every post type (event, venue, organizer) follows from creation to the trash and
// back (CONTRACT 10.1, 10.3, 13). Each type adds its own columns; none of them decides these.

type Db = Kysely<DB> | Transaction<DB>

/** The tables holding posts. */
export type PostTable = 'events' | 'venues' | 'organizers'

/** What a public post's slug becomes when its text normalises to "" (`..`, `!!!`, an emoji). */
const FALLBACK_SLUG: Record<PostTable, string> = { events: 'event', venues: 'venue', organizers: 'organizer' }

/** What trashing appends to a slug (CONTRACT 13). */
export const TRASHED = '__trashed'

/** Statuses whose items get a slug (drafts and pending items keep `""`, CONTRACT 10.3). */
export function getsSlug(status: string): boolean {
  return status === 'publish' || status === 'future' || status === 'private'
}

/** The lifecycle part of a validated post write. */
export interface LifecycleInput {
  /** Requested status; absent keeps the stored one (update) or takes the role's default (create). */
  status?: string
  /** Requested publication date as a UTC wall clock. */
  dateUtc?: string
  /** Author id (already checked to exist). */
  author?: number
  /** An explicit slug (events only); normalised here. */
  slug?: string
}

/** The lifecycle columns of a stored post. */
export interface LifecycleRow {
  id: number
  status: string
  slug: string
  language: string
  date_utc: string
  date_floating: boolean
}

/**
 * The status actually stored for a requested one (CONTRACT 10.1 "scale-back"): absent means the
 * role's default; non-publishers asking to publish get `pending`; a publish dated over a minute
 * ahead becomes `future`, and a `future` with a past date becomes `publish`.
 */
export function scaleBackStatus(requested: string | undefined, p: Principal | null, dateUtcMs: number | undefined, nowMs: number): string {
  let status = requested ?? (canPublish(p) ? 'publish' : 'draft')
  if (!canPublish(p) && (status === 'publish' || status === 'future')) status = 'pending'
  if (status === 'publish' && dateUtcMs !== undefined && dateUtcMs > nowMs + 60_000) status = 'future'
  if (status === 'future' && (dateUtcMs === undefined || dateUtcMs <= nowMs)) status = 'publish'
  return status
}

function statusFor(requested: string | undefined, dateUtc: string | undefined, ctx: CallContext): string {
  return scaleBackStatus(requested, ctx.principal, dateUtc === undefined ? undefined : utcWallToEpochMs(dateUtc), ctx.clock.now().getTime())
}

/** The publication date a write asks for (`date_utc` wins over `date`, read in `zone`), in UTC. */
export function requestedDateUtc(input: { date?: unknown; date_utc?: unknown }, zone: string, now: Date): string | undefined {
  if (input.date_utc !== undefined) return timeToUtc(input.date_utc, 'UTC', now, 'date_utc')
  if (input.date !== undefined) return timeToUtc(input.date, zone, now, 'date')
  return undefined
}

/**
 * Columns a new post starts with: status (scaled back), slug, author, language and dates. A
 * public post's slug is `slug` here, still to be made unique in the writing transaction: the
 * caller picks it (`uniqueSlug`, or the insert statement itself: `events/event-store.ts`).
 */
export function initialPostDraft(table: PostTable, title: string, input: LifecycleInput, ctx: CallContext) {
  const status = statusFor(input.status, input.dateUtc, ctx)
  const nowWall = utcWall(ctx.clock.now())
  const base = input.slug !== undefined ? slugify(input.slug) : getsSlug(status) ? slugify(title) : ''
  const columns = {
    status,
    slug: getsSlug(status) ? base || FALLBACK_SLUG[table] : base,
    author_id: input.author ?? (ctx.principal?.id || null),
    language: ctx.language,
    date_utc: input.dateUtc ?? nowWall,
    // An undated draft takes the moment it goes public as its date (as the reference does).
    date_floating: input.dateUtc === undefined && (status === 'draft' || status === 'pending'),
    modified_utc: nowWall,
  }
  return { columns, slugToMakeUnique: getsSlug(status) }
}

/** Columns a new post starts with, its slug made unique (`initialPostDraft`). */
export async function initialPostColumns(trx: Db, table: PostTable, title: string, input: LifecycleInput, ctx: CallContext) {
  const { columns, slugToMakeUnique } = initialPostDraft(table, title, input, ctx)
  if (slugToMakeUnique) columns.slug = await uniqueSlug(trx, table, columns.slug, ctx.language)
  return columns
}

/**
 * Lifecycle columns an update changes: status (scaled back against the effective date), slug
 * (given, derived on first publication, or given back when leaving the trash), dates and author.
 */
export async function updatedPostColumns(trx: Db, table: PostTable, current: LifecycleRow, title: string, input: LifecycleInput, ctx: CallContext) {
  const cols: Record<string, unknown> = {}
  const nowWall = utcWall(ctx.clock.now())
  if (input.author !== undefined) cols.author_id = input.author
  if (input.dateUtc !== undefined) {
    cols.date_utc = input.dateUtc
    cols.date_floating = false
  }
  let status = current.status
  if (input.status !== undefined) {
    status = statusFor(input.status, input.dateUtc ?? (current.date_floating ? undefined : wallFromDb(current.date_utc)), ctx)
    if (status !== current.status) cols.status = status
  }
  let slug: string | undefined
  if (input.slug !== undefined) slug = slugify(input.slug)
  else if (getsSlug(status) && current.slug === '') slug = slugify(title)
  // Leaving the trash gives the slug back (made unique again: another item may have taken it).
  else if (status !== 'trash' && current.slug.endsWith(TRASHED)) slug = current.slug.slice(0, -TRASHED.length)
  if (slug !== undefined) cols.slug = getsSlug(status) ? await uniqueSlug(trx, table, slug || FALLBACK_SLUG[table], current.language, current.id) : slug
  if (current.date_floating && getsSlug(status) && input.dateUtc === undefined) {
    cols.date_utc = nowWall
    cols.date_floating = false
  }
  cols.modified_utc = nowWall
  return cols
}

/**
 * Moves a post to the trash: status `trash`, slug + `__trashed` so it blocks no other slug
 * (CONTRACT 13). False when it was already trashed, e.g. by a concurrent delete.
 */
export async function trashPost(trx: Db, table: PostTable, id: number, nowWall: string): Promise<boolean> {
  // The three tables share these columns; typing the statement on one of them is enough.
  const trashed = await (trx as Kysely<DB>)
    .updateTable(table as 'events')
    .set({
      status: 'trash',
      // Drafts never got a slug; an empty one stays empty rather than becoming `__trashed`.
      slug: sql<string>`case when slug = '' then '' else slug || ${TRASHED} end`,
      modified_utc: nowWall,
    })
    .where('id', '=', id)
    .where('status', '<>', 'trash')
    .returning('id')
    .executeTakeFirst()
  return trashed !== undefined
}
