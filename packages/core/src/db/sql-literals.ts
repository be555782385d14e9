import { sql, type RawBuilder } from 'kysely'

/** `text` with LIKE's wildcards and escape character escaped, to match literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`)
}

/**
 * A LIKE/ILIKE pattern written into the statement as a string literal, never as a parameter.
 * A named statement may settle on a generic plan (`prepared-statements.ts`), and a generic plan
 * cannot use a trigram or `text_pattern_ops` index for a pattern it does not know: search fell from
 * about 900 to 27 requests a second that way. The `E''` form escapes backslashes and quotes the
 * same way whatever `standard_conforming_strings` says.
 */
export function likePattern(pattern: string): RawBuilder<string> {
  // Text values never hold NUL (the API refuses it); in a statement it would end the text early.
  if (pattern.includes('\u0000')) throw new Error('likePattern: NUL in a pattern')
  return sql.raw(`E'${pattern.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`)
}

/** A pattern matching `text` anywhere, case as the operator decides. */
export function containsPattern(text: string): RawBuilder<string> {
  return likePattern(`%${escapeLike(text)}%`)
}

/**
 * A page's LIMIT or OFFSET as a literal. A named statement may settle on a generic plan, and a
 * generic plan that does not know how few rows a page wants may sort every match instead of
 * walking an index in list order: search took 74 ms a request that way instead of 0.5 ms.
 */
export function pageBound(n: number): RawBuilder<number> {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`pageBound: not a row count: ${n}`)
  return sql.lit(n)
}

/**
 * A row id as a literal, for ids that differ widely in how many events they hold (terms,
 * organizers): a generic plan that knows the id can weigh its size; with a parameter it assumes an
 * average term, and for a search within a large category it sorted every match (150 ms, not 15).
 */
export function idLiteral(id: number): RawBuilder<number> {
  if (!Number.isSafeInteger(id) || id < 1) throw new Error(`idLiteral: not an id: ${id}`)
  return sql.lit(id)
}
