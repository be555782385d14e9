import { buildUrls, NAMESPACE, type CallContext } from './api/context.js'
import { languageArgs } from './api/language-arg.js'
import { invoke, type Operation } from './api/operation.js'
import { SYSTEM_PRINCIPAL, type Principal, type Role } from './auth/principal.js'
import { createToken, hasAdminToken, listTokens, registerToken, revokeToken, type TokenInfo } from './auth/tokens.js'
import { resolveOptions, type CalendarOptions, type ResolvedOptions } from './config/options.js'
import { keepPruning } from './changes/change-log.js'
import { waitForDatabase } from './db/connect.js'
import { openDatabase, type DatabaseHandle } from './db/create-db.js'
import { checkHealth, type HealthReport, type PoolStats } from './db/health.js'
import { migrateToLatest, type MigrationReport } from './db/migrate.js'
import { activeLanguage, createDispatcher } from './http/dispatch.js'
import { toErrorResponse } from './http/error-response.js'
import type { CalendarRequest, CalendarResponse } from './http/request.js'
import { compileRoute, type RouteDef } from './http/routes.js'
import { eventOperations, eventRoutes } from './events/event.routes.js'
import { icalOperations, icalRoutes } from './ical/ical.routes.js'
import { ORGANIZER, VENUE } from './linked/kinds.js'
import { linkedOperations, linkedRoutes } from './linked/linked.routes.js'
import { termOperations, termRoutes } from './terms/term.routes.js'
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

type Query = Record<string, unknown>
type Body = Record<string, unknown>
type Json = Record<string, any>

/** The typed script API of one resource with by-id and by-slug routes. */
export interface PostResourceApi<T, L> {
  list(query?: Query, options?: CallOptions): Promise<L>
  get(id: number, options?: CallOptions & { password?: string }): Promise<T>
  getBySlug(slug: string, options?: CallOptions & { password?: string }): Promise<T>
  create(input: Body, options?: CallOptions): Promise<T>
  update(id: number, input: Body, options?: CallOptions): Promise<T>
  updateBySlug(slug: string, input: Body, options?: CallOptions): Promise<T>
  delete(id: number, options?: CallOptions): Promise<T>
  deleteBySlug(slug: string, options?: CallOptions): Promise<T>
}

/** The script API of events: the common resource calls plus the origin lookup (extension). */
export interface EventResourceApi extends PostResourceApi<EventResource, EventList> {
  /**
   * The event imported from `originUid` (its `origin_uid` write field, e.g. an iCalendar UID) in
   * the active language, or `undefined` when none exists or the caller may not see it. Trashed
   * events count: importers use this to skip or update instead of creating duplicates.
   */
  getByOrigin(originUid: string, options?: CallOptions): Promise<EventResource | undefined>
  /** The iCalendar feed of the events `list(query)` would show the caller (`GET /events/ical`), as text. */
  feed(query?: Query, options?: CallOptions): Promise<string>
  /** One event as an iCalendar file (`GET /events/{id}/ical`), readable exactly when `get(id)` is. */
  ical(id: number, options?: CallOptions & { password?: string }): Promise<string>
}

/** The typed script API of categories and tags (term ids only, no slugs routes). */
export interface TermResourceApi<T, L> {
  list(query?: Query, options?: CallOptions): Promise<L>
  get(id: number, options?: CallOptions): Promise<T>
  create(input: Body, options?: CallOptions): Promise<T>
  update(id: number, input: Body, options?: CallOptions): Promise<T>
  delete(id: number, options?: CallOptions): Promise<T>
}

