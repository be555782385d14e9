import { measure, type LoadResult } from './load.js'
import type { Targets } from './scenarios.js'
import { ADMIN_TOKEN, type RunningServer } from './server.js'

// The default list beside a hostile mix (issue 28 item 5): embedded, the calendar shares its host's
// event loop, so no request, anonymous or not, may stall it. The list is measured alone, then beside
// pathological rules (anonymous and administrator creates), far-future windows and four parallel
// full feeds, each kind sent back to back (at most 5 a second each: a mix of expensive requests,
// not a flood of cheap ones) from this process while the load generator runs; meanwhile a probe
// reads /healthz every 100 ms for its latency and the event loop's delay it reports.

/** The rule the issue found holding the loop for 9 s: a 366th weekday of a week that has seven. */
export const HOSTILE_RULE = 'RRULE:FREQ=WEEKLY;BYSETPOS=366;BYDAY=MO,TU,WE,TH,FR,SA,SU'

/** A window far past any stored occurrence horizon. */
export const FAR_WINDOW = '/events?start_date=2900-01-01&end_date=2903-12-31'

/** Full feeds downloaded at the same time. */
const PARALLEL_FEEDS = 4

/** Shortest time between two requests of one hostile kind (one in flight each). */
const MIN_GAP_MS = 200

/** Longer than the window /healthz reports the loop's delay over (10 to 20 s). */
const SETTLE_MS = 21_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** How often the probe asks /healthz. */
const PROBE_MS = 100

/** One kind of hostile request and what became of them. */
export interface HostileKind {
  name: string
  sent: number
  /** Answers by status (`error` for a failed connection). */
  statuses: Record<string, number>
  /** Slowest answer, ms. */
  maxMs: number
}

/** What the probe saw: /healthz latencies and the highest loop delay it reported. */
export interface ProbeResult {
  samples: number
  p50: number
  p99: number
  max: number
  /** Highest `eventLoop.maxDelayMs` of /healthz over the phase (each covers the last 10 to 20 s). */
  loopMaxDelayMs: number
  /** Highest `eventLoop.p99DelayMs`. */
  loopP99DelayMs: number
}

/** The scenario's result: the list alone and beside, the probe in each phase, the mix's answers. */
export interface HostileBeside {
  alone: LoadResult
  beside: LoadResult
  /** Beside over alone, req/s. */
  ratio: number
  probeAlone: ProbeResult
  probeBeside: ProbeResult
  kinds: HostileKind[]
  /** The feed path each download varies (its start moves a day earlier per request, so none is answered from a kept feed). */
  feedPath: string
}

/** Targets of the issue (benchmark figures, not timed tests). */
export const HOSTILE_GOALS = { ratio: 0.7, healthzP99Ms: 100, loopMaxDelayMs: 50 } as const

const percentile = (sorted: number[], p: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!)

const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)

/** Sends `request` back to back until stopped, counting answers by status. */
function loop(name: string, request: (i: number) => Promise<Response>): { stop(): Promise<HostileKind> } {
  const kind: HostileKind = { name, sent: 0, statuses: {}, maxMs: 0 }
  let stopped = false
  const running = (async () => {
    for (let i = 0; !stopped; i++) {
      const t0 = performance.now()
      let status: string
      try {
        const res = await request(i)
        await res.arrayBuffer()
        status = String(res.status)
      } catch {
        status = 'error'
      }
      kind.sent++
      kind.statuses[status] = (kind.statuses[status] ?? 0) + 1
      const took = performance.now() - t0
      kind.maxMs = Math.max(kind.maxMs, took)
      if (took < MIN_GAP_MS && !stopped) await sleep(MIN_GAP_MS - took)
    }
  })()
  return {
    async stop() {
      stopped = true
      await running
      return kind
    },
  }
}

