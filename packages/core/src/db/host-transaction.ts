import { Kysely, PostgresDialect, type PostgresPoolClient } from 'kysely'
import pg from 'pg'
import type { DB } from './generated.js'
import type { HostClient, HostQueryConfig } from './host-pool.js'
import { calendarTypes } from './pg-types.js'
import { localSettings } from './schema.js'

// Script calls inside the host's own transaction (`calendar.withTransaction`, README "Embedding").
// Each call is a savepoint on the host's connection: it commits or rolls back with the host's
// transaction, and a call that fails is rolled back to its savepoint, leaving the host's transaction
// as it was and usable. The calendar's search path and statement timeout are set with SET LOCAL
// after the savepoint and put back to the host's values before it is released.

const SAVEPOINT = 'cal_call'
const PREVIOUS = `select current_setting('search_path') as search_path, current_setting('statement_timeout') as statement_timeout`
// Outside a transaction block: SAVEPOINT "can only be used in transaction blocks".
const NO_TRANSACTION = '25P01'

type Previous = { search_path: string; statement_timeout: string }

/** The error of a host client that is not inside a transaction. */
export function notInTransaction(cause: unknown): TypeError {
  return new TypeError('withTransaction needs a client inside a transaction: send BEGIN on it first.', { cause })
}

/**
 * A `Kysely<DB>` whose statements all run on `client`, a host's connection inside its transaction.
 * Each Kysely transaction on it is a savepoint that carries the calendar's settings; statements
 * are meant to run only inside such a transaction (`withTransaction` runs every call in one).
 */
export function hostTransactionDb(
  client: HostClient,
  schema: string,
  statementTimeoutMs: number,
  onQuery?: (sql: string, durationMs: number, parameters: readonly unknown[]) => void,
): Kysely<DB> {
  const settings = localSettings(schema, statementTimeoutMs)
  let previous: Previous | undefined
  const send = (config: HostQueryConfig) => client.query({ ...config, types: calendarTypes, query_timeout: statementTimeoutMs + 2_000 })
  async function begin(): Promise<unknown> {
    try {
      const results = (await send({ text: `savepoint ${SAVEPOINT}; ${PREVIOUS}; ${settings}` })) as { rows: Previous[] }[]
      previous = results[1]!.rows[0]
    } catch (err) {
      if ((err as { code?: string }).code === NO_TRANSACTION) throw notInTransaction(err)
      throw err
    }
    return { command: 'BEGIN', rowCount: null, rows: [] }
  }
  async function commit(): Promise<unknown> {
    const { search_path: path, statement_timeout: timeout } = previous!
    previous = undefined
    // Local values equal to the host's: its later statements in this transaction see its own.
    await send({
      text: `select set_config('search_path', ${pg.escapeLiteral(path)}, true), set_config('statement_timeout', ${pg.escapeLiteral(timeout)}, true); release savepoint ${SAVEPOINT}`,
    })
    return { command: 'COMMIT', rowCount: null, rows: [] }
  }
  async function rollback(): Promise<unknown> {
    previous = undefined
    // Rolling back to the savepoint undoes the SET LOCALs made after it too.
    await send({ text: `rollback to savepoint ${SAVEPOINT}; release savepoint ${SAVEPOINT}` })
    return { command: 'ROLLBACK', rowCount: null, rows: [] }
  }
  const connection = {
    query(text: string, parameters?: readonly unknown[]): Promise<unknown> {
      if (text === 'begin' || text.startsWith('start transaction')) return begin()
      if (text === 'commit') return commit()
      if (text === 'rollback') return rollback()
      return send({ text, values: [...(parameters ?? [])] })
    },
    // The connection is the host's: nothing to give back.
    release() {},
  } as unknown as PostgresPoolClient
  const dialect = new PostgresDialect({ pool: { connect: async () => connection, end: async () => {} } })
  return new Kysely<DB>({
    dialect,
    ...(onQuery ? { log: (event) => onQuery(event.query.sql, event.queryDurationMillis, event.query.parameters) } : {}),
  })
}
