import type { SqlSession } from './db.js'
import { rssOf, type RunningServer } from './server.js'

/** Events of the feed scenario (issue 20's target: a 20,000-event feed). */
export const FEED_EVENTS = 20_000

/** One download of the big feed. */
export interface FeedRound {
  events: number
  bytes: number
  /** Request sent to last byte. */
  seconds: number
  firstByteMs: number
  eventsPerSecond: number
  /** Server RSS just before the request, and the highest seen while it streamed (sampled every 10 ms). */
  rssBefore: number
  rssPeak: number
}

/** The feed scenario's result: the path, and each round. */
export interface FeedResult {
  path: string
  rounds: FeedRound[]
  /** RSS growth of the first round over the server's RSS before any big feed (the cold, worst case). */
  rssGrowth: number
  /** Median events/s over the rounds. */
  eventsPerSecond: number
}

/**
 * A window holding about `FEED_EVENTS` events of the anonymous feed: from the first listed event's
 * day to the day the 20,000th ends (list bounds are whole days: start on or after the first, end on
 * or before the last).
 */
export async function feedWindow(session: SqlSession): Promise<{ start: string; end: string }> {
  const visible = `status = 'publish' and not hide_from_listings`
  const [first] = await session.query<{ d: string }>(`select to_char(min(start_local), 'YYYY-MM-DD') as d from events where ${visible}`)
  const start = first?.d ?? '2000-01-01'
  const [last] = await session.query<{ d: string }>(
    `select to_char(end_local, 'YYYY-MM-DD') as d from events where ${visible} and start_local >= $1::date order by end_local offset $2 limit 1`,
    [start, FEED_EVENTS - 1],
  )
  return { start, end: last?.d ?? '9999-12-31' }
}

const MARK = 'BEGIN:VEVENT'

/** Downloads `path` once, counting VEVENTs and bytes while sampling the server's RSS. */
async function download(server: RunningServer, path: string): Promise<FeedRound> {
  const rssBefore = rssOf(server.pid)
  let rssPeak = rssBefore
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssOf(server.pid))
  }, 10)
  try {
    const t0 = performance.now()
    const res = await fetch(`${server.base}${path}`)
    if (res.status !== 200 || !res.body) throw new Error(`${path} answered ${res.status}: ${await res.text()}`)
    let firstByteMs = 0
    let bytes = 0
    let events = 0
    let carry = ''
    const decoder = new TextDecoder()
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      if (bytes === 0) firstByteMs = performance.now() - t0
      bytes += chunk.byteLength
      // A marker may straddle two chunks: keep the tail that could start one.
      const text = carry + decoder.decode(chunk, { stream: true })
      events += text.split(MARK).length - 1
      carry = text.slice(-(MARK.length - 1))
    }
    const seconds = (performance.now() - t0) / 1000
    rssPeak = Math.max(rssPeak, rssOf(server.pid))
    return { events, bytes, seconds, firstByteMs, eventsPerSecond: events / seconds, rssBefore, rssPeak }
  } finally {
    clearInterval(sampler)
  }
}

/**
 * The feed scenario: a small feed first (so the code paths are loaded, as on a running server),
 * then `rounds` downloads of the ~20,000-event feed, one at a time.
 */
export async function feedScenario(server: RunningServer, window: { start: string; end: string }, rounds: number): Promise<FeedResult> {
  await download(server, `/events/ical?start_date=${window.start}&end_date=${window.start}`)
  const path = `/events/ical?start_date=${window.start}&end_date=${window.end}`
  const out: FeedRound[] = []
  for (let i = 0; i < Math.max(1, rounds); i++) out.push(await download(server, path))
  const sorted = out.map((r) => r.eventsPerSecond).sort((a, b) => a - b)
  const m = sorted.length >> 1
  const median = sorted.length % 2 === 1 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2
  return { path, rounds: out, rssGrowth: out[0]!.rssPeak - out[0]!.rssBefore, eventsPerSecond: median }
}