/** Reads /healthz every `PROBE_MS` until stopped. */
function probe(server: RunningServer): { stop(): Promise<ProbeResult> } {
  const latencies: number[] = []
  let loopMax = 0
  let loopP99 = 0
  let stopped = false
  const running = (async () => {
    while (!stopped) {
      const t0 = performance.now()
      try {
        const res = await fetch(`${server.origin}/healthz`)
        const body = (await res.json()) as { eventLoop?: { maxDelayMs: number; p99DelayMs: number } }
        latencies.push(performance.now() - t0)
        loopMax = Math.max(loopMax, body.eventLoop?.maxDelayMs ?? 0)
        loopP99 = Math.max(loopP99, body.eventLoop?.p99DelayMs ?? 0)
      } catch {
        latencies.push(performance.now() - t0)
      }
      const wait = PROBE_MS - (performance.now() - t0)
      if (wait > 0) await sleep(wait)
    }
  })()
  return {
    async stop() {
      stopped = true
      await running
      const sorted = [...latencies].sort((a, b) => a - b)
      return { samples: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? 0, loopMaxDelayMs: loopMax, loopP99DelayMs: loopP99 }
    },
  }
}

/** Starts the hostile mix against `server`. */
export function startMix(server: RunningServer, targets: Targets): { feedPath: string; stop(): Promise<HostileKind[]> } {
  const ruleBody = (i: number) =>
    JSON.stringify({ title: `Hostile ${i}`, status: 'publish', start_date: '2026-06-01 10:00:00', end_date: '2026-06-01 11:00:00', recurrence: [HOSTILE_RULE] })
  const post = (token: string | undefined) => (i: number) =>
    fetch(`${server.base}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: ruleBody(i),
    })
  // The window starts a day earlier per request (before the first event: the same events), so no
  // request is answered from a kept feed.
  const feedPath = `/events/ical?start_date=${targets.feed.start}-N days&end_date=${targets.feed.end}`
  const feed = (k: number) => (i: number) =>
    fetch(`${server.base}/events/ical?start_date=${addDays(targets.feed.start, -1 - ((i * PARALLEL_FEEDS + k) % 3650))}&end_date=${targets.feed.end}`)
  // BENCH_MIX=rules,far,feeds (the default: all three) runs only the parts named, to see which
  // part of the mix costs the list what.
  const parts = new Set((process.env.BENCH_MIX ?? 'rules,far,feeds').split(','))
  const loops = [
    ...(parts.has('rules') ? [loop('anonymous POST /events with the rule', post(undefined)), loop('administrator POST /events with the rule', post(ADMIN_TOKEN))] : []),
    ...(parts.has('far') ? [loop(`anonymous GET ${FAR_WINDOW}`, () => fetch(`${server.base}${FAR_WINDOW}`))] : []),
    ...(parts.has('feeds') ? Array.from({ length: PARALLEL_FEEDS }, (_, k) => loop(`full feed ${k + 1} of ${PARALLEL_FEEDS}`, feed(k))) : []),
  ]
  return { feedPath, stop: () => Promise.all(loops.map((l) => l.stop())) }
}

/**
 * The default list alone and then beside the hostile mix, each with the /healthz probe running.
 * Run it last on a server: the mix's administrator creates may add events.
 */
export async function hostileBeside(
  server: RunningServer,
  targets: Targets,
  runOpts: { connections: number; duration: number; warmup: number },
): Promise<HostileBeside> {
  // /healthz reports the loop's delay over the last 10 to 20 s: each phase starts after a window
  // of its own, so that what ran before (seeding, other scenarios, the alone phase) is not in it.
  await sleep(SETTLE_MS)
  const aloneProbe = probe(server)
  const alone = await measure(server, { scenario: 'list', targets }, { ...runOpts, stats: true })
  const probeAlone = await aloneProbe.stop()
  const mix = startMix(server, targets)
  await sleep(SETTLE_MS)
  // The mix runs through the generator's warm-up too: the list is measured in its steady state.
  const besideProbe = probe(server)
  const measured = await measure(server, { scenario: 'list', targets }, { ...runOpts, stats: true }).then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  )
  const kinds = await mix.stop()
  const probeBeside = await besideProbe.stop()
  if ('error' in measured) throw measured.error
  const beside = measured.result
  return { alone, beside, ratio: beside.rps / alone.rps, probeAlone, probeBeside, kinds, feedPath: mix.feedPath }
}
