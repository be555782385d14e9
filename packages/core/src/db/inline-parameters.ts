import pg from 'pg'

/**
 * `text` with its parameters `$1`, `$2`, … written in as quoted literals, for a statement sent in
 * one simple-protocol message with the statements around it (`host-pool.ts`). A quoted literal is
 * of unknown type, as a parameter pg sends without a type is: the server resolves both the same
 * way. `undefined` whenever that is not certain, and the statement is sent as it is: a value other
 * than a string, number, bigint, boolean or null (pg formats dates, arrays and buffers itself),
 * more than one statement, E'' strings, dollar quoting, nested comments, a parameter never given.
 */
export function inlineParameters(text: string, values: readonly unknown[]): string | undefined {
  const literals: string[] = []
  for (const value of values) {
    const literal = literalOf(value)
    if (literal === undefined) return undefined
    literals.push(literal)
  }
  let out = ''
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (c === "'" || c === '"') {
      if (c === "'" && /[A-Za-z0-9_]/.test(text[i - 1] ?? '')) return undefined // E'', U&'', B'', X''
      const end = closing(text, i, c)
      if (end < 0) return undefined
      out += text.slice(i, end + 1)
      i = end + 1
    } else if (c === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i)
      const stop = end < 0 ? text.length : end
      out += text.slice(i, stop)
      i = stop
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2)
      if (end < 0 || text.slice(i + 2, end).includes('/*')) return undefined
      out += text.slice(i, end + 2)
      i = end + 2
    } else if (c === '$') {
      const digits = /^\$(\d+)/.exec(text.slice(i))
      if (!digits) return undefined // $tag$ quoting
      const literal = literals[Number(digits[1]) - 1]
      if (literal === undefined) return undefined
      out += literal
      i += digits[0].length
    } else if (c === ';') {
      return undefined
    } else {
      out += c
      i++
    }
  }
  return out
}

/** Index of the quote closing the one at `start` (a doubled quote stays inside); -1 if none. */
function closing(text: string, start: number, quote: string): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] !== quote) continue
    if (text[i + 1] === quote) i++
    else return i
  }
  return -1
}

/** The literal pg's own text form of `value` would give, or `undefined` when it is not plain. */
function literalOf(value: unknown): string | undefined {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'string') return pg.escapeLiteral(value)
  if (typeof value === 'number') return Number.isFinite(value) ? `'${String(value)}'` : undefined
  if (typeof value === 'bigint') return `'${value.toString()}'`
  if (typeof value === 'boolean') return value ? "'true'" : "'false'"
  return undefined
}
