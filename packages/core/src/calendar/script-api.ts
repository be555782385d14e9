// The script API's resource objects: each call runs the request pipeline's call steps (idempotency,
// operation) as an HTTP request does, behind a context step of its own instead of the HTTP steps,
// on the database a `Using` gives (the calendar's own, or a savepoint in a host's transaction).
import type { Kysely } from 'kysely'
import { buildCallContext, NAMESPACE } from '../api/context.js'
import { idempotencyFingerprint, type Fingerprint } from '../api/idempotency.js'
import { refuseUnknownParams, type AnyOperation, type ArgInput, type ArgsRecord, type Operation } from '../api/operation.js'
import { createFeedKey, listFeedKeys, resolveFeedKey, revokeFeedKey } from '../auth/feed-keys.js'
import { SYSTEM_PRINCIPAL } from '../auth/principal.js'
import { createToken, hasAdminToken, listTokens, registerToken, revokeToken } from '../auth/tokens.js'
import type { ResolvedOptions } from '../config/options.js'
import type { DB } from '../db/generated.js'
import { idempotencyStep } from '../http/pipeline/idempotency.js'
import { operationStep } from '../http/pipeline/operation.js'
import { need, runSteps, type CallExchange, type Step } from '../http/pipeline/step.js'
import type { HostClient } from '../db/host-pool.js'
import { hostTransactionDb } from '../db/host-transaction.js'
import { importEvents } from '../events/event-import.js'
import type { ImportBatchOptions, ImportDeps } from '../api/import-batches.js'
import { ORGANIZER, VENUE } from '../linked/kinds.js'
import { importLinked } from '../linked/linked-import.js'
import type { EventList, EventResource } from '../openapi/resource-types.js'
import type { CallOptions, CreateOptions, InputOf, WithLanguage } from './script-inputs.js'
import type { ImportOptions } from './script-types.js'
import type { CalendarScripts, PostResourceApi, TermResourceApi } from './script-types.js'
import type { CalendarOperations } from './wiring.js'

type Query = Record<string, unknown>
type Body = Record<string, unknown>
/** One script call's parameters, typed by the operation's declarations (so internal calls are checked too). */
type RawCall<A extends ArgsRecord> = { path?: Record<string, string>; query?: WithLanguage<ArgInput<A>>; body?: WithLanguage<ArgInput<A>> }

/** The operations behind a `PostResourceApi`. */
type PostOps = Record<'list' | 'get' | 'getBySlug' | 'create' | 'update' | 'updateBySlug' | 'delete' | 'deleteBySlug', AnyOperation>
/** The operations behind a `TermResourceApi`. */
type TermOps = Record<'list' | 'get' | 'create' | 'update' | 'delete', AnyOperation>

/** One script call on its way through its steps. */
interface ScriptExchange extends CallExchange {
  readonly raw: RawCall<ArgsRecord>
  /** The `language` call option (variant B). */
  readonly language: string | undefined
}

/** Runs one script call on a database: the calendar's own, or a savepoint in a host's transaction. */
export type Using = <T>(fn: (db: Kysely<DB>) => Promise<T>) => Promise<T>

/** What the script API needs of a calendar. */
export interface ScriptHost {
  readonly options: ResolvedOptions
  readonly operations: CalendarOperations
  /** Resolves once the start-up work every call waits for is done (the occurrence horizon). */
  ready(): Promise<void>
}

