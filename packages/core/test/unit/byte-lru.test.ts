import { describe, expect, it } from 'vitest'
import { answerSize, ByteLru, ENTRY_OVERHEAD } from '../../src/http/byte-lru.js'

const entry = (size: number) => ({ size })

describe('ByteLru (the hot-read cache and the feed cache keep their answers in it)', () => {
  it('evicts the least recently used beyond the byte bound; a touch makes an entry recent', () => {
    const lru = new ByteLru<{ size: number }>(300)
    const a = entry(100)
    lru.set('a', a)
    lru.set('b', entry(100))
    lru.set('c', entry(100))
    lru.touch('a', a)
    lru.set('d', entry(100))
    expect([lru.get('a'), lru.get('b'), lru.get('c'), lru.get('d')].map(Boolean)).toEqual([true, false, true, true])
    expect(lru.bytes).toBe(300)
    expect(lru.count).toBe(3)
  })

  it('bounds the count too, and replacing a key counts its bytes once', () => {
    const lru = new ByteLru<{ size: number }>(1000, 2)
    lru.set('a', entry(10))
    lru.set('a', entry(20))
    expect(lru.bytes).toBe(20)
    lru.set('b', entry(10))
    lru.set('c', entry(10))
    expect(lru.get('a')).toBeUndefined()
    expect(lru.bytes).toBe(20)
  })

  it('counts bytes grown later only while the entry is the one kept, and drops what is stale', () => {
    const lru = new ByteLru<{ size: number; base: number }>(1000)
    const old = { size: 10, base: 1 }
    lru.set('a', old)
    lru.set('a', { size: 10, base: 2 })
    lru.grow('a', old, 50)
    expect(lru.bytes).toBe(10)
    expect(lru.holds('a', old)).toBe(false)
    lru.set('b', { size: 30, base: 3 })
    lru.grow('b', lru.get('b')!, 5)
    expect(lru.bytes).toBe(45)
    lru.dropWhere((e) => e.base <= 2)
    expect([lru.count, lru.bytes]).toEqual([1, 35])
  })

  it('sizes an answer as its text, its headers and the overhead', () => {
    expect(answerSize(7, { ETag: '"x"' })).toBe(7 + 4 + 3 + ENTRY_OVERHEAD)
  })
})
