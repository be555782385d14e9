// Bodies sent to the compatibility path (`/wp-json/tribe/events/v1`) by clients written for the
// reference plugin. The plugin ignores fields it does not declare, and so do we on every path; the
// one field clients send in a shape of their own is `recurrence`: the Pro add-on's object
// (`{"type":"weekly","end_type":"never"}`), where we declare RFC 5545 lines. The plugin without Pro
// ignores it and creates a single event; we keep the rule where it maps onto an RRULE and ignore it
// as the plugin does where it does not (docs/recurrence.md, "The compatibility path").

const FREQUENCIES: Readonly<Record<string, string>> = {
  daily: 'DAILY',
  'every day': 'DAILY',
  day: 'DAILY',
  weekly: 'WEEKLY',
  'every week': 'WEEKLY',
  week: 'WEEKLY',
  monthly: 'MONTHLY',
  'every month': 'MONTHLY',
  month: 'MONTHLY',
  yearly: 'YEARLY',
  'every year': 'YEARLY',
  year: 'YEARLY',
}

/** A whole number from 1 to `most`, from a number or a numeric string; `undefined` otherwise. */
function count(value: unknown, most: number): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d{1,7}\s*$/.test(value) ? Number(value) : NaN
  return Number.isInteger(n) && n >= 1 && n <= most ? n : undefined
}

/** Reads a field under its REST name (`end_type`) or the Pro meta's (`end-type`). */
function field(rule: Record<string, unknown>, name: string): unknown {
  return rule[name] ?? rule[name.replace(/_/g, '-')]
}

/** One Pro rule as an RRULE line; `undefined` when it does not map onto one. */
function ruleLine(rule: unknown): string | undefined {
  if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) return undefined
  const r = rule as Record<string, unknown>
  const type = field(r, 'type')
  const freq = typeof type === 'string' ? FREQUENCIES[type.trim().toLowerCase()] : undefined
  if (!freq) return undefined
  const parts = [`FREQ=${freq}`]
  const interval = count(field(r, 'interval'), 1000)
  if (interval !== undefined && interval > 1) parts.push(`INTERVAL=${interval}`)
  const endType = field(r, 'end_type')
  const end = typeof endType === 'string' ? endType.trim().toLowerCase() : 'never'
  if (end === 'after') {
    const n = count(field(r, 'end_count'), 9_999_999)
    if (n === undefined) return undefined
    parts.push(`COUNT=${n}`)
  } else if (end === 'on') {
    const date = field(r, 'end')
    const m = typeof date === 'string' ? /^(\d{4})-(\d{2})-(\d{2})(?:[ T].*)?$/.exec(date.trim()) : null
    if (!m) return undefined
    parts.push(`UNTIL=${m[1]}${m[2]}${m[3]}`)
  } else if (end !== 'never') {
    return undefined
  }
  return `RRULE:${parts.join(';')}`
}

/**
 * The body with a Pro-style `recurrence` object replaced by RRULE lines where every rule maps, or
 * removed (ignored, as by the plugin without Pro) where one does not. Lines, `null` and `''` pass.
 */
export function referenceBody(body: Record<string, unknown>): Record<string, unknown> {
  const value = body.recurrence
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return body
  const { recurrence: _pro, ...rest } = body
  const shape = value as Record<string, unknown>
  const rules = Array.isArray(shape.rules) ? shape.rules : [shape]
  const lines = rules.map(ruleLine)
  if (rules.length === 0 || lines.some((l) => l === undefined)) return rest
  return { ...rest, recurrence: lines }
}
