import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool, type Transaction } from 'kysely'
import { canEditType, type ListScope } from '../auth/permissions.js'
import type { Principal } from '../auth/principal.js'
import type { DB } from '../db/generated.js'
import { invalidParam } from '../errors.js'

/**
 * `status` of a list request, checked: callers who cannot edit the type may only ask for what
 * they see anyway (CONTRACT 6.5), so anything but `publish` is a 400 for them.
 */
export function checkStatusFilter(principal: Principal | null, statuses: readonly string[] | undefined): void {
  if (statuses === undefined || canEditType(principal)) return
  if (statuses.length !== 1 || statuses[0] !== 'publish') throw invalidParam('status')
}

/** The status condition of {@link postVisibility}: `in` the requested ones, published only, or all but trashed. */
export type StatusRule = { op: 'in'; statuses: readonly string[] } | { op: '='; status: 'publish' } | { op: '<>'; status: 'trash' }

/**
 * Which posts of a list a caller sees (O-31): the explicit `status` filter, else published ones
 * (anonymous), published plus their own (contributors, authors), or all but trashed (editors).
 * Data, not SQL, so each list can keep the SQL text its indexes and plan tests rely on.
 */
export function postVisibility(
  statuses: readonly string[] | undefined,
  scope: ListScope,
): { status: StatusRule; publishedOrOwnBy?: number } {
  const status: StatusRule = statuses
    ? { op: 'in', statuses }
    : scope.kind === 'public'
      ? { op: '=', status: 'publish' }
      : { op: '<>', status: 'trash' }
  return scope.kind === 'public-and-own' ? { status, publishedOrOwnBy: scope.authorId } : { status }
}

/**
 * {@link postVisibility} as a condition on `alias`. `publish` and `trash` stay literals in the SQL
 * text so partial indexes on them still match.
 */
export function visiblePosts<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  alias: string,
  statuses: readonly string[] | undefined,
  scope: ListScope,
): Expression<SqlBool> {
  const rule = postVisibility(statuses, scope)
  const status = sql.ref(`${alias}.status`)
  const conditions: Expression<SqlBool>[] = [
    rule.status.op === 'in'
      ? sql<SqlBool>`${status} in (${sql.join(rule.status.statuses)})`
      : sql<SqlBool>`${status} ${sql.raw(rule.status.op)} ${sql.lit(rule.status.status)}`,
  ]
  if (rule.publishedOrOwnBy !== undefined) {
    conditions.push(sql<SqlBool>`(${status} = 'publish' or ${sql.ref(`${alias}.author_id`)} = ${rule.publishedOrOwnBy})`)
  }
  return eb.and(conditions)
}

/** What visibility rules need of an event: owner, status, password; `undefined` when `id` is no event. */
export async function findEventAccess(
  db: Kysely<DB> | Transaction<DB>,
  id: number,
): Promise<{ id: number; author_id: number | null; status: string; password: string | null } | undefined> {
  return db.selectFrom('events').select(['id', 'author_id', 'status', 'password']).where('id', '=', id).executeTakeFirst()
}
