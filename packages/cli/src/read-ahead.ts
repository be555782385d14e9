/**
 * Reads `source` on ahead of its consumer, at most `max` items, so that its round trips overlap
 * the consumer's work instead of waiting for the consumer to ask, while a source far faster than
 * its consumer (100,000 events listed, imported at a few thousand a second) is not held whole in
 * memory. `stop()` ends the reading (after the item in flight) and resolves once it has ended; a
 * failure of `source` is thrown to the consumer once it has taken every item read before it.
 */
export function readAhead<T>(source: AsyncIterable<T>, max = 2000): { items: AsyncGenerator<T>; stop(): Promise<void> } {
  const read: T[] = []
  let ended = false
  let stopped = false
  let failure: { error: unknown } | undefined
  /** The consumer waiting for an item, the reader waiting for room. */
  let wakeConsumer: (() => void) | undefined
  let wakeReader: (() => void) | undefined
  const pump = (async () => {
    try {
      for await (const item of source) {
        read.push(item)
        wakeConsumer?.()
        while (read.length >= max && !stopped) await new Promise<void>((resolve) => (wakeReader = resolve))
        if (stopped) break
      }
    } catch (error) {
      failure = { error }
    } finally {
      ended = true
      wakeConsumer?.()
    }
  })()
  async function* items(): AsyncGenerator<T> {
    for (;;) {
      if (read.length > 0) {
        // Taken items are let go: only what is read ahead stays in memory.
        const item = read.shift()!
        wakeReader?.()
        yield item
      } else if (failure) throw failure.error
      else if (ended) return
      else await new Promise<void>((resolve) => (wakeConsumer = resolve))
    }
  }
  return {
    items: items(),
    async stop() {
      stopped = true
      wakeReader?.()
      await pump
    },
  }
}
