import type { ArgsRecord, Operation } from '../api/operation.js'
import { syncRefusedParams, type SyncParams, type SyncRequest } from './sync-walk.js'

// `GET /events/sync` (and `/venues/sync`, `/organizers/sync`): the list's sync walk on a path of
// its own, so that the document can give it its own answer (items and tombstones) and the list
// its plain one (issue 29 item 11). `?sync=1` on the list itself works as before (docs/sync.md).

/** List parameters a sync route does not take: a walk pages by cursor and always walks. */
const LIST_ONLY = ['page', 'sync']

/** What a syncing list's prepare step returns: at least the checked sync request, if any. */
interface SyncingPrepared {
  sync?: SyncRequest
}

/**
 * The list operation as its `…/sync` route serves it: the list's parameters but the ones a walk
 * refuses (declared so: date windows, filters over other collections), a full walk when neither
 * `sync_token` nor `sync_page` is given, and `next_rest_url`s that stay on `route`.
 */
export function syncOperation<A extends ArgsRecord, P extends SyncingPrepared, R>(
  list: Operation<A, P, R>,
  route: string,
): Operation<A, P, R> {
  const refused = syncRefusedParams(list.args)
  const args = Object.fromEntries(Object.entries(list.args).filter(([name]) => !LIST_ONLY.includes(name) && !refused.includes(name))) as A
  const prepare = list.prepare
  if (!prepare) throw new TypeError('A syncing list prepares its sync request.')
  return {
    ...list,
    // A walk's answer depends on how far the change log was pruned: never kept, read on the primary.
    policy: { ...list.policy, cache: 'never', replica: 'primary' },
    args,
    async prepare(input, ctx) {
      const asked = input as SyncParams
      const walk = asked.sync_token === undefined && asked.sync_page === undefined
      const prepared = await prepare({ ...input, page: undefined, sync: walk ? true : undefined }, ctx)
      return prepared.sync ? { ...prepared, sync: { ...prepared.sync, route } } : prepared
    },
  }
}
