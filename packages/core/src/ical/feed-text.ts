import { ICalCalendar, ICalCalendarMethod } from 'ical-generator'
import { veventText, type IcalContext } from './ical-event.js'
import { feedRow } from './feed-row.js'
import { vtimezone } from '../time/vtimezone.js'
import { intlZone } from '../time/wall-time.js'

// The CPU part of a feed (issue 28): rows to VEVENTs to text, and VTIMEZONEs. Pure functions of
// plain data, so that a feed's text is built in a worker thread (`feed-workers.ts`), off the event
// loop the host shares; the database reads stay on the main thread.

/** The calendar a feed's text belongs to: its name, and how often apps should poll it. */
export interface FeedCalendar {
  name: string
  refreshSeconds?: number
}

/** An empty VCALENDAR of this service: PRODID, VERSION, CALSCALE, METHOD:PUBLISH and the calendar's name. */
export function icalCalendar(name: string, refreshSeconds?: number): ICalCalendar {
  // The class, not the package's default export: the CommonJS build would read that as the module object.
  return new ICalCalendar({
    prodId: { company: 'cal-events', product: 'Event calendar', language: 'EN' },
    method: ICalCalendarMethod.PUBLISH,
    scale: 'GREGORIAN',
    name,
    ...(refreshSeconds ? { ttl: refreshSeconds } : {}),
  })
}

/** The calendar's own lines, up to where its components go. */
export function calendarHead(calendar: ICalCalendar): string {
  const text = calendar.toString()
  return `${text.slice(0, text.lastIndexOf('END:VCALENDAR'))}`
}

/** The last line of a calendar. */
export const CALENDAR_END = 'END:VCALENDAR\r\n'

/** A time zone the events use, with the calendar years they cover in it. */
export interface ZoneYears {
  zone: string
  fromYear: number
  toYear: number
}

/** VTIMEZONE components for the zones of timed events (all-day events are floating dates). */
export function timezones(zones: readonly ZoneYears[]): string {
  return zones.filter((z) => intlZone(z.zone)).map((z) => vtimezone(z.zone, z.fromYear, z.toYear)).join('')
}

/**
 * One piece of a feed's text: its head (the calendar's lines and VTIMEZONEs) or the VEVENTs of
 * rows, each an `IcalRow` as a JSON array (`feed-row.ts`), as the feed's statement answers it (the main thread
 * neither parses them nor makes them again for a worker: a string crosses as one copy).
 */
export type FeedTextTask =
  | { kind: 'head'; calendar: FeedCalendar; zones: readonly ZoneYears[] }
  | { kind: 'events'; calendar: FeedCalendar; rows: readonly string[]; ctx: IcalContext }

// A worker builds many pages of one calendar: its VCALENDAR object once (ical-generator's VEVENTs
// read their calendar's settings).
const calendars = new Map<string, ICalCalendar>()

function calendarOf(c: FeedCalendar): ICalCalendar {
  const key = `${c.refreshSeconds ?? 0} ${c.name}`
  let found = calendars.get(key)
  if (!found) {
    if (calendars.size >= 100) calendars.clear()
    calendars.set(key, (found = icalCalendar(c.name, c.refreshSeconds)))
  }
  return found
}

/**
 * The text of one piece of a feed in steps of one VTIMEZONE or VEVENT: a worker thread joins them
 * (`feedText`), the event loop yields between them (`buildFeed` without workers).
 */
export function* feedTextSteps(task: FeedTextTask): Generator<string, void, undefined> {
  const calendar = calendarOf(task.calendar)
  if (task.kind === 'head') {
    yield calendarHead(calendar)
    for (const zone of task.zones) yield timezones([zone])
    return
  }
  for (const row of task.rows) yield veventText(calendar, feedRow(row), task.ctx)
}

/** The text of one piece of a feed, whole (in a worker thread). */
export function feedText(task: FeedTextTask): string {
  let text = ''
  for (const step of feedTextSteps(task)) text += step
  return text
}