/** A running calendar: HTTP-neutral handler, route table and typed services. */
export interface Calendar {
  readonly options: ResolvedOptions
  /** Routes in registration order; every adapter and the root descriptor use this table. */
  readonly routes: readonly RouteDef[]
  /** Answers one framework-neutral request; never rejects. */
  handle(request: CalendarRequest): Promise<CalendarResponse>
  /** Turns anything thrown into the contract's error response; given the request, with the CORS and compatibility-path headers its answers get. */
  toErrorResponse(err: unknown, request?: CalendarRequest): CalendarResponse
  readonly events: EventResourceApi
  readonly venues: PostResourceApi<VenueResource, VenueList>
  readonly organizers: PostResourceApi<OrganizerResource, OrganizerList>
  readonly categories: TermResourceApi<TermResource, CategoryList>
  readonly tags: TermResourceApi<TermResource, TagList>
  /** The root descriptor (`GET /cal/events/v1`) and the OpenAPI document (`GET /cal/events/v1/doc`). */
  readonly discovery: { describe(options?: CallOptions): Promise<Json>; openapi(options?: CallOptions): Promise<Json> }
  /** API tokens of the default authenticator. */
  readonly tokens: {
    create(input: { role: Role; name?: string; login?: string }): Promise<{ token: string; info: TokenInfo }>
    register(token: string, input: { role: Role; name?: string; login?: string }): Promise<TokenInfo>
    list(): Promise<TokenInfo[]>
    revoke(idOrPrefix: number | string): Promise<boolean>
    hasAdmin(): Promise<boolean>
  }
  /**
   * Readiness: whether the database answers (within `timeoutMs`, default 2 s) and every migration
   * is applied, plus pool usage. Never throws; for `/readyz` probes and metrics.
   */
  health(timeoutMs?: number): Promise<HealthReport>
  /** Connections of the PostgreSQL pool right now (`undefined` for PGlite); no database round trip. */
  poolStats(): PoolStats | undefined
  /** Releases the database. */
  close(): Promise<void>
}

