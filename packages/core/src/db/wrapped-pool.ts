import type { PostgresPool, PostgresPoolClient } from 'kysely'

/**
 * A pool that hands out each client of `pool` behind the wrapper `wrap` makes for it, the same
 * wrapper every time the client is checked out.
 */
export function wrappedPool<C extends object>(
  pool: { connect(): Promise<C>; end(): Promise<void> },
  wrap: (client: C) => PostgresPoolClient,
): PostgresPool {
  // Kysely keeps one connection object per client it is handed, so hand it the same wrapper; and
  // a wrapper's own state (a transaction's xid) belongs to its one connection.
  const wrappers = new WeakMap<C, PostgresPoolClient>()
  return {
    async connect() {
      const client = await pool.connect()
      let wrapper = wrappers.get(client)
      if (!wrapper) wrappers.set(client, (wrapper = wrap(client)))
      return wrapper
    },
    end: () => pool.end(),
  }
}

/** What reaches a wrapped client's `query`: statement text, or a cursor or query config it hands on. */
export type QueryInput = string | object

/**
 * Kysely's `PostgresPoolClient['query']` from one function: Kysely declares it as two overloads
 * (text with parameters, or a cursor), which one implementation cannot state without this cast.
 */
export function clientQuery(fn: (input: QueryInput, parameters?: readonly unknown[]) => unknown): PostgresPoolClient['query'] {
  return fn as PostgresPoolClient['query']
}
