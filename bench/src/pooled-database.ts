import { startPgBouncer } from '../../test-support/pgbouncer.js'
import { dropDatabase, freshDatabase } from './db.js'

/** A fresh database `name` on the server of `adminUrl`, and a PgBouncer in transaction mode in front of that server (`pooler.ts`, `pooler-http.ts`). */
export async function pooledDatabase(adminUrl: string, name: string, poolSize: number) {
  const url = await freshDatabase(adminUrl, name)
  const server = new URL(adminUrl)
  const bouncer = await startPgBouncer({ serverHost: server.hostname, serverPort: Number(server.port || 5432), poolSize })
  return {
    url,
    bouncer,
    /** Stops PgBouncer and drops the database. */
    async stop() {
      await bouncer.stop()
      await dropDatabase(adminUrl, name)
    },
  }
}
