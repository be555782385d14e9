import ical, { ICalCalendarMethod, type ICalCalendar } from 'ical-generator'
import { sql, type Kysely } from 'kysely'
import type { CallContext } from '../api/context.js'
import type { DB } from '../db/generated.js'
import { eventListQuery, orderEventList, type EventListFilters } from '../events/event-list-query.js'
import { eventRelations, RELATION_COLUMNS } from '../events/event.repository.js'
import type { EventRow } from '../events/event.serializer.js'
import { pageBound } from '../db/sql-literals.js'
import { wallFromDb } from '../time/wall-time.js'
import { veventText } from './ical-event.js'
import { intlZone, vtimezone } from '../time/vtimezone.js'

/** Rows read per statement while a feed is built: one page of rows is in memory at a time besides the text. */
const FEED_PAGE = 500

/**
 * Longest stretch of feed work on the event loop between two yields: the loop stays free for
 * other requests (and the host's) while a large feed is built (issue 28: none above 50 ms).
 */
const SLICE_MS = 10

/**
 * Lets the event loop run whatever waits (timers, I/O, other requests) before the next slice. When
 * that other work took a while (the loop is busy), waits as long again, up to a slice: a build
 * takes at most about a third of a busy loop and runs at full speed on an idle one.
 */
async function yieldLoop(): Promise<void> {
  const yielded = performance.now()
  await new Promise<void>((resolve) => setImmediate(resolve))
  const others = performance.now() - yielded
  if (others > 1) await new Promise<void>((resolve) => setTimeout(resolve, Math.min(others, SLICE_MS)))
}

/** `text/calendar` with the charset the iCalendar media type defaults to, said explicitly. */
export const ICAL_TYPE = 'text/calendar; charset=utf-8'

/** An empty VCALENDAR of this service: PRODID, VERSION, CALSCALE, METHOD:PUBLISH and the calendar's name. */
export function icalCalendar(name: string, refreshSeconds?: number): ICalCalendar {
  return ical({
    prodId: { company: 'cal-events', product: 'Event calendar', language: 'EN' },
    method: ICalCalendarMethod.PUBLISH,
    scale: 'GREGORIAN',
    name,
    ...(refreshSeconds ? { ttl: refreshSeconds } : {}),
  })
}

/** The calendar's own lines, up to where its components go. */
function calendarHead(calendar: ICalCalendar): string {
  const text = calendar.toString()
  return `${text.slice(0, text.lastIndexOf('END:VCALENDAR'))}`
}

const CALENDAR_END = 'END:VCALENDAR\r\n'

/** A time zone the events use, with the calendar years they cover in it. */
export interface ZoneYears {
  zone: string
  fromYear: number
  toYear: number
}

const yearOf = (wall: string) => Number(wallFromDb(wall).slice(0, 4))

/** VTIMEZONE components for the zones of timed events (all-day events are floating dates). */
function timezones(zones: readonly ZoneYears[]): string {
  return zones.filter((z) => intlZone(z.zone)).map((z) => vtimezone(z.zone, z.fromYear, z.toYear)).join('')
}

/**
 * The whole text of a calendar of `rows`, for a single event's file: VCALENDAR, a VTIMEZONE per
 * time zone used, and the VEVENTs (`unlocked`: their passwords were given).
 */
export function calendarText(calendar: ICalCalendar, rows: readonly EventRow[], ctx: CallContext, unlocked = false): string {
  const zones = new Map<string, ZoneYears>()
  for (const row of rows) {
    if (row.all_day) continue
    const known = zones.get(row.timezone)
    const from = Math.min(yearOf(row.start_utc), known?.fromYear ?? Infinity)
    const to = Math.max(yearOf(row.end_utc) + (row.recurrence ? SERIES_YEARS : 0), known?.toYear ?? -Infinity)
    zones.set(row.timezone, { zone: row.timezone, fromYear: from, toYear: to })
  }
  return calendarHead(calendar) + timezones([...zones.values()]) + rows.map((r) => veventText(calendar, r, ctx, unlocked)).join('') + CALENDAR_END
}

