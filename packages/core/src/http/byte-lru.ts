// Answers kept by recency within a byte bound: the hot-read cache (`response-cache.ts`) and
// the feed cache (`ical/feed-builds.ts`) keep their answers in one of these and differ only in what
// an entry holds and when it is kept.

/** Per-entry bookkeeping counted against the bound besides the text (key, headers object, point). */
export const ENTRY_OVERHEAD = 512

/** What the cache reads of an entry: its size in bytes (text, headers and `ENTRY_OVERHEAD`). */
export interface Sized {
  size: number
}

/** The size of an answer of `text` (its chunks' lengths) and `headers`, overhead included. */
export function answerSize(text: number, headers: Readonly<Record<string, string>>): number {
  let size = text + ENTRY_OVERHEAD
  for (const [name, value] of Object.entries(headers)) size += name.length + value.length
  return size
}

/** Entries by key, least recently used first out, at most `maxBytes` (and `maxEntries`) in all. */
export class ByteLru<E extends Sized> {
  // Map order is recency: a hit moves its entry to the end, eviction takes from the front.
  private readonly entries = new Map<string, E>()
  private total = 0

  constructor(
    private readonly maxBytes: number,
    private readonly maxEntries = Infinity,
  ) {}

  /** Entries kept now. */
  get count(): number {
    return this.entries.size
  }

  /** Bytes kept now (their `size`s). */
  get bytes(): number {
    return this.total
  }

  get(key: string): E | undefined {
    return this.entries.get(key)
  }

  /** Whether `entry` is still the one kept for `key` (it may have been replaced or evicted since it was read). */
  holds(key: string, entry: E): boolean {
    return this.entries.get(key) === entry
  }

  /** Marks `entry` as just used, when it is still the one kept for `key`. */
  touch(key: string, entry: E): void {
    if (!this.holds(key, entry)) return
    this.entries.delete(key)
    this.entries.set(key, entry)
  }

  /** Keeps `entry` for `key` (replacing what was), then evicts the least recently used beyond the bounds. */
  set(key: string, entry: E): void {
    this.drop(key)
    this.entries.set(key, entry)
    this.total += entry.size
    for (const oldest of this.entries.keys()) {
      if (this.total <= this.maxBytes && this.entries.size <= this.maxEntries) break
      this.drop(oldest)
    }
  }

  drop(key: string): void {
    const entry = this.entries.get(key)
    if (!entry) return
    this.entries.delete(key)
    this.total -= entry.size
  }

  /** Drops every entry `stale` says is. */
  dropWhere(stale: (entry: E) => boolean): void {
    for (const [key, entry] of this.entries) if (stale(entry)) this.drop(key)
  }

  /** Adds `added` bytes made later for `entry` (counted while it is still the one kept for `key`). */
  grow(key: string, entry: E, added: number): void {
    entry.size += added
    if (this.holds(key, entry)) this.total += added
  }
}
