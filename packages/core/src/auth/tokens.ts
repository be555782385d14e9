import { timingSafeEqual } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import { CalendarError } from '../errors.js'
import { utcWall } from '../time/wall-time.js'
import type { DB } from '../db/generated.js'
import { ROLES, type Principal, type Role } from './principal.js'
import type { TokenCache } from './token-cache.js'
import { lastUseRecorder, listedSecret, matchesDigest, newSecret, revokeSecret, sha256, type SecretInfo } from './secret-store.js'

// Tokens look like `cal_<prefix>_<secret>`: the prefix is public and indexes the row, only a
// SHA-256 of the whole token is stored (the secret has 256 bits, so a slow hash buys nothing).
const TOKEN_FORMAT = /^cal_([a-z0-9]{10})_[A-Za-z0-9_-]{43}$/

/** The lookup key of a token: its public prefix, or for foreign-format tokens a hash-derived key. */
function lookupKey(token: string): string {
  const match = TOKEN_FORMAT.exec(token)
  return match ? match[1]! : `h${sha256(`lookup:${token}`).slice(0, 16)}`
}

/** A token as listed (never the secret). */
export interface TokenInfo extends SecretInfo {
  /** When the token stops working (UTC, `YYYY-MM-DD HH:MM:SS`); null: never. */
  expiresUtc: string | null
}

/** What a new token is issued with. */
export interface TokenInput {
  role: Role
  name?: string
  login?: string
  /** When the token stops working: an ISO 8601 date-time with `Z` or an offset, or a Date; default never. */
  expires?: string | Date
}

// A zone is required: an expiry read in the server's local time would shift with its TZ.
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/i

/** The expiry as a UTC wall time, or a TypeError for a malformed, out-of-range or past one. */
function expiryWall(expires: string | Date | undefined, now: Date): string | null {
  if (expires === undefined) return null
  const date = typeof expires === 'string' ? (ISO_DATE_TIME.test(expires) ? new Date(expires) : new Date(NaN)) : expires
  const time = date.getTime()
  if (Number.isNaN(time) || date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) {
    throw new TypeError(`expires must be an ISO 8601 date-time with a zone (e.g. 2030-01-31T00:00:00Z), not ${String(expires)}.`)
  }
  if (time <= now.getTime()) throw new TypeError(`expires must be in the future, not ${date.toISOString()}.`)
  return utcWall(date)
}

/** Creates a user, or returns the existing one with that login; never changes an existing role. */
export async function ensureUser(db: Kysely<DB>, login: string, role: Role): Promise<{ id: number; role: Role }> {
  await db.insertInto('users').values({ login, role, display_name: login }).onConflict((oc) => oc.column('login').doNothing()).execute()
  const row = await db.selectFrom('users').select(['id', 'role']).where('login', '=', login).executeTakeFirstOrThrow()
  // Quietly demoting (or promoting) someone because a token was issued in their name is a trap.
  if (row.role !== role) throw new TypeError(`User ${login} exists with role ${row.role}, not ${role}; choose another login.`)
  return { id: row.id, role: row.role }
}

/** Issues a new random token for a user; the plain token is returned once and never stored. */
export async function createToken(
  db: Kysely<DB>,
  input: TokenInput,
): Promise<{ token: string; info: TokenInfo }> {
  const { secret: token } = newSecret('cal')
  return { token, info: await storeToken(db, token, input) }
}

/**
 * Registers a token chosen by the operator (e.g. `CAL_ADMIN_TOKEN`); idempotent: a live row of the
 * same token, user, name and no expiry is kept as it is, anything else under its key is replaced.
 */
export async function registerToken(
  db: Kysely<DB>,
  token: string,
  input: TokenInput,
): Promise<TokenInfo> {
  if (token.length < 16) throw new TypeError('A token must have at least 16 characters.')
  const key = lookupKey(token)
  // Instances of one deployment register the same token as they start together: one at a time
  // (two inserts of one key collided), and the second keeps the first's row instead of replacing
  // it (a replaced row's id is one the first instance would then revoke as a stale token).
  const register = async (trx: Kysely<DB>): Promise<TokenInfo> => {
    await sql`select pg_advisory_xact_lock(hashtext(${`cal-events token ${key}`}))`.execute(trx)
    const existing = await trx
      .selectFrom('api_tokens as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .select(['t.id', 't.name', 't.secret_hash', 't.revoked_utc', 't.expires_utc', 'u.login', 'u.role'])
      .where('t.prefix', '=', key)
      .executeTakeFirst()
    if (existing) {
      const login = input.login ?? input.name ?? `${input.role}-${key}`
      const same =
        existing.secret_hash === sha256(token) && existing.revoked_utc === null && existing.expires_utc === null && input.expires === undefined &&
        existing.login === login && existing.role === input.role && existing.name === (input.name ?? '')
      if (same) return (await listTokens(trx, existing.id))[0]!
      await trx.deleteFrom('api_tokens').where('id', '=', existing.id).execute()
    }
    return storeToken(trx, token, input)
  }
  // Inside a host's transaction (`withTransaction`) the lock is held until the host's transaction ends.
  return db.isTransaction ? register(db) : db.transaction().execute(register)
}

async function storeToken(
  db: Kysely<DB>,
  token: string,
  input: TokenInput,
): Promise<TokenInfo> {
  const expiresUtc = expiryWall(input.expires, new Date())
  const user = await ensureUser(db, input.login ?? input.name ?? `${input.role}-${lookupKey(token)}`, input.role)
  const row = await db
    .insertInto('api_tokens')
    .values({ user_id: user.id, name: input.name ?? '', prefix: lookupKey(token), secret_hash: sha256(token), expires_utc: expiresUtc })
    .returning('id')
    .executeTakeFirstOrThrow()
  const [info] = await listTokens(db, row.id)
  return info!
}

/** Lists tokens (all, or one by id), newest first. */
export async function listTokens(db: Kysely<DB>, id?: number): Promise<TokenInfo[]> {
  const rows = await db
    .selectFrom('api_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.id', 't.prefix', 't.name', 't.user_id', 'u.login', 'u.role', 't.created_utc', 't.last_used_utc', 't.revoked_utc', 't.expires_utc'])
    .$if(id !== undefined, (qb) => qb.where('t.id', '=', id!))
    .orderBy('t.id', 'desc')
    .execute()
  return rows.map((r) => ({ ...listedSecret(r), expiresUtc: r.expires_utc }))
}

