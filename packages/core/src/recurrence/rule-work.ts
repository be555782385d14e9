import type { RRuleTemporal } from 'rrule-temporal'
import { CalendarError } from '../errors.js'
import { wallToUtc } from '../time/wall-time.js'
import {
  checkRuleMatches,
  engine,
  generationZone,
  invalidRecurrence,
  MAX_BOUNDED_OCCURRENCES,
  RULE_REACH_YEARS,
  toOccurrence,
  type Occurrence,
  type SeriesStart,
  type Zoned,
} from './recurrence.js'

// Rule work that never holds the event loop (issue 28): the engine is asked for one window of
// time at a time, each sized to a few milliseconds of work (by measuring, not by counting steps:
// the engine costs 3 µs to 30 ms a period depending on the rule), with a yield to the event loop
// between windows, and a call stops at a budget of engine time. Embedded, the calendar shares its
// host's event loop.

/** Most milliseconds of engine time one validation of a rule may spend (docs/recurrence.md). */
export const RULE_WORK_MS = 2000
/**
 * Most milliseconds of engine time storing one series' occurrences may spend: at most 10,000 of
 * them (20 µs to 0.1 ms each on a loaded machine), sliced, in the write's transaction.
 */
export const STORE_WORK_MS = 10_000
/** Engine time aimed at between two yields to the event loop. */
const SLICE_MS = 5
const DAY_MS = 86_400_000
/** `RULE_REACH_YEARS` in milliseconds, of 366 days each: any span of that many calendar years fits. */
const REACH_MS = RULE_REACH_YEARS * 366 * DAY_MS
const LAST_MS = Date.parse('9999-12-31T23:59:59Z')
const UNIT_DAYS: Record<string, number> = { DAILY: 1, WEEKLY: 7, MONTHLY: 31, YEARLY: 366 }

/** Engine time spent so far by one request's rule work, and its limit. */
export interface RuleWork {
  spentMs: number
  readonly limitMs: number
}

