import type { Calendar, CalendarRequest } from '@cal-events/core'

// What the paired benches share (host-pool, pooler, calendars): the default list's rate under
// concurrent callers, taken for two or more set-ups in the same process, rounds alternating, so
// that the machine's load drifts alike over every set-up; figures are compared round by round.

/** The default list, as the paired benches ask for it. */
export const LIST_REQUEST: CalendarRequest = { method: 'GET', path: '/cal/events/v1/events', query: '', headers: {}, origin: 'http://bench' }

export interface PairedOptions {
  seconds: number
  /** Concurrent callers, each sending its next request when the last is answered. */
  callers: number
}

/** Requests per second of the default list for `seconds`, each request on `pick()`'s calendar; answers other than 200 counted. */
export async function listRate(pick: () => Calendar, { seconds, callers }: PairedOptions): Promise<{ rate: number; errors: number }> {
  const until = Date.now() + seconds * 1000
  let done = 0
  let errors = 0
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (Date.now() < until) {
        const res = await pick().handle(LIST_REQUEST)
        if (res.status !== 200) errors++
        done++
      }
    }),
  )
  return { rate: done / seconds, errors }
}

/**
 * Each set-up measured once to warm it, then `rounds` rounds of one measure each, in the given
 * order on even rounds and the reverse on odd ones. Rates per set-up, one per round, in round order.
 */
export async function alternatingRounds<M extends string>(
  modes: readonly (readonly [M, () => Calendar])[],
  rounds: number,
  options: PairedOptions,
  onRound?: (round: number, rates: Record<M, number[]>) => void,
): Promise<{ rates: Record<M, number[]>; errors: number }> {
  for (const [, pick] of modes) await listRate(pick, options)
  const rates = Object.fromEntries(modes.map(([mode]) => [mode, []])) as unknown as Record<M, number[]>
  let errors = 0
  for (let round = 0; round < rounds; round++) {
    for (const [mode, pick] of round % 2 ? [...modes].reverse() : modes) {
      const measured = await listRate(pick, options)
      rates[mode].push(measured.rate)
      errors += measured.errors
    }
    onRound?.(round, rates)
  }
  return { rates, errors }
}

/** The middle value of `xs` (the upper middle one for an even count). */
export const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
