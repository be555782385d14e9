// The public shape of the script API: one typed object per resource (docs in README "Scripts").
import type { FeedKeyInfo, FeedKeyInput } from '../auth/feed-keys.js'
import type { TokenInfo, TokenInput } from '../auth/tokens.js'
import type { ImportBatchOptions } from '../api/import-batches.js'
import type { ImportSummary } from '../events/event-import.js'
import type { LinkedImportSummary } from '../linked/linked-import.js'

export type { LinkedImportItemError, LinkedImportSummary } from '../linked/linked-import.js'
import type { OpenApiDocument } from '../openapi/document.js'
import type { RootDescriptor } from '../openapi/root-descriptor.js'
import type {
  CategoryList,
  EventList,
  EventResource,
  OrganizerList,
  OrganizerResource,
  TagList,
  TermResource,
  VenueList,
  VenueResource,
} from '../openapi/resource-types.js'
import type {
  CallOptions,
  CreateOptions,
  EventFeedQuery,
  EventInput,
  EventListQuery,
  FollowingInput,
  LinkedListQuery,
  OccurrenceInput,
  OrganizerInput,
  TermInput,
  TermListQuery,
  VenueInput,
} from './script-inputs.js'

type Query = Record<string, unknown>
type Body = Record<string, unknown>

/** The typed script API of one resource with by-id and by-slug routes. */
export interface PostResourceApi<T, L, Q = Query, I = Body> {
  list(query?: Q, options?: CallOptions): Promise<L>
  get(id: number, options?: CallOptions & { password?: string }): Promise<T>
  getBySlug(slug: string, options?: CallOptions & { password?: string }): Promise<T>
  create(input: I, options?: CreateOptions): Promise<T>
  update(id: number, input: I, options?: CallOptions): Promise<T>
  updateBySlug(slug: string, input: I, options?: CallOptions): Promise<T>
  delete(id: number, options?: CallOptions): Promise<T>
  deleteBySlug(slug: string, options?: CallOptions): Promise<T>
}

/** The script API of events: the common resource calls plus the origin lookup (extension). */
export interface EventResourceApi extends PostResourceApi<EventResource, EventList, EventListQuery, EventInput> {
  /**
   * The event imported from `originUid` (its `origin_uid` write field, e.g. an iCalendar UID) in
   * the active language, or `undefined` when none exists or the caller may not see it. Trashed
   * events count: importers use this to skip or update instead of creating duplicates.
   */
  getByOrigin(originUid: string, options?: CallOptions): Promise<EventResource | undefined>
  /**
   * Writes many events (issue 33): each item an event input with its `origin_uid` (venues,
   * organizers and terms inline or by reference), in batches of `batchSize` per transaction. An
   * item whose origin id an event has updates it (or is skipped: `existing`); one in the trash is
   * left there. An item the calendar refuses is reported in `errors` and the rest goes on.
   */
  import(items: Iterable<EventInput> | AsyncIterable<EventInput>, options?: ImportOptions): Promise<ImportSummary>
  /**
   * Deletes one occurrence of a series (`DELETE /events/{id}/occurrences/{key}`): adds an EXDATE,
   * the series stays; answers the series.
   */
  deleteOccurrence(id: number, key: string, options?: CallOptions): Promise<EventResource>
  /**
   * One occurrence of a series (`GET /events/{id}/occurrences/{key}`): the series' fields with the
   * occurrence's own dates, `occurrence`, `series_id` and `original_start_date` (docs/recurrence.md).
   */
  getOccurrence(id: number, key: string, options?: CallOptions): Promise<EventResource>
  /**
   * Changes one occurrence of a series only (`PATCH /events/{id}/occurrences/{key}`); later series
   * edits leave it as it is. Answers the occurrence.
   */
  updateOccurrence(id: number, key: string, input: OccurrenceInput, options?: CallOptions): Promise<EventResource>
  /**
   * Changes occurrence `key` and every later one (`PATCH /events/{id}/occurrences/{key}/following`):
   * the series ends before it and a new series starts there with the change; answers the new
   * series (at the first occurrence: the whole series, edited). docs/recurrence.md.
   */
  updateFollowing(id: number, key: string, input: FollowingInput, options?: CallOptions): Promise<EventResource>
  /**
   * The iCalendar feed of the events `list(query)` would show the caller (`GET /events/ical`), as
   * text. A `key` in the query (a feed key) makes the key's user the caller, as over HTTP.
   */
  feed(query?: EventFeedQuery, options?: CallOptions): Promise<string>
  /** One event as an iCalendar file (`GET /events/{id}/ical`), readable exactly when `get(id)` is. */
  ical(id: number, options?: CallOptions & { password?: string; key?: string }): Promise<string>
}