/** Opens the database, checks that it answers (a clear error if not) and optionally migrates it. */
async function openReady(options: ResolvedOptions, migrate: boolean): Promise<DatabaseHandle & { report?: MigrationReport }> {
  const handle = await openDatabase(options.database, options.onQuery, options.schema)
  try {
    if ('url' in options.database) await waitForDatabase(handle.db, options.database.url, options.database.startupWaitMs ?? 0)
    const report = migrate ? await migrateToLatest(handle.db, options.schema) : undefined
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
  const lang = languageArgs(options)
  const withLanguage = <O extends Operation<any, any, any>>(op: O): O => ({ ...op, args: { ...op.args, ...lang } })
  const wrap = <T extends Record<string, Operation<any, any, any>>>(ops: T): T =>
    Object.fromEntries(Object.entries(ops).map(([k, op]) => [k, withLanguage(op)])) as T

  const ns = `/${NAMESPACE}`
  const events = wrap(eventOperations(options.variant))
  const venues = wrap(linkedOperations(VENUE, options.variant))
  const organizers = wrap(linkedOperations(ORGANIZER, options.variant))
  const categories = wrap(termOperations('category', options.variant))
  const tags = wrap(termOperations('tag', options.variant))
  const ical = wrap(icalOperations(options.variant))
  const discovery = wrap(discoveryOperations(() => routes))
  const routes: RouteDef[] = [
    ...discoveryRoutes(discovery, ns),
    ...eventRoutes(events, ns),
    ...linkedRoutes(VENUE, venues, ns),
    ...linkedRoutes(ORGANIZER, organizers, ns),
    ...termRoutes('category', categories, ns),
    ...termRoutes('tag', tags, ns),
    ...icalRoutes(ical, ns),
  ]
  const dispatch = createDispatcher(routes.map(compileRoute), options, db)

  async function call<R = Json>(op: Operation<any, any, any> | undefined, raw: { path?: Record<string, string>; query?: Query; body?: Body }, opts: CallOptions = {}): Promise<R> {
    return (await callRaw(op, raw, opts)).body as R
  }

  /** A call whose answer is text (`stream`), joined. */
  async function callText(op: Operation<any, any, any>, raw: { path?: Record<string, string>; query?: Query }, opts: CallOptions = {}): Promise<string> {
    let text = ''
    for await (const chunk of (await callRaw(op, raw, opts)).stream ?? []) text += chunk
    return text
  }

  async function callRaw(op: Operation<any, any, any> | undefined, raw: { path?: Record<string, string>; query?: Query; body?: Body }, opts: CallOptions) {
    const query = raw.query ?? {}
    const body = raw.body ?? {}
    const path = raw.path ?? {}
    const merged = { ...query, ...body, ...path, ...(opts.language ? { ml_language: opts.language } : {}) }
    const ctx: CallContext = {
      principal: opts.as === undefined ? SYSTEM_PRINCIPAL : opts.as,
      client: '',
      language: activeLanguage(options, merged.ml_language),
      now: options.now(),
      urls: buildUrls(options.publicBaseUrl, options.publicBaseUrl, ''),
      options,
      db,
      raw: { path, query, body },
    }
    if (!op) throw new TypeError('This operation is not available.')
    return invoke(op, merged, ctx)
  }

  const pathOf = (key: 'id' | 'slug', value: number | string) => ({ [key]: String(value) })
  type Ops = Record<string, Operation<any, any, any>>
  const postApi = <T, L>(ops: Ops): PostResourceApi<T, L> => ({
    list: (query, o) => call(ops.list, { query }, o),
    get: (id, o) => call(ops.get, { path: pathOf('id', id), query: o?.password ? { password: o.password } : {} }, o),
    getBySlug: (slug, o) => call(ops.getBySlug, { path: pathOf('slug', slug), query: o?.password ? { password: o.password } : {} }, o),
    create: (body, o) => call(ops.create, { body }, o),
    update: (id, body, o) => call(ops.update, { path: pathOf('id', id), body }, o),
    updateBySlug: (slug, body, o) => call(ops.updateBySlug, { path: pathOf('slug', slug), body }, o),
    delete: (id, o) => call(ops.delete, { path: pathOf('id', id) }, o),
    deleteBySlug: (slug, o) => call(ops.deleteBySlug, { path: pathOf('slug', slug) }, o),
  })
  const termApi = <T, L>(ops: Ops): TermResourceApi<T, L> => ({
    list: (query, o) => call(ops.list, { query }, o),
    get: (id, o) => call(ops.get, { path: pathOf('id', id) }, o),
    create: (body, o) => call(ops.create, { body }, o),
    update: (id, body, o) => call(ops.update, { path: pathOf('id', id), body }, o),
    delete: (id, o) => call(ops.delete, { path: pathOf('id', id) }, o),
  })

  return {
    options,
    routes,
    handle: dispatch.handle,
    toErrorResponse: (err, request) => {
      const response = toErrorResponse(err, options.onError)
      return request ? dispatch.finish(request, response) : response
    },
    events: {
      ...postApi<EventResource, EventList>(events),
      getByOrigin: (originUid, o) => call<EventResource | undefined>(events.getByOrigin, { query: { origin_uid: originUid } }, o),
      feed: (query, o) => callText(ical.feed, { query }, o),
      ical: (id, o) => callText(ical.byId, { path: pathOf('id', id), query: o?.password ? { password: o.password } : {} }, o),
    },
    venues: postApi(venues),
    organizers: postApi(organizers),
    categories: termApi(categories),
    tags: termApi(tags),
    discovery: {
      describe: (o) => call(discovery.root, {}, o),
      openapi: (o) => call(discovery.doc, {}, o),
    },
    tokens: {
      create: (i) => createToken(db, i),
      register: (token, i) => registerToken(db, token, i),
      list: () => listTokens(db),
      revoke: (idOrPrefix) => revokeToken(db, idOrPrefix),
      hasAdmin: () => hasAdminToken(db),
    },
    health: (timeoutMs = 2000) => checkHealth(db, options.schema, timeoutMs, handle.poolStats),
    poolStats: () => handle.poolStats?.(),
    close: () => {
      stopPruning()
      return handle.close()
    },
  }
}
