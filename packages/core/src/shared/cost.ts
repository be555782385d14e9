/** Price points extracted from a free-text cost field, plus the currency symbol they share. */
export interface CostParts {
  values: string[]
  symbol: string
  position: 'prefix' | 'postfix' | ''
}

// Thousands groups are a comma + exactly 3 digits; a comma + 1-2 digits is a decimal comma. Anything
// else after a comma (a space, 4+ digits) ends the number, so "10, 20" is a list of two prices.
const NUMBER_RE = /\d+(?:,\d{3}(?!\d))*(?:[.,]\d{1,2}(?!\d)|\.\d+)?/g
const FREE_RE = /\b(?:free|gratis)\b/gi
// Connectors and punctuation between prices are not part of a currency symbol.
const SEPARATOR_RE = /(?:[\s,;:/|()+\-–—~.!*]|\b(?:to|and|or|from)\b)+/i

type Match = { value: string; index: number }

function normalise(written: string): string {
  const decimalComma = /,\d{1,2}$/.test(written)
  const body = decimalComma ? written.slice(0, written.lastIndexOf(',')) : written
  const tail = decimalComma ? `.${written.slice(written.lastIndexOf(',') + 1)}` : ''
  return body.replace(/,/g, '') + tail
}

function scan(entry: string): { numbers: Match[]; free: boolean; symbols: string[] } {
  const numbers = [...entry.matchAll(NUMBER_RE)].map((m) => ({ value: normalise(m[0]), index: m.index }))
  const free = entry.search(FREE_RE) !== -1
  // Blank out prices so what remains is symbols and separators only.
  const rest = entry.replace(NUMBER_RE, ' ').replace(FREE_RE, ' ')
  const symbols = rest.split(SEPARATOR_RE).filter((t) => t !== '')
  return { numbers, free, symbols }
}

/** Extracts every price point and the shared currency symbol from a cost string or list of strings. */
export function parseCost(input: string | string[]): CostParts {
  const entries = (Array.isArray(input) ? input : [input]).filter((e): e is string => typeof e === 'string')
  const byNumber = new Map<number, string>()
  const symbols = new Set<string>()
  let position: CostParts['position'] = ''
  for (const entry of entries) {
    const { numbers, free, symbols: found } = scan(entry)
    const prices = free ? [...numbers.map((m) => m.value), '0'] : numbers.map((m) => m.value)
    for (const value of prices) {
      const n = Number(value)
      // "20" and "20.00" are the same price; the first spelling seen wins.
      if (Number.isFinite(n) && !byNumber.has(n)) byNumber.set(n, value)
    }
    for (const s of found) symbols.add(s)
    const first = numbers[0]
    if (position === '' && first && found[0] !== undefined) {
      position = entry.indexOf(found[0]) < first.index ? 'prefix' : 'postfix'
    }
  }
  const values = [...byNumber.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v)
  // Mixed or absent symbols cannot be displayed faithfully on a range, so fall back to none.
  const symbol = symbols.size === 1 && values.length > 0 ? [...symbols][0]! : ''
  return { values, symbol, position: symbol === '' ? '' : position || 'prefix' }
}

/** Renders the cheapest–dearest range for display, `Free` for zero, `$` when no symbol was given. */
export function formatCost(parts: CostParts): string {
  const priced = parts.values.map((v) => ({ v, n: Number(v) })).filter((p) => Number.isFinite(p.n))
  if (priced.length === 0) return ''
  priced.sort((a, b) => a.n - b.n)
  const symbol = parts.symbol || '$'
  const postfix = parts.symbol !== '' && parts.position === 'postfix'
  const show = (p: { v: string; n: number }): string => (p.n === 0 ? 'Free' : postfix ? `${p.v}${symbol}` : `${symbol}${p.v}`)
  const low = priced[0]!
  const high = priced[priced.length - 1]!
  return low.n === high.n ? show(low) : `${show(low)} – ${show(high)}`
}