/** A fresh budget of engine time (`RULE_WORK_MS` unless given). */
export function ruleWork(limitMs = RULE_WORK_MS): RuleWork {
  return { spentMs: 0, limitMs }
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

function ruleLine(lines: readonly string[]): string | undefined {
  return lines.find((l) => l.startsWith('RRULE:'))
}

function ruleParts(rule: string): Map<string, string> {
  return new Map(rule.slice('RRULE:'.length).split(';').map((p) => p.split('=') as [string, string]))
}

/** One period of the rule (FREQ times INTERVAL, at least a day), and whether the engine's cost is per period (BYSETPOS: its whole set) rather than per day. */
interface Period {
  ms: number
  whole: boolean
}

function periodOf(rule: string | undefined): Period {
  if (!rule) return { ms: DAY_MS, whole: false }
  const parts = ruleParts(rule)
  return { ms: (UNIT_DAYS[parts.get('FREQ')!] ?? 1) * Number(parts.get('INTERVAL') ?? 1) * DAY_MS, whole: parts.has('BYSETPOS') }
}

/** The series' start as the engine's instant (a UTC-clock series reads its wall clock as UTC). */
function startMs(start: SeriesStart, zone: string): number {
  const utc = zone === start.zone ? wallToUtc(start.wall, start.zone) : start.wall
  return Date.parse(`${utc.replace(' ', 'T')}Z`)
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const gap = (lastMs: number) => invalidRecurrence(`The rule yields no occurrence within ${RULE_REACH_YEARS} years after ${isoDay(lastMs)}.`)

/**
 * Hands `visit` the engine's occurrences in [fromMs, toMs] (inclusive), in order, window by
 * window, yielding to the event loop between windows; stops when `visit` answers false. Throws
 * the 400 on `recurrence` once the work's budget is spent.
 */
async function walk(
  rule: RRuleTemporal,
  fromMs: number,
  toMs: number,
  period: Period,
  work: RuleWork,
  visit: (found: Zoned[], endMs: number) => boolean | void,
): Promise<void> {
  // Windows sized by time, not by steps: at most a week first, then twice as long while one costs
  // under half a slice and half as long while it costs over two. The engine's work follows the
  // days a window covers (a yearly rule selecting most days cost 30-300 ms a year on the shared
  // machine, one window when windows were whole periods), so windows shrink down to a day; except
  // with BYSETPOS, whose cost is the period's whole set however short the window (5-20 ms a year):
  // smaller windows would only multiply it, so those keep whole periods.
  const floorMs = period.whole ? period.ms : DAY_MS
  let windowMs = Math.max(floorMs, Math.min(period.ms, 7 * DAY_MS))
  for (let at = fromMs; at <= toMs; ) {
    if (work.spentMs > work.limitMs) {
      throw invalidRecurrence(`The rule needs more than ${work.limitMs} ms of work to expand (issue 28: rule work is bounded per request).`)
    }
    const end = Math.min(toMs, at + windowMs - 1)
    const began = performance.now()
    let more: boolean | void
    try {
      more = visit(rule.between(new Date(at), new Date(end), true), end)
    } finally {
      work.spentMs += performance.now() - began
    }
    if (more === false || end >= toMs) return
    const spent = performance.now() - began
    if (spent < SLICE_MS / 2) windowMs *= 2
    else if (spent > SLICE_MS * 2) windowMs = Math.max(floorMs, windowMs / 2)
    at = end + 1
    await yieldToLoop()
  }
}

/** Runs the engine, turning its own failures (its step limit) into the 400 on `recurrence`. */
async function engineWork<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (err) {
    if (err instanceof CalendarError) throw err
    throw invalidRecurrence(`The rule cannot be expanded: ${err instanceof Error ? err.message : String(err)}`)
  }
}

/**
 * Checks what the rule means, of lines `parseRecurrence` accepted: it can match at all (from its
 * text, `checkRuleMatches`), and by expansion: an open-ended rule has
 * an occurrence after its start within `RULE_REACH_YEARS`; a bounded one (COUNT, UNTIL, RDATEs
 * only) has at least one and at most `MAX_BOUNDED_OCCURRENCES`, with no gap longer than the
 * reach. Sliced (never holding the event loop) and bounded by `work`; throws the 400 on
 * `recurrence`. Run after the permission check: it is the costly part of a series write.
 * Returns a bounded series' occurrences (all of them, as `expandBoundedSliced` gives them), so
 * that storing them does not expand the rule again; nothing for an open-ended one.
 */
export async function verifyRecurrence(lines: readonly string[], start: SeriesStart, work: RuleWork = ruleWork()): Promise<Occurrence[] | undefined> {
  checkRuleMatches(lines)
  const rule = ruleLine(lines)
  if (rule && !/[:;](COUNT|UNTIL)=/.test(rule)) {
    const zone = generationZone(start)
    const from = startMs(start, zone) - DAY_MS
    // The start always counts (RFC 5545 3.3.10): the rule's own next occurrence is the second.
    let found = 0
    await engineWork(() => walk(engine([rule], start, zone), from, from + DAY_MS + REACH_MS, periodOf(rule), work, (batch) => (found += batch.length) < 2))
    if (found < 2) throw invalidRecurrence(`The rule yields no occurrence within ${RULE_REACH_YEARS} years of the start.`)
    return undefined
  }
  const all = await expandBoundedSliced(lines, start, work)
  if (all.length === 0) throw invalidRecurrence('The rule produces no occurrence.')
  return all
}

/**
 * The instant of the `count`th instance of `rule` without its COUNT (the start counts as the
 * first, as the engine counts it): a COUNT rule is the same rule up to that instant, which the
 * engine can expand window by window (a COUNT rule it walks from the start at every call).
 */
async function countedEnd(rule: string, count: number, start: SeriesStart, zone: string, work: RuleWork, seen: Zoned[] = []): Promise<number> {
  const open = `RRULE:${[...ruleParts(rule)].filter(([k]) => k !== 'COUNT').map(([k, v]) => `${k}=${v}`).join(';')}`
  const from = startMs(start, zone) - DAY_MS
  let last = from + DAY_MS
  let end: number | undefined
  await walk(engine([open], start, zone), from, LAST_MS, periodOf(rule), work, (batch, windowEnd) => {
    for (const z of batch) {
      if (z.epochMilliseconds - last > REACH_MS) throw gap(last)
      last = z.epochMilliseconds
      seen.push(z)
      if (seen.length === count) {
        end = last
        return false
      }
    }
    if (windowEnd - last > REACH_MS) throw gap(last)
  })
  return end ?? LAST_MS
}

/** The latest instant an UNTIL value can stand for, in any zone. */
function untilBoundMs(until: string): number {
  const day = Date.parse(`${until.slice(0, 4)}-${until.slice(4, 6)}-${until.slice(6, 8)}T00:00:00Z`)
  return Math.min(LAST_MS, day + 2 * DAY_MS)
}

/**
 * Every occurrence of a bounded series (COUNT, UNTIL, or RDATEs only), in order, as
 * `expandBounded` gives them, but window by window (yielding to the event loop) and within `work`.
 * Throws the 400 on `recurrence` past `MAX_BOUNDED_OCCURRENCES` or a gap longer than the reach.
 */
export async function expandBoundedSliced(lines: readonly string[], start: SeriesStart, work: RuleWork = ruleWork()): Promise<Occurrence[]> {
  const zone = generationZone(start)
  const rule = ruleLine(lines)
  const exdates = lines.filter((l) => l.startsWith('EXDATE'))
  const rdates = lines.filter((l) => l.startsWith('RDATE'))
  const byInstant = new Map<number, Zoned>()
  const tooMany = () => invalidRecurrence(`A series has at most ${MAX_BOUNDED_OCCURRENCES} occurrences.`)
  await engineWork(async () => {
    // RDATEs (and the start) cost the engine nothing per period: all at once.
    if (rdates.length > 0 || !rule) for (const z of engine([...rdates, ...exdates], start, zone).all()) byInstant.set(z.epochMilliseconds, z)
    if (byInstant.size > MAX_BOUNDED_OCCURRENCES) throw tooMany()
    if (!rule) return
    const parts = ruleParts(rule)
    let bounded = rule
    let endMs: number
    if (parts.has('COUNT')) {
      const counted: Zoned[] = []
      endMs = await countedEnd(rule, Number(parts.get('COUNT')), start, zone, work, counted)
      // With no EXDATE, the instances counted are the series' own (the COUNT rule is the open
      // rule up to the last of them, checked for gaps on the way): not walked a second time.
      if (exdates.length === 0 && !start.allDay) {
        for (const z of counted) byInstant.set(z.epochMilliseconds, z)
        if (byInstant.size > MAX_BOUNDED_OCCURRENCES) throw tooMany()
        return
      }
      const until = start.allDay ? isoDay(endMs).replace(/-/g, '') : new Date(endMs).toISOString().replace(/[-:]/g, '').slice(0, 15) + 'Z'
      bounded = `RRULE:${[...parts].filter(([k]) => k !== 'COUNT').map(([k, v]) => `${k}=${v}`).join(';')};UNTIL=${until}`
    } else {
      endMs = untilBoundMs(parts.get('UNTIL')!)
    }
    const from = startMs(start, zone) - DAY_MS
    let last = from + DAY_MS
    await walk(engine([bounded, ...exdates], start, zone), from, endMs, periodOf(rule), work, (batch, windowEnd) => {
      for (const z of batch) {
        if (z.epochMilliseconds - last > REACH_MS) throw gap(last)
        last = z.epochMilliseconds
        byInstant.set(z.epochMilliseconds, z)
      }
      if (byInstant.size > MAX_BOUNDED_OCCURRENCES) throw tooMany()
      if (windowEnd - last > REACH_MS && windowEnd < endMs) throw gap(last)
    })
  })
  return [...byInstant.values()].sort((a, b) => a.epochMilliseconds - b.epochMilliseconds).map((z) => toOccurrence(z, start, zone))
}

/**
 * The occurrences of a series starting between two UTC instants (inclusive), in order, at most
 * `limit`: what `expandRecurrence` gives, window by window (yielding to the event loop) and
 * within `work`.
 */
export async function expandSliced(
  lines: readonly string[],
  start: SeriesStart,
  fromUtc: Date,
  toUtc: Date,
  limit = 10_000,
  work: RuleWork = ruleWork(),
): Promise<Occurrence[]> {
  const from = fromUtc.toISOString().slice(0, 19).replace('T', ' ')
  const to = toUtc.toISOString().slice(0, 19).replace('T', ' ')
  const rule = ruleLine(lines)
  // A COUNT rule is walked from its start at every engine call: expand it whole (bounded) instead.
  if (!rule || /[:;]COUNT=/.test(rule)) return (await expandBoundedSliced(lines, start, work)).filter((o) => o.utc >= from && o.utc <= to).slice(0, limit)
  const zone = generationZone(start)
  // `UTC±h` and all-day series are generated on a UTC clock: widen by a day and filter exactly.
  const widen = zone === start.zone ? 0 : DAY_MS
  const out: Occurrence[] = []
  await engineWork(() =>
    walk(engine(lines, start, zone), fromUtc.getTime() - widen, toUtc.getTime() + widen, periodOf(rule), work, (batch) => {
      for (const z of batch) {
        const o = toOccurrence(z, start, zone)
        if (o.utc >= from && o.utc <= to) out.push(o)
      }
      return out.length < limit
    }),
  )
  return out.slice(0, limit)
}
