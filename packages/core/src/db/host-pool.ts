import type { PostgresPool, PostgresPoolClient } from 'kysely'
import { isDatabaseUnavailable } from './connection-errors.js'
import type { XactStatus, XactStatusProbe } from './commit-check.js'
import { calendarTypes } from './pg-types.js'
import { searchPathQuery } from './schema.js'
import { inlineParameters } from './inline-parameters.js'
import { SCHEMA_QUALIFIED, type ConfigClient, type ConfigPool } from './prepared-statements.js'
import { clientQuery } from './wrapped-pool.js'

// A host's own pg.Pool (`database: { pool }`, README "Embedding"). Its connections are the host's:
// the calendar borrows one per statement or transaction and gives it back as it came. The calendar's
// search_path and statement_timeout are set with SET LOCAL inside a transaction, so they end with it;
// nothing of the calendar's lives in the session, which a transaction-mode pooler could not keep
// anyway. Types are structural so that the public declarations need no @types/pg.

/** One statement as pg's `client.query(config)` takes it. */
export interface HostQueryConfig {
  text: string
  values?: unknown[]
  name?: string
  /** The calendar's type parsers, per query: the host's own parsers stay as the host set them. */
  types?: unknown
  /** Client-side give-up time (pg's `query_timeout`), per query. */
  query_timeout?: number
}

/** What the calendar uses of a host's pg client (`pg.PoolClient`, `pg.Client`). */
export interface HostClient {
  query(config: HostQueryConfig): Promise<unknown>
}

/** What the calendar uses of a checked-out client of the host's pool (`pg.PoolClient`). */
export interface HostPoolClient extends HostClient {
  release(err?: Error | boolean): void
  on(event: 'error', listener: (err: Error) => void): unknown
  removeListener(event: 'error', listener: (err: Error) => void): unknown
}

/** What the calendar uses of a host's `pg.Pool`: checkouts, and its counts for `poolStats()`. */
export interface HostPool {
  connect(): Promise<HostPoolClient>
  readonly totalCount: number
  readonly idleCount: number
  readonly waitingCount: number
}

/** One result of pg; a text of several statements answers an array of them. */
type PgResult = { command: string; rowCount: number | null; rows: unknown[] }

/**
 * A SELECT, whose transaction can end after its answer is used. The calendar's only SELECT that
 * writes is the change log's hourly pruning, whose commit nobody waits for.
 */
function isRead(result: unknown): boolean {
  return !Array.isArray(result) && (result as PgResult | undefined)?.command === 'SELECT'
}

/**
 * Longest statement sent in one message with its transaction, its parameters written in
 * (`inline-parameters.ts`): a statement this short costs less to parse each time than the two
 * round trips of a transaction around it. Longer ones (lists) keep their prepared plans.
 */
const ONE_MESSAGE_MAX = 400

/** Statements of the settings sent after BEGIN (`localSettingsPool`). */
const SETTINGS_STATEMENTS = 2

function isBegin(text: string): boolean {
  return text === 'begin' || text.startsWith('begin;') || text.startsWith('start transaction')
}

// A client that breaks while the calendar holds it emits 'error'; unheard, that kills the process.
// The statement in flight fails on its own (503). Listened to only while the calendar holds it.
const ignore = () => {}

/**
 * The host's pool seen as Kysely's pool: each statement gets the calendar's type parsers and
 * a client-side limit a little past `statementTimeoutMs`, and runs in a transaction that first sets
 * the calendar's search path and `statementTimeoutMs` with SET LOCAL. A Kysely transaction carries them in its BEGIN
 * message (no extra round trip). A short statement outside one is sent in one message with its
 * transaction (`oneMessageMax`, default `ONE_MESSAGE_MAX`); a longer one gets a transaction begun before it and committed
 * right after a write, at release after a read. One that fails rolls back at once, as autocommit
 * would have. One marked `SCHEMA_QUALIFIED` outside a transaction is sent alone, as it is. `pipelined`: the clients are pg clients in pipeline mode (`pipeline: true`), and a
 * named statement longer than `ONE_MESSAGE_MAX` outside a transaction is written between its BEGIN
 * and its COMMIT without waiting for their answers (one round trip, its plan kept). `end()` leaves
 * the host's pool open.
 */
