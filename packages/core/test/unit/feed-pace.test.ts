import { describe, expect, it } from 'vitest'
import { BUSY_LOOP, feedPace, MAX_REST_MS, type PaceClock } from '../../src/ical/feed-pace.js'

// Issue 28: a feed build is background work. Between two pages it rests while the event loop is
// busy with other work (about as long as the page took, scaled by how busy), and reads on at once
// while the loop is idle, so a feed asked for on a quiet server is not slowed.

/** A clock whose time and event loop utilization the test sets; it records the rests asked for. */
function testClock() {
  const state = { now: 0, busy: 0, rests: [] as number[] }
  const clock: PaceClock = {
    // The utilization the test set last stands for the whole interval since the mark.
    mark: () => ({ since: () => state.busy }),
    now: () => state.now,
    sleep: async (ms) => {
      state.rests.push(ms)
      state.now += ms
    },
  }
  return { state, clock }
}

describe('feed build pace (issue 28)', () => {
  it('reads the next page at once while the event loop is idle', async () => {
    const { state, clock } = testClock()
    const pace = feedPace(clock)
    state.busy = 0.2
    state.now += 40
    await pace.next()
    state.now += 40
    await pace.next()
    expect(state.rests).toEqual([])
  })

  it('rests about as long as the last page took while the loop is busy with other work, at most MAX_REST_MS', async () => {
    const { state, clock } = testClock()
    state.busy = 0.9
    const pace = feedPace(clock)
    state.now += 40
    await pace.next()
    expect(state.rests).toEqual([40 * 0.9])
    // The rest is not counted as the next page's time.
    state.now += 30
    await pace.next()
    expect(state.rests).toEqual([36, 30 * 0.9])
    state.now += 10_000
    await pace.next()
    expect(state.rests.at(-1)).toBe(MAX_REST_MS)
    // Just under the threshold: no rest.
    state.busy = BUSY_LOOP
    state.now += 40
    const rests = state.rests.length
    await pace.next()
    expect(state.rests).toHaveLength(rests)
  })
})
