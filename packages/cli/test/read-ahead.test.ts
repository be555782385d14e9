import { describe, expect, it } from 'vitest'
import { readAhead } from '../src/read-ahead.js'

// migrate-site reads the source's event list ahead of the import (issue 33), but never more than
// `max` items: a source far faster than the import must not end up whole in memory.

/** A source of `count` numbers, each after a tick; counts how many were read; fails at `failAt`. */
function counted(count: number, failAt?: number) {
  let produced = 0
  async function* source() {
    for (let i = 0; i < count; i++) {
      await new Promise((resolve) => setImmediate(resolve))
      if (i === failAt) throw new Error(`source failed at ${i}`)
      produced++
      yield i
    }
  }
  return { source: source(), produced: () => produced }
}

const ticks = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve))
}

describe('readAhead', () => {
  it('reads ahead of a consumer that has not asked, at most `max` items', async () => {
    const src = counted(100)
    const ahead = readAhead(src.source, 10)
    await ticks(50)
    expect(src.produced()).toBe(10)
    const taken: number[] = []
    for await (const item of ahead.items) {
      taken.push(item)
      if (taken.length === 5) {
        await ticks(20)
        // Room for five more, read while the consumer worked: ten taken or held, never more.
        expect(src.produced()).toBe(15)
      }
    }
    expect(taken).toEqual(Array.from({ length: 100 }, (_, i) => i))
    await ahead.stop()
  })

  it('gives every item read before a failure, then throws it', async () => {
    const ahead = readAhead(counted(20, 7).source, 100)
    const taken: number[] = []
    await expect(
      (async () => {
        for await (const item of ahead.items) taken.push(item)
      })(),
    ).rejects.toThrow('source failed at 7')
    expect(taken).toEqual([0, 1, 2, 3, 4, 5, 6])
    await ahead.stop()
  })

  it('stop() ends the reading while it waits for room', async () => {
    const src = counted(1000)
    const ahead = readAhead(src.source, 3)
    await ticks(20)
    await ahead.stop()
    expect(src.produced()).toBe(3)
  })
})
