import { args, type ArgPolicy } from '../api/arg-kinds.js'

/** A walk's own parameters: its answer depends on how far the change log was pruned, so it is never kept. */
const WALK: ArgPolicy = { cache: 'uncached', sync: 'walk' }

/** Query parameters of incremental sync on the event, venue and organizer lists (docs/sync.md). */
export function syncListArgs(plural: string) {
  return {
    sync: args.bool({ description: `Extension: start a sync walk over every ${plural} (no date window); its last page returns next_sync_token.`, policy: WALK }),
    sync_token: args.shortText(16000, {
      description: `Extension: only the ${plural} changed since the token (as the caller sees them now), and {"id", "deleted": true} for those gone; 410 when the token is unknown or too old.`,
      policy: WALK,
    }),
    sync_page: args.shortText(16000, { description: 'Extension: the next page of a sync walk, as given in next_rest_url.', policy: WALK }),
  }
}
