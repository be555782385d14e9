import { sql, type RawBuilder, type SqlBool } from 'kysely'
import { canEditItem, canEditOthers, canPublish, canReadItem, listScope, type ListScope, type OwnedItem } from './permissions.js'
import { roleAtLeast, type Principal } from './principal.js'

/**
 * Which events' protected content (CONTRACT 9.3's blanked fields and relations) a caller may see
 * without the password: the events the caller may edit (O-22). As data, so list filters can carry
 * it into their cache keys and into SQL.
 */
export type EditScope =
  | { kind: 'none' }
  | { kind: 'own'; authorId: number; publishedToo: boolean }
  | { kind: 'all' }

/** The edit scope of a caller (the SQL form of `canEditItem`). */
export function editScope(p: Principal | null): EditScope {
  if (canEditOthers(p)) return { kind: 'all' }
  if (p && roleAtLeast(p.role, 'contributor')) return { kind: 'own', authorId: p.id, publishedToo: canPublish(p) }
  return { kind: 'none' }
}

/** An event whose relations and protected fields the caller may see without a password. */
export function eventContentVisible(p: Principal | null, event: OwnedItem & { password: string | null }): boolean {
  return !event.password || canEditItem(p, event)
}

/**
 * Whether an event exists for the caller: readable, and not in the trash unless the caller edits
 * everybody's events. Filters naming an event the caller may not see answer exactly as for a
 * missing one, so they are no existence oracle (issue 15 item 6).
 */
export function eventVisible(p: Principal | null, event: OwnedItem): boolean {
  if (canEditOthers(p)) return true
  return event.status !== 'trash' && canReadItem(p, event)
}

const col = (alias: string, column: string) => sql.ref(`${alias}.${column}`)

/** SQL: the post `alias` may be read by the caller (the SQL form of `canReadItem`). */
export function readableSql(p: Principal | null, alias: string, opts: { trashHidden: boolean }): RawBuilder<SqlBool> {
  return readableInScopeSql(listScope(p), alias, opts)
}

/** SQL: the post `alias` may be read by a caller of list scope `scope`. */
export function readableInScopeSql(scope: ListScope, alias: string, opts: { trashHidden: boolean }): RawBuilder<SqlBool> {
  if (scope.kind === 'all') return sql<SqlBool>`true`
  const published = sql<SqlBool>`${col(alias, 'status')} = 'publish'`
  if (scope.kind === 'public') return published
  const own = opts.trashHidden
    ? sql<SqlBool>`(${col(alias, 'author_id')} = ${scope.authorId} and ${col(alias, 'status')} <> 'trash')`
    : sql<SqlBool>`${col(alias, 'author_id')} = ${scope.authorId}`
  return sql<SqlBool>`(${published} or ${own})`
}

/** SQL: the post `alias` may be edited by callers of `scope` (the SQL form of `canEditItem`). */
export function editableSql(scope: EditScope, alias: string): RawBuilder<SqlBool> {
  if (scope.kind === 'all') return sql<SqlBool>`true`
  if (scope.kind === 'none') return sql<SqlBool>`false`
  return scope.publishedToo
    ? sql<SqlBool>`${col(alias, 'author_id')} = ${scope.authorId}`
    : sql<SqlBool>`(${col(alias, 'author_id')} = ${scope.authorId} and ${col(alias, 'status')} not in ('publish', 'future'))`
}

/** SQL: the event `alias` shows its protected content to callers of `scope` without a password. */
export function unlockedSql(scope: EditScope, alias: string): RawBuilder<SqlBool> {
  if (scope.kind === 'all') return sql<SqlBool>`true`
  // Not `coalesce(password, '') = ''`: PostgreSQL has no statistics for that expression and guesses
  // 0.5 % of rows, so an anonymous term-filtered list hash-joined its whole window instead of
  // walking the list index (950 ms instead of 3 at 1M events). `is null` reads the null fraction.
  const password = col(alias, 'password')
  const open = sql<SqlBool>`(${password} is null or ${password} = '')`
  if (scope.kind === 'none') return open
  return sql<SqlBool>`(${open} or ${editableSql(scope, alias)})`
}
