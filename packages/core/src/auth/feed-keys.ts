import type { Kysely } from 'kysely'
import { CalendarError } from '../errors.js'
import type { DB } from '../db/generated.js'
import { isRowId } from '../shared/row-id.js'
import { ROLES, type Principal, type Role } from './principal.js'
import { lastUseRecorder, listedSecret, matchesDigest, newSecret, revokeSecret, sha256, type SecretInfo } from './secret-store.js'

// Keys look like `calfeed_<prefix>_<secret>`: another form than API tokens (`cal_…`), so neither
// is ever found in the other's table. As with tokens, only a SHA-256 of the whole key is stored
// (256 random bits: a slow hash buys nothing) and the public prefix finds the row.
const KEY_FORMAT = /^calfeed_([a-z0-9]{10})_[A-Za-z0-9_-]{43}$/

/** Whether `value` has the form of a feed key (whether or not such a key exists). */
export function looksLikeFeedKey(value: unknown): boolean {
  return typeof value === 'string' && /^calfeed_/.test(value.trim())
}

/** A feed key as listed (never the secret). */
export type FeedKeyInfo = SecretInfo

/** Whose feed key to make: an existing user by login or id, and a label for listing. */
export interface FeedKeyInput {
  login?: string
  userId?: number
  name?: string
}

/** Issues a feed key for an existing user; the plain key is returned once and never stored. */
export async function createFeedKey(db: Kysely<DB>, input: FeedKeyInput): Promise<{ key: string; info: FeedKeyInfo }> {
  if ((input.login === undefined) === (input.userId === undefined)) throw new TypeError('Name the user of the feed key: login or userId, one of them.')
  const user = await db
    .selectFrom('users')
    .select('id')
    .$if(input.login !== undefined, (qb) => qb.where('login', '=', input.login!))
    .$if(input.userId !== undefined, (qb) => qb.where('id', '=', isRowId(input.userId) ? input.userId : 0))
    .executeTakeFirst()
  if (!user) throw new TypeError(`No user ${input.login !== undefined ? JSON.stringify(input.login) : `#${input.userId}`}; a feed key shows what an existing user may see.`)
  const { prefix, secret: key } = newSecret('calfeed')
  const row = await db
    .insertInto('cal_feed_keys')
    .values({ user_id: user.id, name: input.name ?? '', prefix, secret_hash: sha256(key) })
    .returning('id')
    .executeTakeFirstOrThrow()
  const [info] = await listFeedKeys(db, { id: row.id })
  return { key, info: info! }
}

/** Lists feed keys (all, one user's by login, or one by id), newest first. */
export async function listFeedKeys(db: Kysely<DB>, which: { id?: number; login?: string } = {}): Promise<FeedKeyInfo[]> {
  const rows = await db
    .selectFrom('cal_feed_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .select(['k.id', 'k.prefix', 'k.name', 'k.user_id', 'u.login', 'u.role', 'k.created_utc', 'k.last_used_utc', 'k.revoked_utc'])
    .$if(which.id !== undefined, (qb) => qb.where('k.id', '=', which.id!))
    .$if(which.login !== undefined, (qb) => qb.where('u.login', '=', which.login!))
    .orderBy('k.id', 'desc')
    .execute()
  return rows.map(listedSecret)
}

/** Revokes a feed key by id, prefix or the whole key; returns whether one was revoked. */
export function revokeFeedKey(db: Kysely<DB>, which: number | string): Promise<boolean> {
  return revokeSecret(db, 'cal_feed_keys', typeof which === 'number' ? which : (KEY_FORMAT.exec(which.trim())?.[1] ?? which))
}

/**
 * The user a feed key stands for. Anything but a live key of an existing user (malformed, unknown,
 * revoked) is the same 401, so a caller learns nothing about which keys exist or existed.
 */
export async function resolveFeedKey(db: Kysely<DB>, key: unknown): Promise<Principal> {
  const text = typeof key === 'string' ? key.trim() : ''
  const match = KEY_FORMAT.exec(text)
  const row = match
    ? await db
        .selectFrom('cal_feed_keys as k')
        .innerJoin('users as u', 'u.id', 'k.user_id')
        .select(['k.id as key_id', 'k.secret_hash', 'k.revoked_utc', 'u.id', 'u.role'])
        .where('k.prefix', '=', match[1]!)
        .executeTakeFirst()
    : undefined
  const same = matchesDigest(row?.secret_hash, text)
  if (!row || !same || row.revoked_utc !== null || !(ROLES as readonly string[]).includes(row.role)) throw invalidFeedKey()
  noteUse(db, row.key_id)
  return { id: row.id, role: row.role as Role }
}

/** Records a feed key's last use (a feed is polled often). */
const noteUse = lastUseRecorder('cal_feed_keys')

/** The answer to a bad, unknown or revoked feed key, and to a feed key anywhere but a feed: the unknown token's 401. */
export function invalidFeedKey(): CalendarError {
  return new CalendarError('INVALID_TOKEN', 'The feed key is invalid, unknown or revoked, or was sent to a route other than a feed.')
}
