/** Bounds of the hot-read cache (`responseCache` option of `createCalendar`). */
export interface ResponseCacheOptions {
  /** Approximate memory for kept answers: characters of body and headers, plus a fixed cost per entry. */
  maxBytes: number
  /** Most answers kept. */
  maxEntries: number
}

/** The default: on, 32 MB, 10,000 answers. */
export const DEFAULT_RESPONSE_CACHE: ResponseCacheOptions = Object.freeze({ maxBytes: 32 * 1024 * 1024, maxEntries: 10_000 })

/** Bounds of iCalendar feeds (`feeds` option of `createCalendar`). */
export interface FeedOptions {
  /** Feeds built at the same time; a build that finds none free waits in the queue. */
  concurrency: number
  /** Builds that may wait for a free slot; one more is answered 503 at once. */
  queue: number
  /** How long a build waits in the queue before it is answered 503. */
  queueWaitMs: number
  /** Most events one feed holds (the first ones in list order). */
  maxEvents: number
  /** Memory for kept feeds, in characters of text (a feed of 25,000 events is about 20 MB); 0 keeps none. */
  cacheBytes: number
  /** Worker threads that build feeds' text off the event loop; 0 builds it on the event loop, in slices. */
  workers: number
}

/** The defaults: 1 build at once (a build shares the event loop with every other request), 4 waiting up to 5 s, 25,000 events a feed, 64 MB of kept feeds. */
export const DEFAULT_FEEDS: FeedOptions = Object.freeze({
  concurrency: 1,
  queue: 4,
  queueWaitMs: 5_000,
  maxEvents: 25_000,
  cacheBytes: 64 * 1024 * 1024,
  workers: 1,
})
