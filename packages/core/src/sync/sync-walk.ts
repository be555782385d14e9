import { sql, type Compilable, type Expression } from 'kysely'
import type { ArgPolicy } from '../api/arg-kinds.js'
import type { CallContext } from '../api/context.js'
import { paramsWith } from '../api/policy.js'
import type { ChangePoint } from '../changes/change-log.js'
import { invalidParams } from '../errors.js'
import { visibilityKey } from '../http/conditional.js'
import { listHeaders, listUrls, postListBody, totalPages } from '../shared/pagination.js'
import { checkBinding, filterHash, openSyncState, signSyncState, syncTokenExpired, type SyncBinding, type SyncCollection, type SyncState } from './sync-token.js'

// Incremental sync of the event, venue and organizer lists (issue 18 item 3, docs/sync.md).
//
// A walk pages by id (keyset), not by page number: between two page requests an item may be
// deleted or move in the date order, and offsets would then skip an item that did not change,
// which no later sync would report. With ids, an item that exists throughout the walk is served.
// Anything that changed after the walk's first page was read is reported by the next token,
// whose point is that first page's.

/** The sync parameters every syncing list declares. */
export interface SyncParams {
  page?: number
  sync?: boolean
  sync_token?: string
  sync_page?: string
}

/** A checked sync request: a new full walk (`state` undefined), a token, or a walk cursor. */
export interface SyncRequest {
  binding: SyncBinding
  state?: SyncState
  /** Path under the REST root the walk's links stay on (`events/sync`); the list's own by default. */
  route?: string
  /** The list's parameters that are the walk's own or paging, not filters (from its declarations). */
  machinery: ReadonlySet<string>
}

/** A list's declared parameters, as far as sync walks go (`ArgPolicy.sync`). */
export type SyncDeclared = Readonly<Record<string, { readonly policy?: ArgPolicy }>>

/** The parameters that are part of the sync machinery (the walk's own and the list's paging), not of the filter set. */
function machinery(declared: SyncDeclared): Set<string> {
  return new Set([...paramsWith(declared, 'sync', 'walk'), ...paramsWith(declared, 'sync', 'paging')])
}

/** The names of declared filters a sync walk refuses (`ArgPolicy.sync`: date windows, filters over other collections). */
export function syncRefusedParams(declared: SyncDeclared): string[] {
  return paramsWith(declared, 'sync', 'refused')
}

