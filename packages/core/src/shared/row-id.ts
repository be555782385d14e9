/**
 * Whether `n` can be a row id (a serial `int4` column: 1 to 2^31 - 1). Anything else names no row:
 * looked up, it would be a database error, not an answer.
 */
export function isRowId(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 2_147_483_647
}
