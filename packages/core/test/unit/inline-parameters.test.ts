import { describe, expect, it } from 'vitest'
import { inlineParameters } from '../../src/db/inline-parameters.js'

// Short statements on a host's pool go in one message with their transaction (db/host-pool.ts):
// their parameters written in as literals of unknown type, or the statement is left alone.

describe('inlineParameters', () => {
  it('writes each $n as a quoted literal, $10 not read as $1', () => {
    const values = ['a', 2, null, true, 5n, 'x', 'x', 'x', 'x', "it's"]
    expect(inlineParameters('select $1::text, $2, $3, $4, $5, $10', values)).toBe(`select 'a'::text, '2', null, 'true', '5', 'it''s'`)
  })

  it('leaves $n inside strings, quoted identifiers and comments alone', () => {
    const text = `select '$1 ''$2''' as "col$1", $1 -- $2\n/* $1 */ from t where x = $2`
    expect(inlineParameters(text, ['v', 'w'])).toBe(`select '$1 ''$2''' as "col$1", 'v' -- $2\n/* $1 */ from t where x = 'w'`)
  })

  it('escapes backslashes the way pg does', () => {
    expect(inlineParameters('select $1', ['a\\b'])).toBe(`select  E'a\\\\b'`)
  })

  it('gives up where the result would not be certain', () => {
    expect(inlineParameters('select $1', [new Date()])).toBeUndefined()
    expect(inlineParameters('select $1', [[1, 2]])).toBeUndefined()
    expect(inlineParameters('select $1', [Number.NaN])).toBeUndefined()
    expect(inlineParameters('select $2', ['only one'])).toBeUndefined()
    expect(inlineParameters(`select E'\\'' || $1`, ['x'])).toBeUndefined()
    expect(inlineParameters('select $q$ $1 $q$', ['x'])).toBeUndefined()
    expect(inlineParameters('select 1; select $1', ['x'])).toBeUndefined()
    expect(inlineParameters("select 'open", [])).toBeUndefined()
  })
})