/** Years a series' VTIMEZONE covers past its first occurrence (its rule may run on without end). */
const SERIES_YEARS = 10

/** The zones timed events of the feed use and the years they span, in one statement. */
async function feedZones(db: Kysely<DB>, f: EventListFilters): Promise<ZoneYears[]> {
  const rows = await eventListQuery(db, f)
    .where('e.all_day', '=', false)
    .select([
      'e.timezone',
      sql<string>`min(e.start_utc)`.as('first'),
      sql<string>`max(e.end_utc)`.as('last'),
      sql<boolean>`bool_or(e.recurrence is not null)`.as('series'),
    ])
    .groupBy('e.timezone')
    .execute()
  return rows.map((r) => ({ zone: r.timezone, fromYear: yearOf(r.first), toYear: yearOf(r.last) + (r.series ? SERIES_YEARS : 0) }))
}

/** Where the previous page of a feed ended, in list order. */
type Cursor = readonly unknown[]

function orderColumns(f: EventListFilters): string[] {
  if (f.include !== undefined) return ['e.date_utc', 'e.id']
  return [f.frame === 'utc' ? 'e.start_utc' : 'e.start_local', 'e.date_utc', 'e.id']
}

function cursorOf(row: EventRow, f: EventListFilters): Cursor {
  return orderColumns(f).map((column) => (row as unknown as Record<string, unknown>)[column.slice(2)])
}

/** One page of the feed after `after`, with relations, in list order (keyset paging: no page rereads the ones before). */
async function feedPage(db: Kysely<DB>, f: EventListFilters, after: Cursor | undefined, limit: number): Promise<EventRow[]> {
  const columns = orderColumns(f)
  const base = eventListQuery(db, f)
  const keyed = after
    ? base.where(
        sql<boolean>`(${sql.join(columns.map((c) => sql.ref(c)))}) > (${sql.join(
          after.map((v, i) => (columns[i] === 'e.id' ? sql`${v}::int` : sql`${v}::timestamp`)),
        )})`,
      )
    : base
  const rows = await orderEventList(
    db
      .with('page', () => orderEventList(keyed.selectAll('e'), f).limit(pageBound(limit)))
      .selectFrom('page as e')
      .leftJoin(eventRelations(sql<number[]>`array(select id from page)`), 'r.event_id', 'e.id')
      .selectAll('e')
      .select([...RELATION_COLUMNS]),
    f,
  ).execute()
  return rows as unknown as EventRow[]
}

/**
 * The whole text of a feed of the events `f` selects, in chunks: the calendar's head and
 * VTIMEZONEs, then the VEVENTs a page at a time, at most `maxEvents`. Built before anything is
 * sent (a failing database is an error response, never a cut one; the build slot is held for the
 * build, not for as long as a slow client reads), in slices of at most about `SLICE_MS` of CPU
 * between which the event loop runs other work.
 */
export async function buildFeed(calendar: ICalCalendar, f: EventListFilters, ctx: CallContext, maxEvents: number): Promise<string[]> {
  const db = ctx.db
  const zones = await feedZones(db, f)
  let sliceStart = performance.now()
  const slice = async () => {
    if (performance.now() - sliceStart < SLICE_MS) return
    await yieldLoop()
    sliceStart = performance.now()
  }
  let head = calendarHead(calendar)
  for (const zone of zones) {
    head += timezones([zone])
    await slice()
  }
  const chunks = [head]
  let page = await feedPage(db, f, undefined, Math.min(FEED_PAGE, maxEvents))
  let sent = 0
  sliceStart = performance.now()
  for (;;) {
    let text = ''
    for (const row of page) {
      text += veventText(calendar, row, ctx)
      await slice()
    }
    chunks.push(text)
    sent += page.length
    const wanted = Math.min(FEED_PAGE, maxEvents - sent)
    if (page.length < FEED_PAGE || wanted <= 0) break
    page = await feedPage(db, f, cursorOf(page[page.length - 1]!, f), wanted)
    sliceStart = performance.now()
    if (page.length === 0) break
  }
  chunks.push(CALENDAR_END)
  return chunks
}
