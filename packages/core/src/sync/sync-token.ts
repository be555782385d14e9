import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import type { ChangePoint } from '../changes/change-log.js'
import { isChangePoint } from '../changes/change-log.js'
import type { DB } from '../db/generated.js'
import { CalendarError } from '../errors.js'

// Sync tokens and walk cursors (docs/sync.md): a JSON state sealed under the calendar's own secret
// (migration 0011, one per database so every process agrees) by deterministic authenticated
// encryption (SIV: an HMAC-SHA256 of the state is the AES-256-CTR IV, checked on opening). A client
// can neither read a token (its change-log point is a PostgreSQL transaction id) nor make or change
// one; the same state is the same token, so a repeated sync answer keeps its bytes and ETag.
// Tokens of the earlier format (the JSON readable, then `.` and an HMAC) are still opened: they
// expire with the change log (CHANGE_RETENTION_MS), and then that branch can go.

/** The collections that hand out sync tokens. */
export type SyncCollection = 'events' | 'venues' | 'organizers'

/** Who a token was made for and with which filters; a token only serves the same binding. */
export interface SyncBinding {
  /** Collection. */
  c: SyncCollection
  /** The caller's user id (0: anonymous). */
  u: number
  /** The caller's visibility key (`http/conditional.ts`): the same user with another role sees another set. */
  v: string
  /** Hash of the filter parameters as sent. */
  f: string
  /** Hash of the filters as resolved (term slugs to ids, the active language). */
  g: string
}

/** What a token or cursor carries. */
export type SyncState =
  /** A sync token: report what changed since point `p`. */
  | (SyncBinding & { k: 't'; p: ChangePoint })
  /**
   * A walk cursor (`sync_page`): the walk's mode, the point its first page was read at (`s`, the
   * next token's point), the last id served (`a`), for a full walk the total its first page
   * counted (`n`), for a delta walk the token's point (`p`).
   */
  | (SyncBinding & { k: 'w'; m: 'full'; s: ChangePoint; a: number; n: number })
  | (SyncBinding & { k: 'w'; m: 'delta'; s: ChangePoint; a: number; p: ChangePoint })

const keys = new WeakMap<Kysely<DB>, Promise<Buffer>>()

/** The calendar's token key, read once per database handle. */
function signingKey(db: Kysely<DB>): Promise<Buffer> {
  let key = keys.get(db)
  if (!key) {
    key = sql<{ secret: string }>`select secret from cal_sync_secret`.execute(db).then(({ rows }) => {
      if (!rows[0]) throw new Error('cal_sync_secret is empty (migration 0011 not applied?)')
      return Buffer.from(rows[0].secret, 'utf8')
    })
    // A failed read (database away) is not remembered.
    key.catch(() => keys.delete(db))
    keys.set(db, key)
  }
  return key
}

const mac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest().subarray(0, 24)

/** The two keys of sealed states, derived from the calendar's secret (one per use). */
interface SealKeys {
  readonly enc: Buffer
  readonly siv: Buffer
}

const sealKeys = new WeakMap<Buffer, SealKeys>()

function sealKeysOf(secret: Buffer): SealKeys {
  let keys = sealKeys.get(secret)
  if (!keys) {
    const derive = (use: string) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `cal sync state ${use}`, 32))
    keys = { enc: derive('encryption'), siv: derive('siv') }
    sealKeys.set(secret, keys)
  }
  return keys
}

const IV_BYTES = 16

/** `state` sealed under `secret`: base64url of a 16-byte synthetic IV, then the encrypted JSON. */
export function sealState(secret: Buffer, state: SyncState): string {
  const { enc, siv } = sealKeysOf(secret)
  const plain = Buffer.from(JSON.stringify(state), 'utf8')
  const iv = createHmac('sha256', siv).update(plain).digest().subarray(0, IV_BYTES)
  const cipher = createCipheriv('aes-256-ctr', enc, iv)
  return Buffer.concat([iv, cipher.update(plain), cipher.final()]).toString('base64url')
}