/** The script services of a calendar, built for each `Using` (its own database, or a host's transaction). */
export function scriptApi(host: ScriptHost): (using: Using) => CalendarScripts {
  const { options, operations } = host
  const { events, venues, organizers, categories, tags, ical, discovery } = operations
  const ns = `/${NAMESPACE}`

  /**
   * The script API's front door, in place of the HTTP steps: the parameters as given (an unknown
   * name is a typo: a 400, where over HTTP it has no effect, CONTRACT 1.1) and the call's context.
   */
  const scriptContext: Step<ScriptExchange> = {
    name: 'script context',
    async run(x, next) {
      const op = x.operation
      if (!op) throw new TypeError('This operation is not available.')
      const query = (x.raw.query ?? {}) as Query
      const body = (x.raw.body ?? {}) as Body
      refuseUnknownParams([...Object.keys(query), ...Object.keys(body)], (name) => Object.hasOwn(op.args, name) || op.readsRaw?.includes(name) === true)
      const source = { principal: x.principal, raw: { path: x.raw.path ?? {}, query, body }, language: x.language, origin: options.publicBaseUrl }
      const { ctx, params } = buildCallContext(source, options, x.db)
      // On the calendar's own database, also for a call in a host's transaction: the horizon it
      // moves must not roll back with the host.
      await host.ready()
      x.ctx = ctx
      x.params = params
      await next()
    },
  }
  /** A script call's steps: the request pipeline's call steps around the script's own context step. */
  const steps: readonly Step<ScriptExchange>[] = [idempotencyStep, scriptContext, operationStep]

  async function callRaw<A extends ArgsRecord>(db: Kysely<DB>, op: Operation<A, unknown, unknown> | undefined, raw: RawCall<A>, opts: CallOptions, idempotencyKey?: { key: string; fingerprint: Fingerprint }) {
    const principal = opts.as === undefined ? SYSTEM_PRINCIPAL : opts.as
    const x: ScriptExchange = { db, principal, operation: op, raw, language: opts.language, idempotencyKey }
    await runSteps(steps, x)
    return need(x.result, 'the result')
  }

  /** The script services, each call run by `using` on the database it is given (`withTransaction`: the host's transaction). */
  function scripts(using: Using): CalendarScripts {
    async function call<R, A extends ArgsRecord = ArgsRecord>(op: Operation<A, unknown, unknown> | undefined, raw: RawCall<A>, opts: CallOptions = {}): Promise<R> {
      return using(async (db) => (await callRaw(db, op, raw, opts)).body as R)
    }

    /** A create; with a key, run once per caller and key as over HTTP (`POST` of the same path and body). */
    async function create<R>(op: AnyOperation | undefined, collection: string, body: Body, opts: CreateOptions = {}): Promise<R> {
      const { idempotencyKey: key, ...callOpts } = opts
      if (key === undefined) return call<R>(op, { body }, callOpts)
      // The same key and fingerprint as a `POST` of the same path and body over HTTP.
      const asked = { key, fingerprint: idempotencyFingerprint('POST', `${ns}/${collection}`, body) }
      return using(async (db) => (await callRaw(db, op, { body }, callOpts, asked)).body as R)
    }

    /** A call whose answer is text (`stream`), joined; `key` (a feed key) makes the key's user the caller. */
    async function callText<A extends ArgsRecord>(op: Operation<A, unknown, unknown>, raw: RawCall<A>, key: unknown, opts: CallOptions = {}): Promise<string> {
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
    const passwordQuery = (op: AnyOperation | undefined, password: string | undefined) =>
      password && op && Object.hasOwn(op.args, 'password') ? { password } : {}

    /** A bulk import (`events.import()`, `venues.import()`, …): each batch with a fresh call context of the call's options. */
    function bulk<R>(
      run: (deps: ImportDeps, items: Iterable<Record<string, unknown>>, batches: ImportBatchOptions) => Promise<R>,
      items: Iterable<object> | AsyncIterable<object>,
      o: ImportOptions = {},
    ): Promise<R> {
      return using(async (db) => {
        await host.ready()
        const { as, language, ...batches } = o
        const principal = as === undefined ? SYSTEM_PRINCIPAL : as
        const source = { principal, raw: { path: {}, query: {}, body: {} }, language, origin: options.publicBaseUrl }
        return run({ db, context: () => buildCallContext(source, options, db).ctx }, items as Iterable<Record<string, unknown>>, batches)
      })
    }

    const pathOf = (key: 'id' | 'slug', value: number | string) => ({ [key]: String(value) })
    // The input types of the resource APIs come from the operations' own declarations (`InputOf`),
    // so `Calendar`'s declared input types are checked against them where the APIs are assembled
    // below. Inside, one loose `call` serves every operation (`Ops`): TypeScript cannot relate a
    // deferred `InputOf<O['create']>` to `O['create']`'s arguments.
    type Ops = Record<string, AnyOperation>
    const postApi = <T, L, O extends PostOps>(typed: O, collection: string): PostResourceApi<T, L, InputOf<O['list']>, InputOf<O['create']>> => {
      const ops: Ops = typed
      return {
        list: (query, o) => call(ops.list, { query }, o),
        get: (id, o) => call(ops.get, { path: pathOf('id', id), query: passwordQuery(ops.get, o?.password) }, o),
        getBySlug: (slug, o) => call(ops.getBySlug, { path: pathOf('slug', slug), query: passwordQuery(ops.getBySlug, o?.password) }, o),
        create: (body, o) => create<T>(ops.create, collection, body, o),
        update: (id, body, o) => call(ops.update, { path: pathOf('id', id), body }, o),
        updateBySlug: (slug, body, o) => call(ops.updateBySlug, { path: pathOf('slug', slug), body }, o),
        delete: (id, o) => call(ops.delete, { path: pathOf('id', id) }, o),
        deleteBySlug: (slug, o) => call(ops.deleteBySlug, { path: pathOf('slug', slug) }, o),
      }
    }
    const termApi = <T, L, O extends TermOps>(typed: O, collection: string): TermResourceApi<T, L, InputOf<O['list']>, InputOf<O['create']>> => {
      const ops: Ops = typed
      return {
        list: (query, o) => call(ops.list, { query }, o),
        get: (id, o) => call(ops.get, { path: pathOf('id', id) }, o),
        create: (body, o) => create<T>(ops.create, collection, body, o),
        update: (id, body, o) => call(ops.update, { path: pathOf('id', id), body }, o),
        delete: (id, o) => call(ops.delete, { path: pathOf('id', id) }, o),
      }
    }

    return {
      events: {
        ...postApi<EventResource, EventList, typeof events>(events, 'events'),
        getByOrigin: (originUid, o) => call(events.getByOrigin, { query: { origin_uid: originUid } }, o),
        import: (items, o) => bulk(importEvents, items, o),
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
      venues: { ...postApi(venues, 'venues'), import: (items, o) => bulk((deps, i, b) => importLinked(VENUE, deps, i, b), items, o) },
      organizers: { ...postApi(organizers, 'organizers'), import: (items, o) => bulk((deps, i, b) => importLinked(ORGANIZER, deps, i, b), items, o) },
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
  return scripts
}

/** Script calls inside the host's transaction on `client`, each a savepoint there (db/host-transaction.ts). */
export async function withHostTransaction<T>(
  options: ResolvedOptions,
  scripts: (using: Using) => CalendarScripts,
  client: HostClient,
  work: (calendar: CalendarScripts) => Promise<T>,
): Promise<T> {
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
