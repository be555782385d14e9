import { sql, type Kysely } from 'kysely'

// Worth waiting for: the server is not up yet, or is still starting (a container started together
// with the app). Wrong credentials or a missing database are answered at once.
const TRANSIENT = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', '57P03'])

const HINTS: Record<string, string> = {
  ECONNREFUSED: 'Is PostgreSQL running, and are the host and port of the URL right?',
  ENOTFOUND: 'Check the host name in the URL.',
  EAI_AGAIN: 'Check the host name in the URL.',
  ETIMEDOUT: 'Is the host reachable (firewall, network)?',
  ECONNRESET: 'Something answered on that port and hung up: is it PostgreSQL, and is it still starting?',
  '28P01': 'Check the user name and password in the URL.',
  '28000': 'The server refused this user (pg_hba.conf or the user name).',
  '3D000': 'Create the database first (createdb NAME) or fix its name in the URL.',
  '57P03': 'The server is still starting; try again shortly.',
}

/** `postgres://user:***@host:port/db`: where, without the password. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    u.search = ''
    return u.href
  } catch {
    return 'the configured URL'
  }
}

/** pg's errors without a code: a connect timeout, or a peer (a proxy, a starting container) hanging up. */
function codeOf(err: unknown): string {
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string') return code
  const message = err instanceof Error ? err.message : ''
  if (/timeout exceeded when trying to connect/i.test(message)) return 'ETIMEDOUT'
  if (/Connection terminated/i.test(message)) return 'ECONNRESET'
  return ''
}

/**
 * Checks that PostgreSQL answers before anything else runs, waiting up to `waitMs` for a server
 * that is still coming up; otherwise throws one readable error naming the server and a hint.
 */
export async function waitForDatabase<D>(db: Kysely<D>, url: string, waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs
  for (let delay = 250; ; delay = Math.min(delay * 2, 2000)) {
    try {
      await sql`select 1`.execute(db)
      return
    } catch (err) {
      const code = codeOf(err)
      if (!TRANSIENT.has(code) || Date.now() + delay > deadline) {
        const reason = err instanceof Error && err.message ? err.message : code || String(err)
        const waited = waitMs > 0 && TRANSIENT.has(code) ? ` (waited ${Math.round(waitMs / 1000)} s)` : ''
        const hint = HINTS[code] ? ` ${HINTS[code]}` : ''
        throw new Error(`Could not connect to PostgreSQL at ${describeUrl(url)}${waited}: ${reason}.${hint}`, { cause: err })
      }
      await new Promise((resolve) => setTimeout(resolve, delay))
    }
  }
}
