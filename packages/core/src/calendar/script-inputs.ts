// The script API's input types: each is derived from the argument declarations that validate
// HTTP input, so a misspelt field does not compile; at run time a name the operation does not
// declare is a 400 as well.
import type { ArgInput, Operation } from '../api/operation.js'
import type { Principal } from '../auth/principal.js'
import type { EventListArgs } from '../events/event.args.js'
import type { eventWriteArgs } from '../events/event.args.js'
import type { followingArgs, overrideArgs } from '../events/occurrence.operations.js'
import type { feedArgs } from '../ical/ical.operations.js'
import type { OrganizerDetailArgs, VenueDetailArgs } from '../linked/kinds.js'
import type { linkedListArgs, LinkedWriteArgs } from '../linked/linked.args.js'
import type { termListArgs, termWriteArgs } from '../terms/term.args.js'

/** Per-call options of the script API. */
export interface CallOptions {
  /** Act as this principal; `null` = anonymous. Default: an administrator. */
  as?: Principal | null
  /** Active language (variant B). */
  language?: string
}

/** Options of a script create: `idempotencyKey` makes a retry return the first result (README "Retrying creates"). */
export interface CreateOptions extends CallOptions {
  /** As the `Idempotency-Key` header: 1 to 255 characters, per caller, kept 24 hours; shared with HTTP creates of the same body. */
  idempotencyKey?: string
}

/** `ml_language`, which every call declares in variant B (the `language` call option sets it too). */
export type WithLanguage<T> = T & { ml_language?: string }

/** What a script passes to `op`: its declared parameters' wire inputs (and `ml_language`). */
export type InputOf<O> = O extends Operation<infer A, unknown, unknown> ? WithLanguage<ArgInput<A>> : never

/** Query of `events.list`: the parameters of `GET /events` (CONTRACT 6.1; bounds filters in variant B). */
export type EventListQuery = WithLanguage<ArgInput<EventListArgs>>
/** Query of `events.feed`: the list's filters without paging, as `GET /events/ical` takes them. */
export type EventFeedQuery = WithLanguage<ArgInput<ReturnType<typeof feedArgs>>>
/** Body of `events.create`/`update`: the fields of CONTRACT 10.1 (`password` in variant B). */
export type EventInput = Omit<WithLanguage<ArgInput<ReturnType<typeof eventWriteArgs>>>, 'venue' | 'organizer'> & {
  venue?: EventVenueInput
  organizer?: EventOrganizerInput
  password?: string | null
}
/** `venue` of an event write: an id, `{ id }`, a venue to create (or reuse) inline, or a clearing value (`null`, `0`, `''`, `[]`). */
export type EventVenueInput = number | string | { id: number } | VenueInput | null | (number | string | { id: number } | VenueInput)[]
/** `organizer` of an event write: one or a list (or comma-separated ids) of ids, `{ id }` objects or organizers to create inline. */
export type EventOrganizerInput =
  | number
  | string
  | { id: number }
  | OrganizerInput
  | null
  | (number | string | { id: number } | OrganizerInput)[]
/** Body of `events.updateOccurrence`: the event fields one occurrence may change. */
export type OccurrenceInput = WithLanguage<ArgInput<ReturnType<typeof overrideArgs>>>
/** Body of `events.updateFollowing`: the fields of `OccurrenceInput`, and the new series' `recurrence`. */
export type FollowingInput = WithLanguage<ArgInput<ReturnType<typeof followingArgs>>>
/** Body of `venues.create`/`update` (CONTRACT 11.1). */
export type VenueInput = WithLanguage<ArgInput<LinkedWriteArgs<'venue', VenueDetailArgs>>>
/** Body of `organizers.create`/`update` (CONTRACT 11.1). */
export type OrganizerInput = WithLanguage<ArgInput<LinkedWriteArgs<'organizer', OrganizerDetailArgs>>>
/** Query of `venues.list`/`organizers.list` (CONTRACT 7). */
export type LinkedListQuery = WithLanguage<ArgInput<ReturnType<typeof linkedListArgs>>>
/** Query of `categories.list`/`tags.list` (CONTRACT 8; `parent` for categories only). */
export type TermListQuery = WithLanguage<ArgInput<ReturnType<typeof termListArgs>>>
/** Body of `categories.create`/`update` and the tag calls (CONTRACT 12; `parent` for categories only). */
export type TermInput = WithLanguage<ArgInput<ReturnType<typeof termWriteArgs>>>
