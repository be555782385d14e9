import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import { canEditType, type ListScope } from '../auth/permissions.js'
import type { Principal } from '../auth/principal.js'
import { invalidParam } from '../errors.js'

/**
 * `status` of a list request, checked: callers who cannot edit the type may only ask for what
 * they see anyway (CONTRACT 6.5), so anything but `publish` is a 400 for them.
 */
export function checkStatusFilter(principal: Principal | null, statuses: readonly string[] | undefined): void {
  if (statuses === undefined || canEditType(principal)) return
  if (statuses.length !== 1 || statuses[0] !== 'publish') throw invalidParam('status')
}

/**
 * Which posts of a list a caller sees (O-31): the explicit `status` filter, else published ones
 * (anonymous), published plus their own (contributors, authors), or all but trashed (editors).
 * `publish` stays a literal in the SQL text so partial indexes on it still match.
 */
export function visiblePosts<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  alias: string,
  statuses: readonly string[] | undefined,
  scope: ListScope,
): Expression<SqlBool> {
  const status = sql.ref(`${alias}.status`)
  const conditions: Expression<SqlBool>[] = []
  if (statuses) conditions.push(sql<SqlBool>`${status} in (${sql.join(statuses)})`)
  else if (scope.kind === 'public') conditions.push(sql<SqlBool>`${status} = 'publish'`)
  else conditions.push(sql<SqlBool>`${status} <> 'trash'`)
  if (scope.kind === 'public-and-own') {
    conditions.push(sql<SqlBool>`(${status} = 'publish' or ${sql.ref(`${alias}.author_id`)} = ${scope.authorId})`)
  }
  return eb.and(conditions)
}