/** The state of a sealed text, or a 410 when it is malformed or was not sealed under `secret`. */
export function openSealedState(secret: Buffer, token: string): SyncState {
  if (!SEALED_TEXT.test(token)) throw syncTokenInvalid()
  const bytes = Buffer.from(token, 'base64url')
  const { enc, siv } = sealKeysOf(secret)
  const iv = bytes.subarray(0, IV_BYTES)
  const decipher = createDecipheriv('aes-256-ctr', enc, iv)
  const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES)), decipher.final()])
  const expected = createHmac('sha256', siv).update(plain).digest().subarray(0, IV_BYTES)
  if (iv.length !== IV_BYTES || !timingSafeEqual(iv, expected)) throw syncTokenInvalid()
  return parsedState(plain.toString('utf8'))
}

/** A sealed, URL-safe text for `state`. */
export async function signSyncState(db: Kysely<DB>, state: SyncState): Promise<string> {
  return sealState(await signingKey(db), state)
}

/** The 410 for a token the server cannot use: the client starts again with a full walk. */
export function syncTokenInvalid(message = 'The sync token is not valid; start again with a full sync (sync=1).'): CalendarError {
  return new CalendarError('SYNC_TOKEN_INVALID', message)
}

/** The 410 for a token that was good once: what it needs is gone (pruned, truncated, caller changed). */
export function syncTokenExpired(message = 'The sync token has expired; start again with a full sync (sync=1).'): CalendarError {
  return new CalendarError('SYNC_TOKEN_EXPIRED', message)
}

// At least an IV and one byte; the signed format below was at most 12,000 + 33 characters.
const SEALED_TEXT = /^[A-Za-z0-9_-]{23,12100}$/
const SIGNED_TEXT = /^[A-Za-z0-9_-]{1,12000}\.[A-Za-z0-9_-]{32}$/

/** The state of a token or cursor, or a 410 when it is malformed or not ours. */
export async function openSyncState(db: Kysely<DB>, token: string): Promise<SyncState> {
  const secret = await signingKey(db)
  if (!SIGNED_TEXT.test(token)) return openSealedState(secret, token)
  // The earlier format: readable JSON and its HMAC.
  const [text, signature] = token.split('.') as [string, string]
  const expected = mac(secret, text)
  const given = Buffer.from(signature, 'base64url')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw syncTokenInvalid()
  return parsedState(Buffer.from(text, 'base64url').toString('utf8'))
}

/** A state from its JSON text; a 410 when it is none. */
function parsedState(json: string): SyncState {
  let state: unknown
  try {
    state = JSON.parse(json)
  } catch {
    throw syncTokenInvalid()
  }
  // Made by us, so well-formed unless the format changed; checked anyway, never trusted blindly.
  if (!isSyncState(state)) throw syncTokenInvalid()
  return state
}

function isSyncState(s: unknown): s is SyncState {
  if (!s || typeof s !== 'object') return false
  const o = s as Record<string, unknown>
  const point = (v: unknown) => typeof v === 'string' && isChangePoint(v)
  const binding = ['events', 'venues', 'organizers'].includes(o.c as string) && Number.isInteger(o.u) && typeof o.v === 'string' && typeof o.f === 'string' && typeof o.g === 'string'
  if (!binding) return false
  if (o.k === 't') return point(o.p)
  if (o.k !== 'w' || !point(o.s) || !Number.isSafeInteger(o.a)) return false
  return (o.m === 'full' && Number.isSafeInteger(o.n)) || (o.m === 'delta' && point(o.p))
}

/** A short, stable hash of a JSON-able value (filter sets). */
export function filterHash(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 22)
}

/**
 * Checks that `state` was made for this request: another collection, caller or filter set is a
 * 400 (the client mixed up its tokens); the same caller whose role changed, or filters that now
 * resolve to other items, a 410 (the token was right, but what it stood for is gone).
 */
export function checkBinding(state: SyncState, now: SyncBinding): void {
  const mismatch = (what: string) =>
    new CalendarError('SYNC_TOKEN_MISMATCH', `The sync token was made for another ${what}; use it only with the request that returned it.`, {
      params: { [state.k === 't' ? 'sync_token' : 'sync_page']: `Made for another ${what}.` },
    })
  if (state.c !== now.c) throw mismatch('collection')
  if (state.u !== now.u) throw mismatch('caller')
  if (state.f !== now.f) throw mismatch('set of filters')
  if (state.v !== now.v) throw syncTokenExpired('What the caller may see changed since the sync token was made; start again with a full sync (sync=1).')
  if (state.g !== now.g) throw syncTokenExpired('The filters name other items than when the sync token was made; start again with a full sync (sync=1).')
}
