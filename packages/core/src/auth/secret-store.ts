import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { DB } from '../db/generated.js'
import { utcWall } from '../time/wall-time.js'
import { isRowId } from '../shared/row-id.js'
import type { Role } from './principal.js'

// What API tokens and feed keys share: only a SHA-256 of the whole secret is stored (256 random
// bits, so a slow hash buys nothing), it is compared in constant time, and a use is recorded.

/** The hex SHA-256 of `text` (UTF-8). */
export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

/** Whether `secret` hashes to `storedHex`, in constant time; a missing row compares against zeros. */
export function matchesDigest(storedHex: string | undefined, secret: string): boolean {
  return timingSafeEqual(Buffer.from(storedHex ?? '0'.repeat(64), 'hex'), Buffer.from(sha256(secret), 'hex'))
}

/** The tables of stored secrets: API tokens and feed keys. */
type SecretTable = 'api_tokens' | 'cal_feed_keys'

/** What a token and a feed key list alike (never the secret). */
export interface SecretInfo {
  id: number
  prefix: string
  name: string
  userId: number
  login: string
  role: Role
  createdUtc: string
  lastUsedUtc: string | null
  revokedUtc: string | null
}

/** A new secret `<kind>_<prefix>_<secret>`: a 10-character public prefix finds its row, 256 random bits follow. */
export function newSecret(kind: 'cal' | 'calfeed'): { prefix: string; secret: string } {
  const prefix = randomBytes(8).toString('hex').slice(0, 10)
  return { prefix, secret: `${kind}_${prefix}_${randomBytes(32).toString('base64url')}` }
}

/** A token's or feed key's listed fields, from its row joined with its user. */
export function listedSecret(r: {
  id: number
  prefix: string
  name: string
  user_id: number
  login: string
  role: string
  created_utc: string
  last_used_utc: string | null
  revoked_utc: string | null
}): SecretInfo {
  return {
    id: r.id,
    prefix: r.prefix,
    name: r.name,
    userId: r.user_id,
    login: r.login,
    role: r.role as Role,
    createdUtc: r.created_utc,
    lastUsedUtc: r.last_used_utc,
    revokedUtc: r.revoked_utc,
  }
}

/** Revokes a live secret of `table` by row id (a number) or prefix; returns whether one was revoked. */
export async function revokeSecret(db: Kysely<DB>, table: SecretTable, idOrPrefix: number | string): Promise<boolean> {
  // An all-digit prefix read as an id can be past the id column's range: no such id, not an error.
  if (typeof idOrPrefix === 'number' && !isRowId(idOrPrefix)) return false
  const result = await db
    .updateTable(table)
    .set({ revoked_utc: utcWall(new Date()) })
    .where(typeof idOrPrefix === 'number' ? 'id' : 'prefix', '=', idOrPrefix as never)
    .where('revoked_utc', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

const USE_WRITE_INTERVAL_MS = 60 * 60 * 1000

/**
 * Records a secret's last use in `table` at most hourly per process and secret, off the request
 * path: a token or feed key is used on every request or poll, and the hour is all a listing shows.
 */
export function lastUseRecorder(table: SecretTable): (db: Kysely<DB>, id: number) => void {
  const lastWritten = new Map<number, number>()
  return (db, id) => {
    const now = Date.now()
    if (now - (lastWritten.get(id) ?? 0) < USE_WRITE_INTERVAL_MS) return
    lastWritten.set(id, now)
    db.updateTable(table)
      .set({ last_used_utc: utcWall(new Date(now)) })
      .where('id', '=', id)
      .execute()
      .catch(() => lastWritten.delete(id))
  }
}
