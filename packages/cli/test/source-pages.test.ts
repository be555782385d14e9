import { describe, expect, it } from 'vitest'
import { listAll, SourceError, type Source } from '../src/source.js'

// listAll's read-ahead (issue 33: a 100,000-event source is 2,000 pages of 50): pages asked a few
// at a time by number, yielded in order, a bad page reported by its URL when its turn comes.
const ROOT = 'http://source.test/cal/events/v1'

/** A source of `pages` pages of 3 events, answering after a tick; `bad` answers garbage. */
function fakeSource(pages: number, bad?: number) {
  let inFlight = 0
  let most = 0
  const asked: number[] = []
  const source: Source = {
    root: ROOT,
    async getJson(url: string) {
      const page = Number(new URL(url).searchParams.get('page') ?? '1')
      asked.push(page)
      most = Math.max(most, ++inFlight)
      await new Promise((resolve) => setTimeout(resolve, 5))
      inFlight--
      if (page === bad) return { nothing: true }
      const next = page < pages ? `${ROOT}/events/?page=${page + 1}&per_page=3` : undefined
      const events = [0, 1, 2].map((i) => ({ id: (page - 1) * 3 + i + 1 }))
      return { events, total: pages * 3, total_pages: pages, ...(next ? { next_rest_url: next } : {}) }
    },
  }
  return { source, asked, most: () => most }
}

describe('reading a source list', () => {
  it('asks up to `readAhead` pages at once and yields every item in order', async () => {
    const fake = fakeSource(9)
    const ids: number[] = []
    for await (const page of listAll(fake.source, `${ROOT}/events?per_page=3`, 'events', 4)) ids.push(...page.items.map((e) => Number(e.id)))
    expect(ids).toEqual(Array.from({ length: 27 }, (_, i) => i + 1))
    expect(fake.most()).toBe(4)
    expect(fake.asked.toSorted((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
  })

  it('without read-ahead, follows next_rest_url one page at a time', async () => {
    const fake = fakeSource(5)
    let n = 0
    for await (const page of listAll(fake.source, `${ROOT}/events?per_page=3`, 'events')) n += page.items.length
    expect(n).toBe(15)
    expect(fake.most()).toBe(1)
  })

  it('a page that is no list stops the reading with its URL, after the pages before it', async () => {
    const fake = fakeSource(9, 6)
    const ids: number[] = []
    const reading = (async () => {
      for await (const page of listAll(fake.source, `${ROOT}/events?per_page=3`, 'events', 3)) ids.push(...page.items.map((e) => Number(e.id)))
    })()
    const err = await reading.catch((e: unknown) => e)
    expect(err).toBeInstanceOf(SourceError)
    expect(String((err as SourceError).message)).toMatch(/page=6/)
    expect(ids).toHaveLength(15)
  })
})
