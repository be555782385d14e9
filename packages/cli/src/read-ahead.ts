/**
 * Reads `source` on ahead of its consumer, into memory, so that its round trips overlap the
 * consumer's work instead of waiting for the consumer to ask. `stop()` ends the reading (after
 * the item in flight) and resolves once it has ended; a failure of `source` is thrown to the
 * consumer once it has taken every item read before it.
 */
export function readAhead<T>(source: AsyncIterable<T>): { items: AsyncGenerator<T>; stop(): Promise<void> } {
  const read: (T | undefined)[] = []
  let ended = false
  let stopped = false
  let failure: { error: unknown } | undefined
  let wake: (() => void) | undefined
  const pump = (async () => {
    try {
      for await (const item of source) {
        read.push(item)
        wake?.()
        if (stopped) break
      }
    } catch (error) {
      failure = { error }
    } finally {
      ended = true
      wake?.()
    }
  })()
  async function* items(): AsyncGenerator<T> {
    for (let i = 0; ; ) {
      if (i < read.length) {
        const item = read[i]!
        // Taken items are let go: a list of 100,000 events need not stay twice in memory.
        read[i++] = undefined
        yield item
      } else if (failure) throw failure.error
      else if (ended) return
      else await new Promise<void>((resolve) => (wake = resolve))
    }
  }
  return {
    items: items(),
    async stop() {
      stopped = true
      await pump
    },
  }
}
