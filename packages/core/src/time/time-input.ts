import * as chrono from 'chrono-node'
import { epochMsToUtcWall, isStorableWall, isWallTime, utcToWall, utcWallToEpochMs, type WallTime } from './wall-time.js'

/** A parsed "time" input: either a site-local wall clock (zone applied later) or an absolute instant in UTC. */
export type TimeInput = { kind: 'wall'; wall: WallTime; dateOnly: boolean } | { kind: 'instant'; utc: WallTime }

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i
const RELATIVE_RE = /^([+-])\s*(\d+)\s*(sec|second|min|minute|hour|day|week|month|year)s?$/i

const SUB_DAY_MS: Record<string, number> = { sec: 1_000, second: 1_000, min: 60_000, minute: 60_000, hour: 3_600_000 }
/** `ms` moved by whole days on the UTC calendar. */
function addDays(ms: number, days: number): number {
  const d = new Date(ms)
  d.setUTCDate(d.getUTCDate() + days)
  return d.getTime()
}

/** `ms` moved by calendar months, the day of month clamped to the target month's last (Jan 31 + 1 → Feb 28/29). */
function addMonths(ms: number, months: number): number {
  const d = new Date(ms)
  if (!months) return ms
  const day = d.getUTCDate()
  const end = new Date(ms)
  end.setUTCMonth(d.getUTCMonth() + months + 1, 0)
  if (day >= end.getUTCDate()) return end.getTime()
  d.setUTCFullYear(end.getUTCFullYear(), end.getUTCMonth(), day)
  return d.getTime()
}

const CALENDAR = {
  day: addDays,
  week: (ms: number, weeks: number) => addDays(ms, weeks * 7),
  month: addMonths,
  year: (ms: number, years: number) => addMonths(ms, years * 12),
} as const

// chrono stamps these with the reference's own offset, which under our local-fields trick is the
// process zone and means nothing; only offsets written in the text should turn a phrase into an instant.
const REFERENCE_OFFSET_TAGS = ['casualReference/now', 'result/relativeDateAndTime']

const pad = (n: number, width = 2): string => String(n).padStart(width, '0')

// Out-of-range instants (huge timestamps, years past 9999) are invalid input, not a crash.
function wallFromMs(ms: number): WallTime | null {
  try {
    return epochMsToUtcWall(ms)
  } catch {
    return null
  }
}

function instantFromMs(ms: number): TimeInput | null {
  const utc = wallFromMs(ms)
  return utc === null ? null : { kind: 'instant', utc }
}

function fromIso(m: RegExpExecArray): TimeInput | null {
  const [, y, mo, d, h, mi, s, offset] = m
  const wall = `${y}-${mo}-${d} ${h ?? '00'}:${mi ?? '00'}:${s ?? '00'}`
  if (!isWallTime(wall)) return null
  if (offset === undefined) return { kind: 'wall', wall, dateOnly: h === undefined }
  if (offset.toUpperCase() === 'Z') return { kind: 'instant', utc: wall }
  const digits = offset.replace(':', '')
  const oh = Number(digits.slice(1, 3))
  const om = Number(digits.slice(3, 5))
  if (oh > 14 || om > 59) return null
  const sign = offset.startsWith('-') ? -1 : 1
  return instantFromMs(utcWallToEpochMs(wall) - sign * (oh * 60 + om) * 60_000)
}

function fromRelative(m: RegExpExecArray, now: Date, zone: string): TimeInput | null {
  const amount = (m[1] === '-' ? -1 : 1) * Number(m[2])
  const unit = m[3]!.toLowerCase()
  const stepMs = SUB_DAY_MS[unit]
  if (stepMs !== undefined) {
    // Clock units are elapsed time, so they are applied to the instant and survive DST changes correctly.
    const utc = wallFromMs(now.getTime() + amount * stepMs)
    return utc === null ? null : { kind: 'wall', wall: utcToWall(utc, zone), dateOnly: false }
  }
  // Calendar units keep the wall clock ("+1 day" at 10:00 is 10:00 tomorrow even across DST), so the
  // arithmetic runs on the site-local wall treated as UTC, which has no DST and ignores the process zone.
  const local = utcToWall(epochMsToUtcWall(now.getTime()), zone)
  const wall = wallFromMs(CALENDAR[unit as keyof typeof CALENDAR](utcWallToEpochMs(local), amount))
  // dateOnly mirrors chrono, which leaves the hour implied for "in 3 days", so both spellings behave alike.
  return wall === null ? null : { kind: 'wall', wall, dateOnly: true }
}

function fromPhrase(text: string, now: Date, zone: string): TimeInput | null {
  const local = utcToWall(epochMsToUtcWall(now.getTime()), zone)
  const [y, mo, d, h, mi, s] = local.split(/[- :]/).map(Number) as [number, number, number, number, number, number]
  // chrono computes in the process zone; a Date whose local fields are the site wall clock makes the
  // process zone irrelevant as long as we only read components back (not result.start.date()).
  // Residual leak: chrono's own Date math can still slip an hour where the *process* zone has a DST
  // gap at that wall time; servers running with TZ=UTC never see it.
  const ref = new Date(y, mo - 1, d, h, mi, s)
  const results = chrono.parse(text, ref, { forwardDate: false })
  const r = results[0]
  // Partial matches ("foo tomorrow bar") and ranges are not a single time.
  if (results.length !== 1 || !r || r.index !== 0 || r.text.length !== text.length || r.end) return null
  const c = r.start
  const get = (k: 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second'): number => c.get(k) ?? 0
  const wall = `${pad(get('year'), 4)}-${pad(get('month'))}-${pad(get('day'))} ${pad(get('hour'))}:${pad(get('minute'))}:${pad(get('second'))}`
  if (!isWallTime(wall)) return null
  const tags = c.tags()
  const offset = c.get('timezoneOffset')
  if (c.isCertain('timezoneOffset') && offset !== null && !REFERENCE_OFFSET_TAGS.some((t) => tags.has(t))) {
    return instantFromMs(utcWallToEpochMs(wall) - offset * 60_000)
  }
  return { kind: 'wall', wall, dateOnly: !c.isCertain('hour') }
}

/** Parses the API's "time" input (Unix seconds, ISO-ish wall/instant strings, English phrases); null when invalid or outside years 1-9999. */
export function parseTimeInput(raw: unknown, ctx: { now: Date; zone: string }): TimeInput | null {
  const parsed = parseAnyTime(raw, ctx)
  // Year 0 parses (ISO 8601 has it) but the database cannot store it: invalid input, not a 500.
  return parsed && isStorableWall(parsed.kind === 'instant' ? parsed.utc : parsed.wall) ? parsed : null
}

function parseAnyTime(raw: unknown, ctx: { now: Date; zone: string }): TimeInput | null {
  if (typeof raw === 'number') return Number.isFinite(raw) ? instantFromMs(Math.floor(raw * 1000)) : null
  if (typeof raw !== 'string') return null
  const text = raw.trim()
  if (text === '') return null
  if (/^-?\d+$/.test(text)) return instantFromMs(Number(text) * 1000)
  const iso = ISO_RE.exec(text)
  if (iso) return fromIso(iso)
  // Anything shaped like a date that failed the strict forms must not get a second, lenient chance in chrono.
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) return null
  const rel = RELATIVE_RE.exec(text)
  if (rel) return fromRelative(rel, ctx.now, ctx.zone)
  return fromPhrase(text, ctx.now, ctx.zone)
}
