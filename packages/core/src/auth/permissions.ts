import { CalendarError } from '../errors.js'
import { roleAtLeast, type Principal, type Role } from './principal.js'

/** What permission rules need to know of an event, venue or organizer. */
export interface OwnedItem {
  readonly author_id: number | null
  readonly status: string
}

/** Throws the contract's 401 (anonymous) or 403 (authenticated) `rest_forbidden`. */
export function deny(principal: Principal | null): never {
  if (!principal) throw new CalendarError('UNAUTHENTICATED', 'Sorry, you are not allowed to do that.')
  throw new CalendarError('FORBIDDEN', 'Sorry, you are not allowed to do that.')
}

/** Throws unless `allowed`. */
export function require(principal: Principal | null, allowed: boolean): void {
  if (!allowed) deny(principal)
}

/** May create items of a post type (contributor and up). */
export function canEditType(p: Principal | null): boolean {
  return roleAtLeast(p?.role, 'contributor')
}

/** May publish (author and up). */
export function canPublish(p: Principal | null): boolean {
  return roleAtLeast(p?.role, 'author')
}

/** May see and edit everybody's items (editor and up). */
export function canEditOthers(p: Principal | null): boolean {
  return roleAtLeast(p?.role, 'editor')
}

function owns(p: Principal | null, item: OwnedItem): boolean {
  return p !== null && item.author_id !== null && item.author_id === p.id
}

/** Per-item edit/delete right of CONTRACT 3.1. */
export function canEditItem(p: Principal | null, item: OwnedItem): boolean {
  if (canEditOthers(p)) return true
  if (!owns(p, item)) return false
  return item.status === 'publish' || item.status === 'future' ? canPublish(p) : canEditType(p)
}

/**
 * May make `authorId` the author of an item (issue 15 item 8): editors and up may name anyone;
 * everybody else only themselves, as WordPress refuses contributors and authors an `author`
 * other than their own.
 */
export function canAssignAuthor(p: Principal | null, authorId: number | undefined): boolean {
  return authorId === undefined || canEditOthers(p) || (p !== null && p.id === authorId)
}

/** Whether a single non-trashed item may be read. */
export function canReadItem(p: Principal | null, item: OwnedItem): boolean {
  if (item.status === 'publish') return true
  return canEditOthers(p) || (owns(p, item) && canEditType(p))
}

/** Which items of a type a caller sees in a list without a `status` filter (O-31). */
export type ListScope = { kind: 'public' } | { kind: 'public-and-own'; authorId: number } | { kind: 'all' }

/** The list scope of a caller. */
export function listScope(p: Principal | null): ListScope {
  if (canEditOthers(p)) return { kind: 'all' }
  if (p && canEditType(p)) return { kind: 'public-and-own', authorId: p.id }
  return { kind: 'public' }
}

/** Term writes need the taxonomy's role or above: authors for categories, editors for tags (CONTRACT 3.1). */
export function canManageTerms(p: Principal | null, taxonomy: { readonly manageRole: Role }): boolean {
  return roleAtLeast(p?.role, taxonomy.manageRole)
}

/** The writable statuses (O-29). */
export const WRITABLE_STATUSES = ['publish', 'future', 'draft', 'pending', 'private'] as const

/** Every status, for list filters. */
export const ALL_STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash'] as const
