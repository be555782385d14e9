import { buildCallContext, NAMESPACE } from './api/context.js'
import { languageArgs } from './api/language-arg.js'
import { idempotencyFingerprint, withIdempotencyKey, type IdempotencyClaim } from './api/idempotency.js'
import { invoke, type ArgInput, type ArgsRecord, type Operation } from './api/operation.js'
import { SYSTEM_PRINCIPAL, type Principal } from './auth/principal.js'
import { createFeedKey, listFeedKeys, resolveFeedKey, revokeFeedKey, type FeedKeyInfo, type FeedKeyInput } from './auth/feed-keys.js'
import { createToken, hasAdminToken, listTokens, registerToken, revokeToken, type TokenInfo, type TokenInput } from './auth/tokens.js'
import { resolveOptions, type CalendarOptions, type ResolvedOptions } from './config/options.js'
import { keepPruning } from './changes/change-log.js'
import { keepExtending } from './recurrence/occurrences.js'
import { waitForDatabase } from './db/connect.js'
import { openDatabase, type DatabaseHandle } from './db/create-db.js'
import type { DB } from './db/generated.js'
import type { HostClient } from './db/host-pool.js'
import { hostTransactionDb } from './db/host-transaction.js'
import type { Kysely } from 'kysely'
import { startLoopMonitor } from './shared/loop-delay.js'
import { createChangeValidator } from './http/response-cache.js'
import { createFeedBuilds } from './ical/feed-builds.js'
import { checkHealth, type HealthReport, type PoolStats } from './db/health.js'
import { assertMigrated, migrateToLatest, type MigrationReport } from './db/migrate.js'
import { createDispatcher } from './http/dispatch.js'
import { invalidParams } from './errors.js'
import type { EventListArgs } from './events/event.args.js'
import { eventWriteArgs } from './events/event.args.js'
import { linkedListArgs, type LinkedWriteArgs } from './linked/linked.args.js'
import { termListArgs, termWriteArgs } from './terms/term.args.js'
import { toErrorResponse } from './http/error-response.js'
import type { CachedAnswer, CalendarRequest, CalendarResponse } from './http/request.js'
import { compileRoute, syncRoutes, type RouteDef } from './http/routes.js'
import { followingArgs, overrideArgs } from './events/occurrence.operations.js'
import { eventOperations, eventRoutes, occurrenceRoutes } from './events/event.routes.js'
import { feedArgs } from './ical/ical.operations.js'
import { icalOperations, icalRoutes } from './ical/ical.routes.js'
import { ORGANIZER, VENUE, type OrganizerDetailArgs, type VenueDetailArgs } from './linked/kinds.js'
import { linkedOperations, linkedRoutes } from './linked/linked.routes.js'
import { termOperations, termRoutes } from './terms/term.routes.js'
import { CATEGORY, TAG } from './terms/taxonomies.js'
import { discoveryOperations, discoveryRoutes } from './openapi/routes.js'
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
} from './openapi/resource-types.js'

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

type Query = Record<string, unknown>
type Body = Record<string, unknown>
type Json = Record<string, any>
/** One script call's parameters, typed by the operation's declarations (so internal calls are checked too). */
type RawCall<A extends ArgsRecord> = { path?: Record<string, string>; query?: WithLanguage<ArgInput<A>>; body?: WithLanguage<ArgInput<A>> }

// Script inputs are typed from the argument declarations that validate HTTP input, so a misspelt
// field does not compile; at run time a name the operation does not declare is a 400 as well.

/** `ml_language`, which every call declares in variant B (the `language` call option sets it too). */
type WithLanguage<T> = T & { ml_language?: string }

/** What a script passes to `op`: its declared parameters' wire inputs (and `ml_language`). */
type InputOf<O> = O extends Operation<infer A, any, any> ? WithLanguage<ArgInput<A>> : never

type AnyOperation = Operation<any, any, any>
/** The operations behind a `PostResourceApi`. */
type PostOps = Record<'list' | 'get' | 'getBySlug' | 'create' | 'update' | 'updateBySlug' | 'delete' | 'deleteBySlug', AnyOperation>
/** The operations behind a `TermResourceApi`. */
type TermOps = Record<'list' | 'get' | 'create' | 'update' | 'delete', AnyOperation>

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

