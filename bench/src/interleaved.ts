import type { RunningServer } from './server.js'

/** One side's single-caller latencies. */
export interface Latencies {
  p50: number
  p99: number
}

/** A path measured on two servers, one request at a time, alternating between them. */
export interface InterleavedResult {
  name: string
  requests: number
  small: Latencies
  large: Latencies
  p50Ratio: number
  p99Ratio: number
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
}

async function timed(server: RunningServer, path: string): Promise<number> {
  const t0 = performance.now()
  const res = await fetch(`${server.base}${path}`)
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`)
  return performance.now() - t0
}

/**
 * Latency of `path` on `large` against `small`, one caller, requests alternating between the two
 * (the order swapped every pair): both sides meet the same load from the rest of the machine at
 * the same moments, which paired rounds of 13 s each do not guarantee on a shared machine.
 */
export async function interleavedLatency(name: string, path: string, large: RunningServer, small: RunningServer, requests: number): Promise<InterleavedResult> {
  for (let i = 0; i < Math.max(20, requests / 10); i++) await Promise.all([timed(large, path), timed(small, path)])
  const times = { large: [] as number[], small: [] as number[] }
  for (let i = 0; i < requests; i++) {
    const order = i % 2 === 0 ? (['large', 'small'] as const) : (['small', 'large'] as const)
    for (const side of order) times[side].push(await timed(side === 'large' ? large : small, path))
  }
  const of = (xs: number[]): Latencies => {
    const sorted = [...xs].sort((a, b) => a - b)
    return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) }
  }
  const [l, s] = [of(times.large), of(times.small)]
  return { name, requests, small: s, large: l, p50Ratio: l.p50 / s.p50, p99Ratio: l.p99 / s.p99 }
}
