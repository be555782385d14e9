import { createHash } from 'node:crypto'
import type { Principal } from '../auth/principal.js'

/**
 * How long a shared cache may keep an anonymous read without asking again. Short on purpose: a
 * cache that holds a page for longer would hide an acknowledged write from every reader behind it.
 */
export const PUBLIC_MAX_AGE_SECONDS = 5

/**
 * The visibility key of a caller: two callers with the same key may be served the same bytes.
 * Per user rather than per role, since an author sees their own drafts and no one else's.
 */
export function visibilityKey(principal: Principal | null): string {
  return principal ? `u${principal.id}:${principal.role}` : 'anonymous'
}

/**
 * The strong entity tag of a representation: a hash of its serialised body, the headers that
 * travel with it (list totals) and who it was made for, so an editor's and an anonymous reader's
 * copy of the same URL never share a tag even when their bytes happen to agree.
 */
export function entityTag(text: string, headers: Record<string, string>, visibility: string, namespace: string): string {
  const hash = createHash('sha256')
  hash.update(visibility).update('\0').update(namespace).update('\0')
  for (const name of Object.keys(headers).sort()) hash.update(name).update(':').update(headers[name]!).update('\0')
  hash.update(text)
  return `"${hash.digest('base64url').slice(0, 32)}"`
}

// RFC 9110 8.8.3: entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE, etagc = %x21 / %x23-7E / obs-text.
// A list may hold empty elements, which a recipient must accept and ignore (5.6.1): `, "a",, "b"`.
const TAG_LIST = /^[\s,]*(?:(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"\s*(?:,[\s,]*|$))+$/
const ONE_TAG = /(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"/g

/** The entity tags of an `If-None-Match`/`If-Match` value: `'*'`, a list, or `undefined` when malformed. */
export function parseTagList(value: string): '*' | { weak: boolean; opaque: string }[] | undefined {
  if (value.trim() === '*') return '*'
  if (!TAG_LIST.test(value)) return undefined
  return [...value.matchAll(ONE_TAG)].map((m) => ({ weak: m[1] !== undefined, opaque: m[2]! }))
}

/**
 * Whether `If-None-Match` says the client already holds `tag` (weak comparison, RFC 9110 13.1.2).
 * A malformed value is treated as not matching: the client gets the full answer, never an error.
 */
export function noneMatchHits(value: string | undefined, tag: string): boolean {
  if (value === undefined) return false
  // The usual revalidation sends back exactly the tag it got: no need to parse a list.
  if (value === tag) return true
  const tags = parseTagList(value)
  if (tags === undefined) return false
  if (tags === '*') return true
  const opaque = tag.slice(1, -1)
  return tags.some((t) => t.opaque === opaque)
}

/** The headers a 304 repeats from the 200 it stands for (RFC 9110 15.4.5, and Last-Modified, which helps caches update). */
const NOT_MODIFIED_HEADERS = ['ETag', 'Cache-Control', 'Expires', 'Vary', 'Content-Location', 'Date', 'Last-Modified']

/** The headers of a 200 that its 304 repeats (`NOT_MODIFIED_HEADERS`). */
export function notModifiedHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(NOT_MODIFIED_HEADERS.filter((n) => headers[n] !== undefined).map((n) => [n, headers[n]!]))
}

/** Appends `names` to a `Vary` value, keeping what is there. */
export function addVary(current: string | undefined, ...names: string[]): string {
  const have = new Set((current ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean))
  const added = names.filter((n) => !have.has(n.toLowerCase()))
  return [current, ...added].filter(Boolean).join(', ')
}