export function localSettingsPool(pool: HostPool, schema: string, statementTimeoutMs: number, oneMessageMax = ONE_MESSAGE_MAX, pipelined = false): PostgresPool & ConfigPool {
  const queryTimeoutMs = statementTimeoutMs + 2_000
  // Utility statements, sent with BEGIN in one message: nothing to plan. The search path is asked
  // once (where pg_trgm lives does not move while the calendar runs).
  let settings: Promise<string> | undefined
  const settingsOn = (send: (config: HostQueryConfig) => Promise<unknown>): Promise<string> =>
    (settings ??= send({ text: searchPathQuery(schema) }).then(
      (result) => `set local search_path = ${(result as { rows: { search_path: string }[] }).rows[0]!.search_path}; set local statement_timeout = ${statementTimeoutMs}`,
      (err: unknown) => {
        settings = undefined
        throw err
      },
    ))
  /** Connections on their way back to the host (their transaction ending). */
  const releasing = new Set<Promise<void>>()
  type Wrapper = PostgresPoolClient & ConfigClient
  const wrappers = new WeakMap<HostPoolClient, Wrapper>()
  const wrap = (client: HostPoolClient): Wrapper => {
    let open: 'none' | 'implicit' | 'explicit' = 'none'
    let broken: Error | undefined
    const send = async (config: HostQueryConfig): Promise<unknown> => {
      try {
        return await client.query({ ...config, types: calendarTypes, query_timeout: queryTimeoutMs })
      } catch (err) {
        if (isDatabaseUnavailable(err)) broken = err as Error
        throw err
      }
    }
    async function run(config: HostQueryConfig): Promise<unknown> {
      const text = config.text
      if (isBegin(text)) {
        if (open === 'implicit') await end('commit')
        const results = (await begin(`${text}; ${await settingsOn(send)}`)) as PgResult[]
        open = 'explicit'
        // The caller's own statements' results, without the settings' two.
        const own = results.slice(0, -SETTINGS_STATEMENTS)
        return own.length === 1 ? own[0] : own
      }
      if (open === 'explicit') {
        if (text === 'commit' || text === 'rollback') open = 'none'
        return send(config)
      }
      if (open === 'none') {
        // It needs no search path, and without the transaction around it the server and a pooler
        // handle one statement instead of four (BEGIN and the settings, it, COMMIT). Only the change
        // check is one: it reads a few index pages, so it goes without the calendar's statement
        // timeout (the client's `query_timeout` still bounds the wait).
        // Unnamed, its parameters written in: one simple-protocol message instead of five
        // extended-protocol ones, which a pooler reads one by one.
        if (config.text.endsWith(SCHEMA_QUALIFIED)) {
          const whole = config.name === undefined ? inlineParameters(config.text, config.values ?? []) : undefined
          return send(whole === undefined ? config : { text: whole })
        }
        // A short one is cheaper in one message, parsed again (three messages cost the pooler more).
        if (pipelined && config.name !== undefined && config.text.length > ONE_MESSAGE_MAX) return pipelinedTransaction(config)
        const whole = config.text.length <= oneMessageMax ? inlineParameters(config.text, config.values ?? []) : undefined
        if (whole !== undefined) return oneMessage(whole)
        await begin(`begin; ${await settingsOn(send)}`)
        open = 'implicit'
      }
      let result: unknown
      try {
        result = await send(config)
      } catch (err) {
        await end('rollback').catch(() => {})
        throw err
      }
      // A write must be committed before its caller goes on (its next statement may run on another
      // connection); a read's transaction is ended at release, off the caller's path.
      if (!isRead(result)) await end('commit')
      return result
    }
    /** A short statement with its transaction and settings in one message: one round trip, as on the calendar's own pool. */
    async function oneMessage(statement: string): Promise<unknown> {
      try {
        const results = (await send({ text: `begin; ${await settingsOn(send)}; ${statement}; commit` })) as PgResult[]
        return results[1 + SETTINGS_STATEMENTS]
      } catch (err) {
        // The message stops at the failing statement, inside the transaction it began.
        if (!broken) await send({ text: 'rollback' }).catch(() => {})
        throw err
      }
    }
    /**
     * A named statement with its transaction, settings and commit, written without waiting between
     * them on a pipelined client: one round trip, and the plan a pooler keeps for the name is used.
     * The server runs them in order: a failed BEGIN message (its settings) aborts the transaction,
     * so the statement fails too, and the COMMIT of an aborted transaction only rolls it back.
     */
    async function pipelinedTransaction(config: HostQueryConfig): Promise<unknown> {
      const begin = `begin; ${await settingsOn(send)}`
      const steps = await Promise.allSettled([send({ text: begin }), send(config), send({ text: 'commit' })])
      for (const step of steps) if (step.status === 'rejected') throw step.reason
      return (steps[1] as PromiseFulfilledResult<unknown>).value
    }
    /** Sends a BEGIN message; if a part of it fails, a transaction it opened must not reach the host. */
    async function begin(text: string): Promise<unknown> {
      try {
        return await send({ text })
      } catch (err) {
        if (!broken) await send({ text: 'rollback' }).catch(() => {})
        throw err
      }
    }
    async function end(how: 'commit' | 'rollback'): Promise<void> {
      open = 'none'
      await send({ text: how })
    }
    return {
      query: clientQuery((textOrCursor, parameters) => {
        if (typeof textOrCursor === 'string') return run({ text: textOrCursor, values: [...(parameters ?? [])] })
        // A config from the prepared-statement layer (`prepared-statements.ts`).
        if ('text' in textOrCursor && typeof textOrCursor.text === 'string') return run(textOrCursor as HostQueryConfig)
        throw new TypeError('Cursors are not supported on a host pool.')
      }) as Wrapper['query'],
      release() {
        const failed = broken
        broken = undefined
        const settle = open === 'none' || failed ? Promise.resolve() : end(open === 'implicit' ? 'commit' : 'rollback')
        open = 'none'
        // The host gets its connection back only once the calendar's transaction is over.
        const handedBack = settle.then(
          () => finish(client, failed),
          (err: Error) => finish(client, err),
        )
        releasing.add(handedBack)
        void handedBack.finally(() => releasing.delete(handedBack))
      },
    }
  }
  return {
    async connect() {
      const client = await pool.connect()
      client.on('error', ignore)
      let wrapper = wrappers.get(client)
      if (!wrapper) wrappers.set(client, (wrapper = wrap(client)))
      return wrapper
    },
    // The host's pool: the host closes it, once every connection is back (`calendar.close()`).
    end: async () => {
      await Promise.all([...releasing])
    },
  }
}

function finish(client: HostPoolClient, err: Error | undefined): void {
  client.removeListener('error', ignore)
  // A broken connection is destroyed rather than handed back to the host.
  client.release(err)
}

/**
 * Settles a lost commit's outcome (`commit-check.ts`) on a connection of the host's pool, never a
 * connection of its own beside it: the host's `max` holds. Gives up after `timeoutMs` (the pool
 * may be full); a connection that comes later is handed straight back.
 */
export function hostPoolProbe(pool: HostPool, timeoutMs: number): XactStatusProbe {
  return async (xid) => {
    let timer: NodeJS.Timeout | undefined
    const checkout = pool.connect()
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)))
    const client = await Promise.race([checkout.catch(() => undefined), timeout])
    clearTimeout(timer)
    if (!client) {
      checkout.then((late) => late.release(), () => {})
      return null
    }
    client.on('error', ignore)
    let failure: Error | undefined
    try {
      const { rows } = (await client.query({ text: 'select pg_xact_status($1::xid8) as status', values: [xid], query_timeout: timeoutMs })) as {
        rows: { status: XactStatus }[]
      }
      return rows[0]?.status ?? null
    } catch (err) {
      failure = err as Error
      return null
    } finally {
      finish(client, failure)
    }
  }
}
