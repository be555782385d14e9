import { median } from './report.js'
import type { Targets } from './scenarios.js'
import { ADMIN_TOKEN, type RunningServer } from './server.js'

/** One request shape of the sweep, timed alone. */
export interface SweepResult {
  path: string
  status: number
  /** `X-Cal-Total` of the answer, when it has one. */
  total: number | undefined
  /** The first request of this shape, in ms: its statements are new to the pool. */
  first: number
  /** Median of the last `WARM` runs, in ms. */
  warm: number
  /** Slowest of the last `WARM` runs, in ms. */
  warmMax: number
}

/**
 * Runs per shape. The pool names a statement on its third run, and PostgreSQL's plan cache weighs a
 * generic plan after five runs of a named statement, so the last runs are on whatever plan it kept.
 */
const RUNS = 12
const WARM = 4

const day = (d: Date) => d.toISOString().slice(0, 10)

/**
 * Filter combinations, deep pages and other lists beyond the scenarios: their plans depend
 * on values none of the load scenarios use, so a plan that goes wrong for them shows only here.
 */
export function sweepPaths(t: Targets): string[] {
  const [tag1, tag2] = t.tagIds
  const [org1] = t.organizerIds
  // Years from the date-window scenario's start (a month from the seeded "now").
  const windowStart = new Date(`${t.window.start}T00:00:00Z`).getTime()
  const yearsAway = (n: number) => day(new Date(windowStart + n * 365 * 86_400_000))
  return [
    '/events?page=200',
    '/events?per_page=50&page=30',
    `/events?categories=${t.categorySlug}`,
    `/events?categories=${t.categorySlug}&page=100`,
    `/events?tags=${tag1}`,
    `/events?tags=${tag1},${tag2}`,
    `/events?categories=${t.categorySlug}&tags=${tag1}`,
    `/events?organizer=${org1}`,
    `/events?organizer=${org1}&categories=${t.categorySlug}`,
    `/events?venue=${t.venueId}&organizer=${org1}`,
    `/events?include=${t.eventIds.slice(0, 6).join(',')}`,
    '/events?featured=true',
    '/events?geoloc=true',
    '/events?geoloc=false',
    `/events?start_date=${yearsAway(-6)}&end_date=${yearsAway(6)}`,
    `/events?start_date=${yearsAway(-6)}&end_date=${yearsAway(-5)}`,
    `/events?end_date=${t.window.end}`,
    `/events?search=${t.searchWord}%20night`,
    '/events?search=qqqzzzx',
    `/events?search=${t.searchWord}&categories=${t.categorySlug}`,
    `/events?search=${t.searchWord}&page=20`,
    '/events?status=draft',
    '/venues?search=hall',
    '/venues?page=40',
    '/organizers?search=a',
    '/categories?search=mu',
    '/tags?search=night',
  ]
}

/** Each path `RUNS` times in a row, one request at a time, on an otherwise idle server. */
export async function sweep(server: RunningServer, paths: string[]): Promise<SweepResult[]> {
  const out: SweepResult[] = []
  for (const path of paths) {
    // Drafts are only listed for an editor.
    const headers: Record<string, string> = path.includes('status=') ? { authorization: `Bearer ${ADMIN_TOKEN}` } : {}
    const times: number[] = []
    let status = 0
    let total: number | undefined
    for (let i = 0; i < RUNS; i++) {
      const start = performance.now()
      const res = await fetch(`${server.base}${path}`, { headers })
      await res.arrayBuffer()
      times.push(performance.now() - start)
      status = res.status
      const header = res.headers.get('x-cal-total')
      total = header === null ? undefined : Number(header)
    }
    const warm = times.slice(-WARM)
    out.push({ path, status, total, first: times[0]!, warm: median(warm), warmMax: Math.max(...warm) })
  }
  return out
}
