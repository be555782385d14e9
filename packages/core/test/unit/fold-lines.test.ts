import { foldLines as libraryFold } from 'ical-generator'
import { describe, expect, it } from 'vitest'
import { foldLines } from '../../src/time/fold-lines.js'

// Issue 28: a feed's VEVENTs are folded at 75 octets. ical-generator's `foldLines` encodes every
// character with a new TextEncoder to learn its UTF-8 length: a third of a feed worker's CPU and
// most of its garbage (whose collection runs on V8's helper threads, not niced like the worker).
// Ours must fold exactly as it does, for a fraction of the work.

/** A deterministic generator (the same inputs at every run). */
function random(seed: number) {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

// ASCII, 2-byte (é), 3-byte (€, 中), 4-byte (😀, a surrogate pair), lone surrogates, CR and LF.
const PIECES = ['a', 'Z', ' ', ';', ':', 'é', 'ß', '€', '中', '😀', '𝄞', '\ud800', '\udc00', '\r\n', '\n', '\r']

function text(next: () => number, length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += PIECES[Math.floor(next() ** 2 * PIECES.length)]
  return out
}

describe('foldLines (issue 28)', () => {
  it('folds as ical-generator does', () => {
    const next = random(28)
    const cases = ['', 'a', 'x'.repeat(74), 'x'.repeat(75), 'x'.repeat(149), 'é'.repeat(40), '😀'.repeat(30), `${'x'.repeat(73)}😀y`, `${'x'.repeat(74)}\ud800`]
    for (let i = 0; i < 2000; i++) cases.push(text(next, Math.floor(next() * 400)))
    for (const input of cases) expect(foldLines(input)).toBe(libraryFold(input))
  })

  it('costs a fraction of what ical-generator takes for a feed-sized text', () => {
    const next = random(6)
    const lines = Array.from({ length: 1000 }, () => `DESCRIPTION:${text(next, 60)}${'An evening of chamber music, '.repeat(Math.floor(next() * 8))}`)
    const input = lines.join('\r\n')
    const time = (fold: (s: string) => string) => {
      let best = Infinity
      for (let round = 0; round < 3; round++) {
        const t0 = performance.now()
        fold(input)
        best = Math.min(best, performance.now() - t0)
      }
      return best
    }
    // Alternated, best of three each: the machine is shared, only the ratio counts (seen ~0.05).
    const ours = Math.min(time(foldLines), time(foldLines))
    const theirs = Math.min(time(libraryFold), time(libraryFold))
    expect(ours / theirs).toBeLessThan(0.25)
  })
})
