/** Roles of CONTRACT 3.1, weakest first. */
export const ROLES = ['subscriber', 'contributor', 'author', 'editor', 'administrator'] as const

/** A role name. */
export type Role = (typeof ROLES)[number]

/** Who is calling: a user id (the `author` of what they create) and a role. */
export interface Principal {
  readonly id: number
  readonly role: Role
}

/** True when `role` is at least `minimum`. */
export function roleAtLeast(role: Role | undefined, minimum: Role): boolean {
  return role !== undefined && ROLES.indexOf(role) >= ROLES.indexOf(minimum)
}

/** The principal scripts act as when they name none: an administrator without a user row. */
export const SYSTEM_PRINCIPAL: Principal = Object.freeze({ id: 0, role: 'administrator' })