/** The filter parameters as the client sent them, in a stable order (what a token is bound to). */
function sentFilters(ctx: CallContext, skip: ReadonlySet<string>): [string, unknown][] {
  return Object.entries(ctx.raw.query)
    .filter(([name]) => !skip.has(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
}

/**
 * The sync request of a list call, checked (400s and 410s), or `undefined` when it asks for none.
 * `refused`: parameters the caller sent that sync walks cannot follow exactly (a moving date
 * window, filters on other collections' links). `resolved`: the filters as the list applies them.
 * `declared`: the list's parameters, whose policies say which are the walk's own.
 */
export async function syncRequest(
  ctx: CallContext,
  collection: SyncCollection,
  input: SyncParams,
  refused: readonly string[],
  resolved: unknown,
  declared: SyncDeclared,
): Promise<SyncRequest | undefined> {
  const asked = [input.sync === true && 'sync', input.sync_token !== undefined && 'sync_token', input.sync_page !== undefined && 'sync_page'].filter(
    (name): name is string => typeof name === 'string',
  )
  if (asked.length === 0) return undefined
  const failures: Record<string, string> = {}
  if (asked.length > 1) for (const name of asked) failures[name] = 'Use one of sync, sync_token and sync_page.'
  if (input.page !== undefined && input.page !== 1) failures.page = 'A sync walk continues with its next_rest_url (sync_page), not with page numbers.'
  for (const name of refused) failures[name] = 'Not available with sync: a sync walk covers every date and filters only on the items themselves.'
  if (Object.keys(failures).length > 0) throw invalidParams(failures)
  const skip = machinery(declared)
  const binding: SyncBinding = {
    c: collection,
    u: ctx.principal?.id ?? 0,
    v: visibilityKey(ctx.principal),
    f: filterHash(sentFilters(ctx, skip)),
    g: filterHash(resolved),
  }
  const text = input.sync_token ?? input.sync_page
  if (text === undefined) return { binding, machinery: skip }
  const state = await openSyncState(ctx.db, text)
  // A cursor is not a token and the other way round: each only works where it was handed out.
  if ((state.k === 't') !== (input.sync_token !== undefined)) {
    throw invalidParams({ [asked[0]!]: input.sync_token !== undefined ? 'This is a sync_page cursor, not a sync token.' : 'This is a sync token, not a sync_page cursor.' })
  }
  checkBinding(state, binding)
  return { binding, state, machinery: skip }
}

/** How a collection takes part in a walk. */
export interface SyncSource {
  /** The filtered list as ids (a select of one column `id`), every date, unpaged. */
  ids: Compilable & Expression<unknown>
  /**
   * SQL selecting column `id`: every item of this collection whose representation may have changed,
   * given the CTE `ch (kind, id)` of the row changes since the token. It follows what an item
   * embeds (an event's venue, organizers, terms, image), through the links as they are now.
   */
  changed: string
  /** The live items among `ids`, serialised as the list serialises them, by id. */
  items(ids: readonly number[]): Promise<Map<number, unknown>>
}

interface PageIds {
  expired: boolean
  total: number
  point: ChangePoint
  page: number[]
}

/**
 * A page of a full walk: the next ids of the filtered list after `after`, by the primary key. The
 * total is counted on the first page only (`known` afterwards): counting every page would make a
 * walk over N items cost N²/per_page rows read.
 */
async function fullWalkIds(ctx: CallContext, source: SyncSource, after: number, perPage: number, known: number | undefined): Promise<PageIds> {
  const total = known === undefined ? sql`(select count(*)::int from (${source.ids}) b)` : sql`${known}::int`
  const { rows } = await sql<PageIds>`
    select false as expired, ${total} as total, pg_current_snapshot()::text as point,
           array(select b.id::int from (${source.ids}) b where b.id > ${after}::int order by b.id limit ${perPage + 1}::int) as page`.execute(ctx.db)
  return rows[0]!
}

/**
 * A page of an incremental walk: the next ids after `after` among those changed since `since`, by
 * the rule of change-log.ts (a change counts when its transaction is not visible in the point), and
 * whether the log still covers `since`, in one statement.
 */
async function changedIds(ctx: CallContext, source: SyncSource, since: ChangePoint, after: number, perPage: number): Promise<PageIds> {
  // `cal_log_misses` (migration 0011): the pruned log held a change this point needs.
  const { rows } = await sql<PageIds>`
    with ch as materialized (
      select c.kind, c.id from cal_row_changes c
       where c.xid >= pg_snapshot_xmin(${since}::pg_snapshot) and not pg_visible_in_snapshot(c.xid, ${since}::pg_snapshot)
    ), ids as materialized (select distinct x.id::int as id from (${sql.raw(source.changed)}) x)
    select cal_log_misses(${since}::pg_snapshot) or exists (select 1 from ch where ch.kind = '*') as expired,
           (select count(*)::int from ids) as total, pg_current_snapshot()::text as point,
           array(select ids.id from ids where ids.id > ${after}::int order by ids.id limit ${perPage + 1}::int) as page`.execute(ctx.db)
  return rows[0]!
}

/** One page of a sync walk as a list response: items and tombstones by id, totals, token or cursor. */
export async function syncPage(
  ctx: CallContext,
  request: SyncRequest,
  perPage: number,
  source: SyncSource,
): Promise<{ body: Record<string, unknown>; headers: Record<string, string> }> {
  const state = request.state
  const after = state?.k === 'w' ? state.a : 0
  const since = state?.k === 't' ? state.p : state?.k === 'w' && state.m === 'delta' ? state.p : undefined
  // Ids, total and the point in one statement; one more id than the page says whether one follows.
  const found = since === undefined ? await fullWalkIds(ctx, source, after, perPage, state?.k === 'w' && state.m === 'full' ? state.n : undefined) : await changedIds(ctx, source, since, after, perPage)
  if (found.expired) throw syncTokenExpired()
  const page = found.page.map(Number)
  const more = page.length > perPage
  const served = more ? page.slice(0, perPage) : page
  const items = await source.items(served)
  // A delta answers every changed id: the item as the caller sees it now, or a tombstone.
  const listed = since === undefined ? served.filter((id) => items.has(id)).map((id) => items.get(id)) : served.map((id) => items.get(id) ?? { id, deleted: true })
  const start: ChangePoint = state?.k === 'w' ? state.s : found.point
  const { binding } = request
  const cursor: SyncState | undefined = more
    ? since === undefined
      ? { ...binding, k: 'w', m: 'full', s: start, a: served[served.length - 1]!, n: found.total }
      : { ...binding, k: 'w', m: 'delta', s: start, a: served[served.length - 1]!, p: since }
    : undefined
  const token = more ? undefined : await signSyncState(ctx.db, { ...binding, k: 't', p: start })
  const pages = totalPages(found.total, perPage)
  const collection = `${ctx.urls.rest}/${request.route ?? binding.c}`
  const p = { page: 1, perPage, offset: 0 }
  const filters = Object.fromEntries(sentFilters(ctx, request.machinery))
  const urls = {
    rest_url: listUrls(collection, ctx.raw.query, p, 1).rest_url,
    next_rest_url: cursor ? listUrls(collection, { ...filters, sync_page: await signSyncState(ctx.db, cursor) }, p, 1).rest_url : undefined,
    previous_rest_url: undefined,
  }
  const body = postListBody(binding.c, listed, urls, found.total, pages)
  const headers = listHeaders(found.total, pages)
  if (token) {
    body.next_sync_token = token
    headers[SYNC_TOKEN_HEADER] = token
  }
  return { body, headers }
}

/** The response header of a walk's last page that carries the next sync token. */
export const SYNC_TOKEN_HEADER = 'X-Cal-Next-Sync-Token'
