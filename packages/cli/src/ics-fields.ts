// Reading one VEVENT's fields (times, venue, organizer, categories, website) as an event input.
import ICAL from 'ical.js'

type Time = InstanceType<typeof ICAL.Time>
type Component = InstanceType<typeof ICAL.Component>

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** `YYYY-MM-DD HH:MM:SS` from a time's own fields (its wall clock). */
export function wall(t: Time): string {
  return `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)} ${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}`
}

export function isIanaZone(name: string): boolean {
  if (!/^[A-Za-z]+(?:\/[A-Za-z0-9_+-]+)+$/.test(name) && name !== 'UTC') return false
  try {
    new Intl.DateTimeFormat('en', { timeZone: name })
    return true
  } catch {
    return false
  }
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

export function text(component: Component, name: string): string {
  const value = component.getFirstPropertyValue(name)
  return typeof value === 'string' ? value.trim() : ''
}

/** "Name, street, city" → venue fields (a heuristic; the name alone when there are no commas). */
function venueFrom(location: string): Record<string, string> | null {
  const parts = location.split(',').map((p) => p.trim()).filter(Boolean)
  if (parts.length === 0) return null
  const venue: Record<string, string> = { venue: parts[0]! }
  if (parts.length >= 2) venue.city = parts[parts.length - 1]!
  if (parts.length >= 3) venue.address = parts.slice(1, -1).join(', ')
  return venue
}

function organizerFrom(component: Component): Record<string, string>[] {
  const prop = component.getFirstProperty('organizer')
  if (!prop) return []
  const value = String(prop.getFirstValue() ?? '').trim()
  const email = /^mailto:/i.test(value) ? value.replace(/^mailto:/i, '') : ''
  const cn = prop.getParameter('cn')
  const name = (typeof cn === 'string' && cn.trim()) || email || value
  if (!name) return []
  return [email ? { organizer: name, email } : { organizer: name }]
}

function categoriesOf(component: Component): string[] {
  const names = component
    .getAllProperties('categories')
    .flatMap((p): unknown[] => p.getValues())
    .map((v) => String(v).trim())
    .filter(Boolean)
  return [...new Set(names)]
}

function websiteOf(component: Component): string | null {
  const url = text(component, 'url')
  if (!url) return null
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? url : null
  } catch {
    return null
  }
}

/** Reads the file's time zones, so non-IANA TZIDs can be converted. */
export function zonesOf(root: Component): Map<string, InstanceType<typeof ICAL.Timezone>> {
  const zones = new Map<string, InstanceType<typeof ICAL.Timezone>>()
  for (const vtz of root.getAllSubcomponents('vtimezone')) {
    const zone = new ICAL.Timezone(vtz)
    zones.set(zone.tzid, zone)
  }
  return zones
}

export function isUtc(t: Time): boolean {
  return t.zone === ICAL.Timezone.utcTimezone || t.zone?.tzid === 'UTC' || t.toICALString().endsWith('Z')
}

export interface Span {
  start: Time
  end: Time
}

/** Calendar date fields for one start/end pair of `item` (CONTRACT 10.1: wall clock + timezone). */
function datesFor(item: Component, span: Span, zones: Map<string, InstanceType<typeof ICAL.Timezone>>, warnings: string[], label: string) {
  const { start } = span
  let end = span.end
  if (start.isDate) {
    // DTEND of an all-day event is exclusive: 10–13 July ends on the 12th.
    const last = end.compare(start) > 0 ? end.clone() : start.clone()
    if (end.compare(start) > 0) last.adjust(-1, 0, 0, 0)
    return { all_day: true, timezone: '', start_date: `${wall(start).slice(0, 10)} 00:00:00`, end_date: `${wall(last).slice(0, 10)} 23:59:59` }
  }
  if (end.compare(start) < 0) end = start
  if (isUtc(start)) return { all_day: false, timezone: 'UTC', start_date: wall(start), end_date: wall(isUtc(end) ? end : end.convertToZone(ICAL.Timezone.utcTimezone)) }
  const tzid = item.getFirstProperty('dtstart')?.getParameter('tzid')
  if (typeof tzid === 'string' && tzid !== '') {
    if (isIanaZone(tzid)) return { all_day: false, timezone: tzid, start_date: wall(start), end_date: wall(end) }
    const zone = zones.get(tzid)
    if (zone) {
      const utc = (t: Time) => {
        const copy = t.clone()
        copy.adjust(0, 0, 0, -zone.utcOffset(t))
        return wall(copy)
      }
      return { all_day: false, timezone: 'UTC', start_date: utc(start), end_date: utc(end) }
    }
    warnings.push(`${label}: unknown time zone "${tzid}" without VTIMEZONE; read in the site time zone.`)
  }
  // Floating time: the site time zone.
  return { all_day: false, timezone: '', start_date: wall(start), end_date: wall(end) }
}

export function eventInput(item: Component, span: Span, zones: Map<string, InstanceType<typeof ICAL.Timezone>>, warnings: string[], origin: string) {
  const title = text(item, 'summary') || '(untitled)'
  const description = text(item, 'description')
  const klass = text(item, 'class').toUpperCase()
  const location = text(item, 'location')
  const input: Record<string, unknown> = {
    title,
    ...datesFor(item, span, zones, warnings, origin),
    status: klass === 'PRIVATE' || klass === 'CONFIDENTIAL' ? 'private' : 'publish',
    // `null`/`[]` on an update clear what the file no longer has.
    venue: location ? venueFrom(location) : null,
    organizer: organizerFrom(item),
    categories: categoriesOf(item),
    website: websiteOf(item),
  }
  // The calendar renders description HTML; iCalendar text is plain.
  if (description) input.description = escapeHtml(description)
  return input
}
