import { Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, DummyDriver, sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { containsPattern, escapeLike, idLiteral, likePattern, pageBound } from '../../src/db/sql-literals.js'

// Compiles without a database: the literal is in the statement text, with no parameter.
const db = new Kysely<Record<string, never>>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
})
const compiled = (pattern: ReturnType<typeof likePattern>) => sql`select 1 where x ilike ${pattern}`.compile(db)


describe('SQL literals: LIKE patterns, page bounds and ids', () => {
  it('escapes the wildcards and the escape character', () => {
    expect(escapeLike('100%_a\\b')).toBe('100\\%\\_a\\\\b')
  })

  it('writes an E-string with quotes doubled and backslashes doubled, and no parameter', () => {
    const q = compiled(likePattern(`O'Brien \\ '); drop table x; --`))
    expect(q.parameters).toEqual([])
    expect(q.sql).toBe(`select 1 where x ilike E'O''Brien \\\\ ''); drop table x; --'`)
  })

  it('wraps a contains-search in % after escaping', () => {
    expect(compiled(containsPattern('50%')).sql).toBe(`select 1 where x ilike E'%50\\\\%%'`)
  })

  it('refuses NUL, which would end the statement text', () => {
    expect(() => likePattern('a\u0000b')).toThrow(/NUL/)
  })

  it('writes page bounds as literals, and only row counts', () => {
    const q = sql`select 1 limit ${pageBound(50)} offset ${pageBound(0)}`.compile(db)
    expect(q).toMatchObject({ sql: 'select 1 limit 50 offset 0', parameters: [] })
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 60]) expect(() => pageBound(bad), String(bad)).toThrow(/row count/)
  })

  it('writes ids as literals, and only positive integers', () => {
    const q = sql`select 1 where term_id in (${sql.join([idLiteral(13), idLiteral(2)])})`.compile(db)
    expect(q).toMatchObject({ sql: 'select 1 where term_id in (13, 2)', parameters: [] })
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 60]) expect(() => idLiteral(bad), String(bad)).toThrow(/not an id/)
  })
})
