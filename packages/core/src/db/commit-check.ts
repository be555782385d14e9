import type { PostgresCursor, PostgresPool, PostgresPoolClient } from 'kysely'
import pg from 'pg'
import { isDatabaseUnavailable } from './connection-errors.js'
import { PLAN_EACH_TIME } from './prepared-statements.js'
import { clientQuery, wrappedPool } from './wrapped-pool.js'

/** What PostgreSQL knows of a transaction (`pg_xact_status`); null when it cannot be asked. */
export type XactStatus = 'committed' | 'aborted' | 'in progress' | null

/** Asks what became of a transaction, on a connection of its own. */
export type XactStatusProbe = (xid: string) => Promise<XactStatus>

// Sent with `begin` as one simple-protocol message: the xid costs no extra round trip. The marker
// keeps the text from ever becoming a named prepared statement, which cannot hold two commands.
const WITH_XID = `; select pg_current_xact_id()::text as xid ${PLAN_EACH_TIME}`
// A backend killed while committing may still show its transaction as in progress for a moment.
const SETTLE_TRIES = 10
const SETTLE_PAUSE_MS = 200

function isBegin(text: string): boolean {
  return text === 'begin' || text.startsWith('start transaction')
}

/**
 * A pool whose transactions learn their xid at `begin`, so that a connection lost during `commit`
 * (the answer never came: committed or not?) is settled by asking `pg_xact_status` on another
 * connection. A commit PostgreSQL reports as done counts as done: the caller gets success, never a
 * 503 for a write that is in the database. Aborted or unknown: the connection error stands.
 */
export function commitCheckingPool(pool: PostgresPool, probe: XactStatusProbe): PostgresPool {
  return wrappedPool(pool, (client: PostgresPoolClient): PostgresPoolClient => {
    let xid: string | undefined
    async function begin(text: string): Promise<unknown> {
      xid = undefined
      const results = (await client.query(text + WITH_XID, [])) as unknown as { rows: { xid?: string }[] }[]
      xid = results[1]?.rows[0]?.xid
      return results[0]
    }
    async function commit(text: string, parameters: readonly unknown[]): Promise<unknown> {
      const pending = xid
      xid = undefined
      try {
        return await client.query(text, parameters)
      } catch (err) {
        if (pending === undefined || !isDatabaseUnavailable(err)) throw err
        if ((await settle(probe, pending)) !== 'committed') throw err
        return { command: 'COMMIT', rowCount: null, rows: [] }
      }
    }
    return {
      query: clientQuery((textOrCursor, parameters) => {
        if (typeof textOrCursor !== 'string') return client.query(textOrCursor as PostgresCursor<unknown>)
        if (isBegin(textOrCursor)) return begin(textOrCursor)
        if (textOrCursor === 'commit') return commit(textOrCursor, parameters ?? [])
        if (textOrCursor === 'rollback') xid = undefined
        return client.query(textOrCursor, parameters ?? [])
      }),
      release: () => client.release(),
    }
  })
}

async function settle(probe: XactStatusProbe, xid: string): Promise<XactStatus> {
  for (let attempt = 1; ; attempt++) {
    const status = await probe(xid)
    if (status !== 'in progress' || attempt >= SETTLE_TRIES) return status === 'in progress' ? null : status
    await new Promise((resolve) => setTimeout(resolve, SETTLE_PAUSE_MS))
  }
}

/** A probe that opens a fresh connection per question (the pool may be what failed, or full). */
export function freshConnectionProbe(config: pg.ClientConfig): XactStatusProbe {
  return async (xid) => {
    const client = new pg.Client(config)
    client.on('error', () => {})
    try {
      await client.connect()
      const { rows } = await client.query<{ status: XactStatus }>('select pg_xact_status($1::xid8) as status', [xid])
      return rows[0]?.status ?? null
    } catch {
      return null
    } finally {
      client.end().catch(() => {})
    }
  }
}
