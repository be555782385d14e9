import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ERRORS } from '../../core/src/http/error-response.js'
import { BAD_REQUEST, CLIENT_ERRORS } from '../src/client-errors.js'

// docs/errors.md lists every wire code the service sends; the tables in the code are the truth.

const DOC = new URL('../../../docs/errors.md', import.meta.url)

/** `code -> statuses` of every table row "| `code` | 401 / 403 | when |" in the page. */
function documented(markdown: string): Map<string, number[]> {
  const rows = new Map<string, number[]>()
  for (const m of markdown.matchAll(/^\| `([^`]+)` \| ([^|]+) \| [^|]*\S[^|]* \|$/gm)) {
    const statuses = m[2]!.split('/').map((s) => Number(s.trim()))
    expect(rows.has(m[1]!), `${m[1]} has one row`).toBe(false)
    expect(statuses.every(Number.isInteger), `${m[1]}'s status "${m[2]}"`).toBe(true)
    rows.set(m[1]!, statuses)
  }
  return rows
}

/** `code -> statuses` of everything the calendar and the Express adapter send. */
function sent(): Map<string, number[]> {
  const codes = new Map<string, number[]>()
  for (const { code, status } of [...Object.values(ERRORS), ...Object.values(CLIENT_ERRORS), BAD_REQUEST]) {
    codes.set(code, [...new Set([...(codes.get(code) ?? []), status])].sort((a, b) => a - b))
  }
  return codes
}

describe('docs/errors.md', () => {
  it('has one row for every wire code sent, with its statuses, and none for a code no longer sent', () => {
    const doc = documented(readFileSync(DOC, 'utf8'))
    const code = sent()
    expect([...code.keys()].filter((name) => !doc.has(name)), 'sent without a row').toEqual([])
    expect([...doc.keys()].filter((name) => !code.has(name)), 'rows for codes not sent').toEqual([])
    for (const [name, statuses] of code) expect([...doc.get(name)!].sort((a, b) => a - b), name).toEqual(statuses)
  })
})