/** Revokes a token by id or prefix; returns whether one was revoked. */
export function revokeToken(db: Kysely<DB>, idOrPrefix: number | string): Promise<boolean> {
  return revokeSecret(db, 'api_tokens', idOrPrefix)
}

/** Whether any live administrator token exists. */
export async function hasAdminToken(db: Kysely<DB>): Promise<boolean> {
  const row = await db
    .selectFrom('api_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select('t.id')
    .where('u.role', '=', 'administrator')
    .where('t.revoked_utc', 'is', null)
    .where((eb) => eb.or([eb('t.expires_utc', 'is', null), eb('t.expires_utc', '>', utcWall(new Date()))]))
    .executeTakeFirst()
  return row !== undefined
}

/**
 * Counts login guesses (`guess-limiter.ts`): `check` throws the 429 before a credential is looked
 * at, `fail` counts one that did not log in.
 */
export interface LoginGuard {
  check(): void
  fail(): void
}

/**
 * Resolves an `Authorization` header: no header → anonymous; `Bearer <token>`, or WordPress
 * application-password style `Basic base64(login:token)` naming the token owner's login; anything
 * else, or a bad, unknown, revoked or expired token → 401. With a `guard`, a well-formed credential
 * is a guess: refused with 429 once the client used up its failures, counted when it fails. A
 * malformed header is no guess (it can never log in) and stays a plain 401.
 */
export async function authenticateBearer(db: Kysely<DB>, header: string | undefined, guard?: LoginGuard, cache?: TokenCache): Promise<Principal | null> {
  if (header === undefined || header.trim() === '') return null
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header)
  const basic = bearer ? undefined : /^Basic\s+(\S+)\s*$/i.exec(header)
  const credentials = bearer ? { token: bearer[1]!, login: undefined } : basic ? decodeBasic(basic[1]!) : undefined
  if (!credentials) throw invalidToken()
  guard?.check()
  try {
    return await resolveToken(db, credentials.token, credentials.login, cache)
  } catch (err) {
    if (err instanceof CalendarError && err.code === 'INVALID_TOKEN') guard?.fail()
    throw err
  }
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** `login:token` from a Basic credential, or `undefined` for bad base64, bad UTF-8 or an empty part. */
function decodeBasic(encoded: string): { login: string; token: string } | undefined {
  // Buffer.from() would silently skip invalid characters; a credential must decode exactly.
  if (!BASE64.test(encoded)) return undefined
  let text: string
  try {
    text = utf8.decode(Buffer.from(encoded, 'base64'))
  } catch {
    return undefined
  }
  const colon = text.indexOf(':')
  if (colon <= 0 || colon === text.length - 1) return undefined
  return { login: text.slice(0, colon), token: text.slice(colon + 1) }
}

async function resolveToken(db: Kysely<DB>, token: string, login: string | undefined, cache: TokenCache | undefined): Promise<Principal> {
  const digest = sha256(token)
  // A token not kept is read below anyway, and that read is as current as a check.
  const kept = cache?.find(digest)
  if (kept && kept.version === (await cache!.version())) {
    if (!sameLogin(kept.login, login) || isExpired(kept.expiresUtc)) throw invalidToken()
    noteUse(db, kept.tokenId)
    return kept.principal
  }
  const row = await db
    .selectFrom('api_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.id as token_id', 't.secret_hash', 't.revoked_utc', 't.expires_utc', 'u.id', 'u.role', 'u.login'])
    // The version in the same statement (snapshot) as the row it stands for.
    .select(sql<string>`cal_credentials_version()::text`.as('version'))
    .where('t.prefix', '=', lookupKey(token))
    .executeTakeFirst()
  const same = matchesDigest(row?.secret_hash, token)
  const owner = sameLogin(row?.login, login)
  if (!row || !same || !owner || row.revoked_utc !== null || isExpired(row.expires_utc) || !(ROLES as readonly string[]).includes(row.role)) {
    if (kept) cache!.forget(digest)
    throw invalidToken()
  }
  noteUse(db, row.token_id)
  const principal = { id: row.id, role: row.role as Role }
  cache?.keep(digest, { principal, tokenId: row.token_id, login: row.login, expiresUtc: row.expires_utc, version: row.version })
  return principal
}

/** Whether a Basic credential's `login` (none for Bearer) is the owner's; compared as digests, so its length does not shape the timing. */
function sameLogin(owner: string | undefined, login: string | undefined): boolean {
  return login === undefined || timingSafeEqual(Buffer.from(sha256(`login:${owner ?? ''}`), 'hex'), Buffer.from(sha256(`login:${login}`), 'hex'))
}

/** Whether an expiry has passed; UTC wall times of four-digit years compare correctly as strings. */
function isExpired(expiresUtc: string | null | undefined): boolean {
  return expiresUtc != null && expiresUtc <= utcWall(new Date())
}

/** Records a token's last use. */
const noteUse = lastUseRecorder('api_tokens')

function invalidToken(): CalendarError {
  return new CalendarError('INVALID_TOKEN', 'The bearer token or application password is invalid, unknown, revoked or expired.')
}
