const MAX_SLUG = 180
const MAX_WITH_SUFFIX = 200

// Cut without leaving a dangling separator, which would look like a missing word.
const cut = (s: string, max: number): string => s.slice(0, max).replace(/-+$/, '')

/** URL slug: lower-case, accent-folded (Latin-style diacritics only), unicode letters/digits/underscore joined by single hyphens, max 180 chars. */
export function slugify(input: string): string {
  const folded = input
    .toLowerCase()
    .normalize('NFKD')
    // Only the generic diacritic blocks: \p{M} would also strip Japanese dakuten (ベ → ヘ) and Indic
    // vowel signs, which are part of the letter, not an accent. NFC then re-joins what was kept.
    // eslint-disable-next-line no-misleading-character-class -- combining-mark ranges are the point here
    .replace(/[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+/g, '')
    .normalize('NFC')
    // Dropped rather than hyphenated so "Rock & Roll" → "rock-roll" and "Don't" → "dont".
    .replace(/[&'"‘’‚‛“”„‟`´]/g, '')
    // Surviving marks are parts of letters (Indic vowel signs), so they count as letters here.
    .replace(/[^\p{L}\p{M}\p{N}_]+/gu, '-')
    .replace(/^-+|-+$/g, '')
  return cut(folded, MAX_SLUG)
}

/** Disambiguates a taken slug as `slug-n` (n ≥ 2; smaller n returns slug unchanged), trimming slug to fit 200 chars. */
export function withSuffix(slug: string, n: number): string {
  if (!Number.isInteger(n)) throw new RangeError(`Slug suffix must be an integer, got ${n}`)
  // The first holder of a slug keeps it bare; numbering starts at 2 as in WordPress.
  if (n < 2) return slug
  const suffix = `-${n}`
  const base = cut(slug, MAX_WITH_SUFFIX - suffix.length)
  return base === '' ? String(n) : `${base}${suffix}`
}
