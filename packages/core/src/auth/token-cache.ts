import type { Principal } from './principal.js'

// Issue 33: a request with a token asked the database for its token row, one statement of every
// authenticated request. A calendar process now keeps what a token resolved to, and uses it only
// while the version of the tokens and users (migration 0021: raised in the same transaction as a
// revocation, an expiry change, a deletion, a role or login change) is the one read with the row.
// The version a request compares with comes from a statement sent after the request arrived (the
// calendar's change check, `http/response-cache.ts`, which concurrent requests share), so a token
// revoked by any process, or by raw SQL, is refused on the very next request everywhere.

/** What a token resolved to, and under which version of the tokens and users. */
export interface KeptToken {
  principal: Principal
  tokenId: number
  /** The owner's login, which a Basic credential must name. */
  login: string
  expiresUtc: string | null
  version: string
}

/** Tokens kept per process; the oldest is dropped beyond this (a token is a few hundred bytes). */
const MAX_KEPT = 1000

/** The tokens a calendar process resolved, and how it learns the current version. */
export interface TokenCache {
  /** The version of the tokens and users, read by a statement sent after this call. */
  version(): Promise<string>
  /** The token with this digest as last resolved (compare its `version` before use). */
  find(digest: string): KeptToken | undefined
  /** Keeps a token that resolved to a valid principal. */
  keep(digest: string, kept: KeptToken): void
  /** Drops a token that no longer resolves. */
  forget(digest: string): void
}

/** A token cache over `version` (the calendar's change check). */
export function createTokenCache(version: () => Promise<string>): TokenCache {
  const kept = new Map<string, KeptToken>()
  return {
    version,
    find: (digest) => kept.get(digest),
    keep(digest, token) {
      kept.delete(digest)
      if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!)
      kept.set(digest, token)
    },
    forget: (digest) => void kept.delete(digest),
  }
}