/** The typed script API of categories and tags (term ids only, no slugs routes). */
export interface TermResourceApi<T, L, Q = TermListQuery, I = TermInput> {
  list(query?: Q, options?: CallOptions): Promise<L>
  get(id: number, options?: CallOptions): Promise<T>
  create(input: I, options?: CreateOptions): Promise<T>
  update(id: number, input: I, options?: CallOptions): Promise<T>
  delete(id: number, options?: CallOptions): Promise<T>
}

/** The typed script services of a calendar (and of `withTransaction`'s callback). */
export interface CalendarScripts {
  readonly events: EventResourceApi
  readonly venues: PostResourceApi<VenueResource, VenueList, LinkedListQuery, VenueInput>
  readonly organizers: PostResourceApi<OrganizerResource, OrganizerList, LinkedListQuery, OrganizerInput>
  readonly categories: TermResourceApi<TermResource, CategoryList>
  readonly tags: TermResourceApi<TermResource, TagList>
  /** The root descriptor (`GET /cal/events/v1`) and the OpenAPI document (`GET /cal/events/v1/doc`). */
  readonly discovery: { describe(options?: CallOptions): Promise<Json>; openapi(options?: CallOptions): Promise<Json> }
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

/** Runs one script call on a database: the calendar's own, or a savepoint in a host's transaction. */
type Using = <T>(fn: (db: Kysely<DB>) => Promise<T>) => Promise<T>

/** A running calendar: HTTP-neutral handler, route table and typed services. */
export interface Calendar extends CalendarScripts {
  readonly options: ResolvedOptions
  /** Routes in registration order; every adapter and the root descriptor use this table. */
  readonly routes: readonly RouteDef[]
  /** Answers one framework-neutral request; never rejects. */
  handle(request: CalendarRequest): Promise<CalendarResponse>
  /**
   * The hot-read cache's fast path (docs/response-cache.md): for an anonymous GET/HEAD whose answer
   * is kept and still valid, that answer ready to write; `undefined` (at once, or once the shared
   * check is done) when the request must go to `handle`. An adapter calls it before its own routing.
   * `client`, `body` and `native` of the request are not read. Never rejects.
   */
  cachedAnswer(request: CalendarRequest): Promise<CachedAnswer | undefined> | undefined
  /** Turns anything thrown into the contract's error response; given the request, with the CORS and compatibility-path headers its answers get. */
  toErrorResponse(err: unknown, request?: CalendarRequest): CalendarResponse
  /**
   * Runs `work` with the script services inside the host's own transaction on `client` (a
   * `pg.PoolClient` or `pg.Client` after BEGIN): the calendar's writes commit or roll back with
   * the host's, and its reads see the transaction's writes. Each call is a savepoint: one that
   * fails is undone and leaves the host's transaction usable. The host commits or rolls back after
   * `work`; the services given to `work` refuse calls once it has returned. README "Embedding".
   *
   * @example
   * await client.query('begin')
   * const event = await calendar.withTransaction(client, (cal) => cal.events.create(input))
   * await client.query('insert into orders (event_id) values ($1)', [event.id])
   * await client.query('commit')
   */
  withTransaction<T>(client: HostClient, work: (calendar: CalendarScripts) => Promise<T>): Promise<T>
  /**
   * Readiness: whether the database answers (within `timeoutMs`, default 2 s) and every migration
   * is applied, plus pool usage. Never throws; for `/readyz` probes and metrics.
   */
  health(timeoutMs?: number): Promise<HealthReport>
  /** Connections of the PostgreSQL pool right now (`undefined` for PGlite); no database round trip. */
  poolStats(): PoolStats | undefined
  /**
   * Does now the start-up work the first call would otherwise do (moving the stored occurrence
   * horizon of recurring events): a server calls it before listening, so no request pays for it.
   */
  warmUp(): Promise<void>
  /** Releases the database. */
  close(): Promise<void>
}

/** Opens the database, checks that it answers (a clear error if not) and optionally migrates it. */
async function openReady(options: ResolvedOptions, migrate: boolean): Promise<DatabaseHandle & { report?: MigrationReport }> {
  const handle = await openDatabase(options.database, options.onQuery, options.schema)
  try {
    if ('url' in options.database) await waitForDatabase(handle.db, options.database.url, options.database.startupWaitMs ?? 0)
    const report = migrate ? await migrateToLatest(handle.db, options.schema) : undefined
    if (!migrate) await assertMigrated(handle.db, options.schema)
    return { ...handle, report }
  } catch (err) {
    await handle.close().catch(() => {})
    throw err
  }
}

/**
 * Applies pending migrations and closes the database again: for deployments that migrate once
 * before starting instances with `migrate: false`.
 *
 * @example
 * const { applied } = await migrateCalendar({ database: { url: process.env.DATABASE_URL! } })
 */
export async function migrateCalendar(input: CalendarOptions = {}): Promise<MigrationReport> {
  const handle = await openReady(resolveOptions(input), true)
  await handle.close()
  return handle.report!
}

/**
 * Opens the database (running migrations) and returns the calendar.
 *
 * @example
 * const calendar = await createCalendar({ database: { url: process.env.DATABASE_URL! } })
 * const event = await calendar.events.create({ title: 'Open day', start_date: '2027-06-01 10:00:00', end_date: '2027-06-01 16:00:00' })
 * await calendar.close()
 */
export async function createCalendar(input: CalendarOptions = {}): Promise<Calendar> {
  const options = resolveOptions(input)
  const handle = await openReady(options, options.migrate)
  const db = handle.db
  const stopPruning = keepPruning(db)
  // Probes report the loop's delay since the calendar started, not since the first probe.
  startLoopMonitor()
  // Open-ended series' stored occurrences follow the clock (docs/recurrence.md).
  const extending = keepExtending(db, options.now)
  const lang = languageArgs(options)
  const withLanguage = <O extends Operation<any, any, any>>(op: O): O => ({ ...op, args: { ...op.args, ...lang } })
  const wrap = <T extends Record<string, Operation<any, any, any>>>(ops: T): T =>
    Object.fromEntries(Object.entries(ops).map(([k, op]) => [k, withLanguage(op)])) as T

  const ns = `/${NAMESPACE}`
  const events = wrap(eventOperations(options.variant))
  const venues = wrap(linkedOperations(VENUE, options.variant))
  const organizers = wrap(linkedOperations(ORGANIZER, options.variant))
  const categories = wrap(termOperations(CATEGORY, options.variant))
  const tags = wrap(termOperations(TAG, options.variant))
  // One chain of change checks for the hot-read cache and the kept feeds.
  const validator = createChangeValidator(db)
  const ical = wrap(icalOperations(options.variant, createFeedBuilds(options.feeds, validator)))
  const discovery = wrap(discoveryOperations(() => routes))
  const routes: RouteDef[] = [
    ...discoveryRoutes(discovery, ns),
    ...eventRoutes(events, ns),
    ...linkedRoutes(VENUE, venues, ns),
    ...linkedRoutes(ORGANIZER, organizers, ns),
    ...termRoutes(CATEGORY, categories, ns),
    ...termRoutes(TAG, tags, ns),
    ...icalRoutes(ical, ns),
    ...occurrenceRoutes(events, ns),
    ...syncRoutes([
      { path: `${ns}/events`, sync: events.sync },
      { path: `${ns}/venues`, sync: venues.sync },
      { path: `${ns}/organizers`, sync: organizers.sync },
    ]),
  ]
  const dispatch = createDispatcher(routes.map(compileRoute), options, db, validator)

  async function callRaw<A extends ArgsRecord>(db: Kysely<DB>, op: Operation<A, any, any> | undefined, raw: RawCall<A>, opts: CallOptions, idempotency?: IdempotencyClaim) {
    if (!op) throw new TypeError('This operation is not available.')
    const query = (raw.query ?? {}) as Query
    const body = (raw.body ?? {}) as Body
    // Over HTTP an unknown parameter has no effect (CONTRACT 1.1); from a script it is a typo.
    const unknown = [...Object.keys(query), ...Object.keys(body)].filter((name) => !Object.hasOwn(op.args, name) && !op.readsRaw?.includes(name))
    if (unknown.length > 0) throw invalidParams(Object.fromEntries(unknown.map((name) => [name, 'Unknown parameter.'])))
    const principal = opts.as === undefined ? SYSTEM_PRINCIPAL : opts.as
    const source = { principal, raw: { path: raw.path ?? {}, query, body }, language: opts.language, origin: options.publicBaseUrl }
    const { ctx, params } = buildCallContext(source, options, db)
    // On the calendar's own database, also for a call in a host's transaction: the horizon it
    // moves must not roll back with the host.
    await extending.ready()
    return invoke(op, params, idempotency ? { ...ctx, idempotency } : ctx)
  }

  /** The script services, each call run by `using` on the database it is given (`withTransaction`: the host's transaction). */
  function scripts(using: Using): CalendarScripts {
    async function call<R = Json, A extends ArgsRecord = ArgsRecord>(op: Operation<A, any, any> | undefined, raw: RawCall<A>, opts: CallOptions = {}): Promise<R> {
      return using(async (db) => (await callRaw(db, op, raw, opts)).body as R)
    }

    /** A create; with a key, run once per caller and key as over HTTP (`POST` of the same path and body). */
    async function create(op: Operation<any, any, any> | undefined, collection: string, body: Body, opts: CreateOptions = {}): Promise<Json> {
      const { idempotencyKey: key, ...callOpts } = opts
      const principal = opts.as === undefined ? SYSTEM_PRINCIPAL : opts.as
      if (key === undefined || !principal) return call(op, { body }, callOpts)
      const fingerprint = idempotencyFingerprint('POST', `${ns}/${collection}`, body)
      return using(async (db) => {
        const result = await withIdempotencyKey(db, principal.id, key, fingerprint, (idempotency) => callRaw(db, op, { body }, callOpts, idempotency))
        return result.body as Json
      })
    }

    /** A call whose answer is text (`stream`), joined; `key` (a feed key) makes the key's user the caller. */
    async function callText<A extends ArgsRecord>(op: Operation<A, any, any>, raw: RawCall<A>, key: unknown, opts: CallOptions = {}): Promise<string> {
      return using(async (db) => {
        let text = ''
        for await (const chunk of (await callRaw(db, op, raw, await keyed(db, key, opts))).stream ?? []) text += chunk
        return text
      })
    }

    /** The options of a call made with a feed key: its user is the caller (an `as` as well is a mistake). */
    async function keyed(db: Kysely<DB>, key: unknown, opts: CallOptions = {}): Promise<CallOptions> {
      if (key === undefined) return opts
      if (opts.as !== undefined) throw new TypeError('Give a feed key or `as`, not both.')
      return { ...opts, as: await resolveFeedKey(db, key) }
    }
    /** `password` of a read, where the operation declares one (variant B). */
    const passwordQuery = (op: Operation<any, any, any> | undefined, password: string | undefined) =>
      password && op && Object.hasOwn(op.args, 'password') ? { password } : {}

    const pathOf = (key: 'id' | 'slug', value: number | string) => ({ [key]: String(value) })
    // The input types of the resource APIs come from the operations' own declarations (`InputOf`),
    // so `Calendar`'s declared input types are checked against them where the APIs are assembled
    // below. Inside, one loose `call` serves every operation: TypeScript cannot relate a deferred
    // `InputOf<O['create']>` to `O['create']`'s arguments, hence the `Query` casts.
    type Ops = Record<string, Operation<any, any, any>>
    const postApi = <T, L, O extends PostOps>(typed: O, collection: string): PostResourceApi<T, L, InputOf<O['list']>, InputOf<O['create']>> => {
      const ops: Ops = typed
      return {
        list: (query, o) => call(ops.list, { query: query as Query }, o),
        get: (id, o) => call(ops.get, { path: pathOf('id', id), query: passwordQuery(ops.get, o?.password) }, o),
        getBySlug: (slug, o) => call(ops.getBySlug, { path: pathOf('slug', slug), query: passwordQuery(ops.getBySlug, o?.password) }, o),
        create: (body, o) => create(ops.create, collection, body as Body, o) as Promise<T>,
        update: (id, body, o) => call(ops.update, { path: pathOf('id', id), body: body as Body }, o),
        updateBySlug: (slug, body, o) => call(ops.updateBySlug, { path: pathOf('slug', slug), body: body as Body }, o),
        delete: (id, o) => call(ops.delete, { path: pathOf('id', id) }, o),
        deleteBySlug: (slug, o) => call(ops.deleteBySlug, { path: pathOf('slug', slug) }, o),
      }
    }
    const termApi = <T, L, O extends TermOps>(typed: O, collection: string): TermResourceApi<T, L, InputOf<O['list']>, InputOf<O['create']>> => {
      const ops: Ops = typed
      return {
        list: (query, o) => call(ops.list, { query: query as Query }, o),
        get: (id, o) => call(ops.get, { path: pathOf('id', id) }, o),
        create: (body, o) => create(ops.create, collection, body as Body, o) as Promise<T>,
        update: (id, body, o) => call(ops.update, { path: pathOf('id', id), body: body as Body }, o),
        delete: (id, o) => call(ops.delete, { path: pathOf('id', id) }, o),
      }
    }

    return {
      events: {
        ...postApi<EventResource, EventList, typeof events>(events, 'events'),
        getByOrigin: (originUid, o) => call(events.getByOrigin, { query: { origin_uid: originUid } }, o),
        updateOccurrence: (id, key, body, o) => call(events.updateOccurrence, { path: { id: String(id), key }, body }, o),
        updateFollowing: (id, key, body, o) => call(events.updateFollowing, { path: { id: String(id), key }, body }, o),
        deleteOccurrence: (id, key, o) => call(events.deleteOccurrence, { path: { id: String(id), key } }, o),
        getOccurrence: (id, key, o) => call(events.getOccurrence, { path: { id: String(id), key } }, o),
        feed: (query = {}, o) => {
          const { key, ...rest } = query
          return callText(ical.feed, { query: rest }, key, o)
        },
        ical: (id, o) => callText(ical.byId, { path: pathOf('id', id), query: passwordQuery(ical.byId, o?.password) }, o?.key, o),
      },
      venues: postApi(venues, 'venues'),
      organizers: postApi(organizers, 'organizers'),
      categories: termApi(categories, 'categories'),
      tags: termApi(tags, 'tags'),
      discovery: {
        describe: (o) => call(discovery.root, {}, o),
        openapi: (o) => call(discovery.doc, {}, o),
      },
      tokens: {
        create: (i) => using((db) => createToken(db, i)),
        register: (token, i) => using((db) => registerToken(db, token, i)),
        list: () => using((db) => listTokens(db)),
        revoke: (idOrPrefix) => using((db) => revokeToken(db, idOrPrefix)),
        hasAdmin: () => using((db) => hasAdminToken(db)),
      },
      feedKeys: {
        create: (input) => using((db) => createFeedKey(db, input)),
        list: (login) => using((db) => listFeedKeys(db, login === undefined ? {} : { login })),
        revoke: (which) => using((db) => revokeFeedKey(db, which)),
      },
    }
  }

  /** Script calls inside the host's transaction on `client`, each a savepoint there (db/host-transaction.ts). */
  async function withTransaction<T>(client: HostClient, work: (calendar: CalendarScripts) => Promise<T>): Promise<T> {
    if (!client || typeof (client as { query?: unknown }).query !== 'function') {
      throw new TypeError('withTransaction takes a pg client (a pg.PoolClient or pg.Client) inside a transaction.')
    }
    const timeoutMs = 'statementTimeoutMs' in options.database ? (options.database.statementTimeoutMs ?? 30_000) : 30_000
    const scoped = hostTransactionDb(client, options.schema, timeoutMs, options.onQuery)
    let open = true
    // One call at a time: the calls share the host's connection and savepoint name.
    let queue: Promise<unknown> = Promise.resolve()
    const using: Using = (fn) => {
      if (!open) return Promise.reject(new Error('A calendar of withTransaction was used after its callback ended.'))
      const run = queue.then(() => scoped.transaction().execute(fn))
      queue = run.catch(() => {})
      return run
    }
    try {
      return await work(scripts(using))
    } finally {
      open = false
      await queue
    }
  }

  const own = scripts((fn) => fn(db))
  return {
    options,
    routes,
    warmUp: () => extending.ready(),
    handle: async (request) => {
      await extending.ready()
      return dispatch.handle(request)
    },
    // A failed check (database away) sends the request the full way, which answers it (503).
    cachedAnswer: (request) => dispatch.cachedAnswer(request)?.catch(() => undefined),
    toErrorResponse: (err, request) => {
      const response = toErrorResponse(err, options.onError)
      return request ? dispatch.finish(request, response) : response
    },
    ...own,
    withTransaction,
    health: (timeoutMs = 2000) => checkHealth(db, options.schema, timeoutMs, handle.poolStats),
    poolStats: () => handle.poolStats?.(),
    close: async () => {
      stopPruning()
      await extending.stop()
      return handle.close()
    },
  }
}