/** The script API of venues and organizers: the common resource calls plus the bulk import. */
export interface LinkedResourceApi<T, L, I> extends PostResourceApi<T, L, LinkedListQuery, I> {
  /**
   * Writes many venues or organizers (issue 33): each item the fields of `create`, with an
   * optional `slug` it is found again by (and a new record takes), in batches of `batchSize` per
   * transaction. Found again (by `slug`, or without one by name as `create` reuses a record): updated
   * (or skipped: `existing`); one in the trash is left there. `ids` gives each item's record; an
   * item the calendar refuses is reported in `errors` and the rest goes on.
   */
  import(items: Iterable<I & { slug?: string }> | AsyncIterable<I & { slug?: string }>, options?: ImportOptions): Promise<LinkedImportSummary>
}

/** The typed script API of categories and tags (term ids only, no slugs routes). */
export interface TermResourceApi<T, L, Q = TermListQuery, I = TermInput> {
  list(query?: Q, options?: CallOptions): Promise<L>
  get(id: number, options?: CallOptions): Promise<T>
  create(input: I, options?: CreateOptions): Promise<T>
  update(id: number, input: I, options?: CallOptions): Promise<T>
  delete(id: number, options?: CallOptions): Promise<T>
}

/** Options of `calendar.events.import()` and of `venues.import()`/`organizers.import()`: the call's (`as`, `language`) and the batches'. */
export interface ImportOptions extends CallOptions, ImportBatchOptions {}

/** The typed script services of a calendar (and of `withTransaction`'s callback). */
export interface CalendarScripts {
  readonly events: EventResourceApi
  readonly venues: LinkedResourceApi<VenueResource, VenueList, VenueInput>
  readonly organizers: LinkedResourceApi<OrganizerResource, OrganizerList, OrganizerInput>
  readonly categories: TermResourceApi<TermResource, CategoryList>
  readonly tags: TermResourceApi<TermResource, TagList>
  /** The root descriptor (`GET /cal/events/v1`) and the OpenAPI document (`GET /cal/events/v1/doc`). */
  readonly discovery: { describe(options?: CallOptions): Promise<RootDescriptor>; openapi(options?: CallOptions): Promise<OpenApiDocument> }
  /** API tokens of the default authenticator. */
  readonly tokens: {
    /** Issues a token; `expires` (ISO 8601 date-time with a zone) makes it answer 401 from then on. */
    create(input: TokenInput): Promise<{ token: string; info: TokenInfo }>
    register(token: string, input: TokenInput): Promise<TokenInfo>
    list(): Promise<TokenInfo[]>
    revoke(idOrPrefix: number | string): Promise<boolean>
    hasAdmin(): Promise<boolean>
  }
  /** Private feed keys: a secret in a feed URL that shows what one user may see, on the feed routes only. */
  readonly feedKeys: {
    /** Issues a key for an existing user (`login` or `userId`); the key is returned once. */
    create(input: FeedKeyInput): Promise<{ key: string; info: FeedKeyInfo }>
    /** Every key (or one user's by login), newest first; never the secrets. */
    list(login?: string): Promise<FeedKeyInfo[]>
    /** Revokes a key by id, prefix or the whole key; false when none was live. */
    revoke(idPrefixOrKey: number | string): Promise<boolean>
  }
}
