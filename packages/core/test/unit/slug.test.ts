import { describe, expect, it } from 'vitest'
import { slugify, withSuffix } from '../../src/shared/slug.js'

describe('slugify', () => {
  it.each([
    ['Sample Event', 'sample-event'],
    ['Café  Été!!', 'cafe-ete'],
    ['Seed Event 0 (updated)', 'seed-event-0-updated'],
    ['', ''],
    ['!!!', ''],
    ['Rock & Roll', 'rock-roll'],
    ["Don't \"Stop\"", 'dont-stop'],
    ['snake_case stays', 'snake_case-stays'],
    ['--already--slugged--', 'already-slugged'],
    ['Zürich Straße', 'zurich-straße'],
    ['東京 イベント', '東京-イベント'],
    ['ﬁne', 'fine'],
    ['Новый Год', 'новыи-год'],
    ['हिन्दी कार्यक्रम', 'हिन्दी-कार्यक्रम'],
  ])('%j → %j', (input, expected) => {
    expect(slugify(input)).toBe(expected)
  })

  it('truncates to 180 characters without a trailing hyphen', () => {
    expect(slugify('a'.repeat(300))).toHaveLength(180)
    const s = slugify(`${'a'.repeat(179)} bcd`)
    expect(s).toBe('a'.repeat(179))
  })
})

describe('withSuffix', () => {
  it('appends -n', () => {
    expect(withSuffix('sample-event', 2)).toBe('sample-event-2')
    expect(withSuffix('sample-event', 17)).toBe('sample-event-17')
  })

  it('leaves n < 2 alone', () => {
    expect(withSuffix('sample-event', 1)).toBe('sample-event')
  })

  it('keeps the result within 200 characters', () => {
    const long = `${'a'.repeat(197)}-bb`
    expect(withSuffix(long, 12)).toBe(`${'a'.repeat(197)}-12`)
    expect(withSuffix('x'.repeat(250), 3)).toHaveLength(200)
  })

  it('rejects non-integers', () => {
    expect(() => withSuffix('a', 2.5)).toThrow(RangeError)
  })
})
