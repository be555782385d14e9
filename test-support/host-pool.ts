import pg from 'pg'

// A host application's own pg.Pool (issue 29 item 9: `database: { pool }`), whose connections the
// host sets up its way; a calendar on it must leave every one of them as the host set it.

/** The statement reading `settings`' names back, one column each. */
export function settingsSql(settings: Record<string, string>): string {
  return `select ${Object.keys(settings).map((name) => `current_setting('${name}') as "${name}"`).join(', ')}`
}

/** A pool of `max` connections to `url`, each given `settings` on connect (`search_path` unquoted: it is a list). */
export function hostPool(url: string, max: number, settings: Record<string, string>): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max })
  const setUp = Object.entries(settings).map(([name, value]) => `set ${name} = ${name === 'search_path' ? value : `'${value}'`}`).join('; ')
  pool.on('connect', (client) => void client.query(setUp))
  // As pg asks of every host: an idle connection that breaks (the scratch database dropped with
  // FORCE at teardown) emits 'error' on the pool, and unheard that fails the whole run.
  pool.on('error', () => {})
  return pool
}

/** `settings`' current values on every connection of the pool (all `max` checked out at once, so each is seen). */
export async function settingsOfEveryConnection(pool: pg.Pool, max: number, settings: Record<string, string>): Promise<Record<string, string>[]> {
  const clients = await Promise.all(Array.from({ length: max }, () => pool.connect()))
  try {
    return await Promise.all(clients.map(async (c) => (await c.query<Record<string, string>>(settingsSql(settings))).rows[0]!))
  } finally {
    for (const c of clients) c.release()
  }
}
