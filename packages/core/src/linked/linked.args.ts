import { z } from 'zod'
import { arg, args, type ArgSpec } from '../api/arg-kinds.js'
import type { ArgsRecord } from '../api/operation.js'
import { WRITABLE_STATUSES } from '../auth/permissions.js'
import type { VariantConfig } from '../config/variants.js'
import { imageArg, statusListArg } from '../posts/post-args.js'
import type { LinkedKind } from './kinds.js'
import { syncListArgs } from '../sync/sync.args.js'

/**
 * The body fields `linkedWriteArgs` declares for a kind with name field `N` and detail fields `D`.
 * Named: the declaration bundler loses what an inline `typeof linkedWriteArgs<…>` refers to.
 */
export type LinkedWriteArgs<N extends string, D extends ArgsRecord> = ReturnType<typeof linkedWriteArgs<N, D>>

/** Body fields of a venue/organizer create or update (CONTRACT 11.1); also used for inline data. */
export function linkedWriteArgs<N extends string, D extends ArgsRecord>(kind: LinkedKind<N, D>, forCreate: boolean) {
  const name = { [kind.nameField]: args.nestr({ required: forCreate, description: `${kind.type} name` }) } as Record<N, ArgSpec<string, string>>
  return {
    ...name,
    author: args.int(),
    date: args.time(),
    date_utc: args.time(),
    description: args.str0(),
    status: args.enumOf(WRITABLE_STATUSES),
    ...kind.detailArgs,
    image: imageArg,
  }
}

/**
 * `search` of the venue/organizer lists. Only `""` fails here (nestr); any other non-string
 * (an array from `search[]=`) must reach the handler, which answers the reference's
 * `archive-bad-search-string` instead of `rest_invalid_param` (CONTRACT 7).
 */
const searchArg: ArgSpec<unknown> = arg(z.unknown().refine((v) => v !== ''), { type: 'string' }, {
  openapi: { type: 'string', minLength: 1 },
})

/** Query parameters of `GET /venues` and `GET /organizers` (SPEC, CONTRACT 7). */
export function linkedListArgs(kind: LinkedKind, variant: VariantConfig) {
  return {
    page: args.posint({ default: 1, description: 'Page of the archive to return.', policy: { sync: 'paging' } }),
    per_page: args.posint({ default: variant.perPageDefault, description: `${kind.plural} per page (at most 50).`, policy: { sync: 'paging' } }),
    search: { ...searchArg, description: `${kind.plural} whose name, description or details contain every word (any order).` },
    // Filters by events, whose writes are recorded against the event: a sync walk refuses them.
    event: args.int({ description: `Only the ${kind.plural} of this event.`, policy: { sync: 'refused' } }),
    has_events: args.truthy({ description: `${kind.plural} linked (or, when false, not linked) to a non-draft event.`, policy: { sync: 'refused' } }),
    // "Upcoming" moves with the clock, to the second.
    only_with_upcoming: args.truthy({
      default: false,
      description: `Only ${kind.plural} linked to an upcoming event the caller could see in the event list.`,
      policy: { cache: 'second', sync: 'refused' },
    }),
    status: { ...statusListArg, description: `${kind.type} post statuses.` },
    ...syncListArgs(kind.plural),
  }
}
