import { createCalendar } from '@cal-events/core'
import { measure } from './load.js'
import { median } from './paired.js'
import type { RunningServer } from './server.js'

// What the paired HTTP benches share (pooler-http, balancer): the default list over HTTP against two
// or more targets, autocannon in its own process, rounds alternating so that the machine's drift
// falls alike on every target; figures compared round by round.

const LIST = { spec: { path: '/events' } }

/** Pool size of the servers the paired HTTP benches start. */
export const PAIRED_POOL = 4

/**
 * The paired HTTP benches' arguments, `[events] [seconds] [rounds] [connections]` (defaults 1,000
 * events, rounds of 2 s, 9 rounds, `pnpm bench`'s 32 connections), and the PostgreSQL server.
 */
export function pairedHttpArgs(argv = process.argv.slice(2)) {
  return {
    adminUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    events: Number(argv[0] ?? 1000),
    seconds: Number(argv[1] ?? 2),
    rounds: Number(argv[2] ?? 9),
    connections: Number(argv[3] ?? 32),
  }
}

/** Creates `events` upcoming events (whatever day the bench runs: the default window starts today) in the calendar at `url`. */
export async function seedUpcoming(url: string, events: number, poolSize: number): Promise<void> {
  const seed = await createCalendar({ database: { url, poolSize } })
  try {
    for (let i = 0; i < events; i++) {
      const day = new Date(Date.now() + (1 + (i % 28)) * 86_400_000).toISOString().slice(0, 10)
      await seed.events.create({ title: `Event ${i}`, start_date: `${day} 10:00:00`, end_date: `${day} 12:00:00`, venue: { venue: `Hall ${i % 20}` } })
    }
  } finally {
    await seed.close()
  }
}

/** Per target, one figure per round. */
export interface HttpRounds<M extends string> {
  rates: Record<M, number[]>
  /** CPU ms per request of the server process and its database's PostgreSQL backends. */
  serverCpu: Record<M, number[]>
  /** CPU ms per request of everything else on the machine (a balancer or pooler in between). */
  otherCpu: Record<M, number[]>
  /** Share of the machine's CPU busy. */
  busy: Record<M, number[]>
  errors: number
}

/** `rounds` rounds of the default list against each target, the order reversed on odd rounds. */
export async function alternatingHttpRounds<M extends string>(
  targets: readonly (readonly [M, RunningServer])[],
  rounds: number,
  { connections, seconds }: { connections: number; seconds: number },
): Promise<HttpRounds<M>> {
  const perMode = () => Object.fromEntries(targets.map(([mode]) => [mode, [] as number[]])) as Record<M, number[]>
  const out: HttpRounds<M> = { rates: perMode(), serverCpu: perMode(), otherCpu: perMode(), busy: perMode(), errors: 0 }
  for (let round = 0; round < rounds; round++) {
    for (const [mode, target] of round % 2 ? [...targets].reverse() : targets) {
      const result = await measure(target, LIST, { connections, duration: seconds, warmup: round === 0 ? 2 : 0.5, stats: false })
      out.rates[mode].push(result.rps)
      out.serverCpu[mode].push(result.cpu.server + (result.cpu.postgresOwn ?? result.cpu.postgres))
      out.otherCpu[mode].push(result.cpu.other)
      out.busy[mode].push(result.cpu.busy)
      out.errors += result.errors + result.non2xx
    }
  }
  return out
}

/** `rates[mode]` over `rates[base]`, round by round, and their median: "per round 0.93 0.97 …, median 0.95". */
export function pairedRatios<M extends string>(rates: Record<M, number[]>, mode: M, base: M): string {
  const ratios = rates[mode].map((r, i) => r / rates[base][i]!)
  return `per round ${ratios.map((r) => r.toFixed(2)).join(' ')}, median ${median(ratios).toFixed(2)}`
}

/** The median share of the machine's CPU busy, as "85 %". */
export const busyPercent = (xs: readonly number[]) => `${(median(xs) * 100).toFixed(0)} %`
