import type { ICalCalendar } from 'ical-generator'
import { sql, type Kysely } from 'kysely'
import type { CallContext } from '../api/context.js'
import type { DB } from '../db/generated.js'
import { eventListQuery, orderEventList, type EventListFilters } from '../events/event-list-query.js'
import type { EventRow } from '../events/event.serializer.js'
import { pageBound } from '../db/sql-literals.js'
import { PLAN_EACH_TIME } from '../db/prepared-statements.js'
import { wallFromDb } from '../time/wall-time.js'
import { icalContext, veventText } from './ical-event.js'
import { CALENDAR_END, calendarHead, feedTextSteps, icalCalendar, timezones, type FeedCalendar, type FeedTextTask, type ZoneYears } from './feed-text.js'
import { FeedWorkersUnavailable, type FeedWorkers } from './feed-workers.js'
import { EVENT_FIELDS, ORGANIZER_FIELDS, TERM_FIELDS, VENUE_FIELDS } from './feed-row.js'
import { feedPace } from './feed-pace.js'

export { icalCalendar, type ZoneYears }

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

const yearOf = (wall: string) => Number(wallFromDb(wall).slice(0, 4))

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
  return calendarHead(calendar) + timezones([...zones.values()]) + rows.map((r) => veventText(calendar, r, icalContext(ctx), unlocked)).join('') + CALENDAR_END
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

/** A page of a feed: its rows as JSON text (`feed-row.ts`), and where it ended. */
interface FeedPage {
  rows: string[]
  last: Cursor | undefined
}

/** A row of the feed's statement: the VEVENT's fields as JSON text, and the order columns for the next page. */
interface FeedPageRow {
  json: string
  start_utc: string
  start_local: string
  date_utc: string
  id: number
}

/** `json_build_array` of `fields` of `alias` (names from `feed-row.ts`, never from a caller). */
const arrayOf = (alias: string, fields: readonly string[]) => sql`json_build_array(${sql.join(fields.map((f) => sql.ref(`${alias}.${f}`)))})`

// The fields of `IcalRow`, and of its venue, organizers (in their order) and category terms, as one
// JSON array a row (`feed-row.ts`; cast to text: the driver leaves it unparsed). Before, a page
// read every column and the list's relations (cal_event_relations: whole venue and organizer rows,
// images, term counts): 1.4x the bytes, twice the statement's time, and each row parsed on the
// main thread only to be made JSON again for the worker; then JSON objects, 40 % of it names.
const ICAL_ROW_JSON = sql<string>`json_build_array(
  ${sql.join(EVENT_FIELDS.map((f) => sql.ref(`e.${f}`)))},
  (select ${arrayOf('v', VENUE_FIELDS)} from venues v where v.id = e.venue_id and v.status <> 'trash'),
  (select coalesce(json_agg(${arrayOf('o', ORGANIZER_FIELDS)} order by eo.position, o.id), '[]')
    from event_organizers eo
    cross join lateral (select o.* from organizers o where o.id = eo.organizer_id and o.status <> 'trash' offset 0) o
    where eo.event_id = e.id),
  (select coalesce(json_agg(${arrayOf('t', TERM_FIELDS)} order by t.name, t.id), '[]')
    from event_terms et
    cross join lateral (select t.id, t.taxonomy, t.name from terms t where t.id = et.term_id offset 0) t
    where et.event_id = e.id)
)::text`

/** The columns of `events` the page's CTE keeps: the JSON's and the order columns. */
const PAGE_COLUMNS = [
  'e.id', 'e.title', 'e.slug', 'e.status', 'e.author_id', 'e.password', 'e.description', 'e.timezone', 'e.all_day',
  'e.start_local', 'e.end_local', 'e.start_utc', 'e.end_utc', 'e.modified_utc', 'e.revision', 'e.recurrence',
  'e.exception_of', 'e.exception_key', 'e.venue_id', 'e.date_utc',
] as const

/** One page of the feed after `after`, in list order (keyset paging: no page rereads the ones before). */
async function feedPage(db: Kysely<DB>, f: EventListFilters, after: Cursor | undefined, limit: number): Promise<FeedPage> {
  const columns = orderColumns(f)
  const base = eventListQuery(db, f)
  const keyed = after
    ? base.where(
        sql<boolean>`(${sql.join(columns.map((c) => sql.ref(c)))}) > (${sql.join(
          after.map((v, i) => (columns[i] === 'e.id' ? sql`${v}::int` : sql`${v}::timestamp`)),
        )})`,
      )
    : base
  const rows: FeedPageRow[] = await orderEventList(
    db
      .with('page', () => orderEventList(keyed.select(PAGE_COLUMNS), f).limit(pageBound(limit)))
      .selectFrom('page as e')
      .select(['e.start_utc', 'e.start_local', 'e.date_utc', 'e.id', ICAL_ROW_JSON.as('json')]),
    f,
  )
    // Planned for its own cursor each time: a generic plan sees no cursor, guesses a few hundred
    // rows after it, and reads every later row of the window (bitmap, then sort) for each page.
    .modifyEnd(sql.raw(PLAN_EACH_TIME))
    .execute()
  const end = rows[rows.length - 1]
  return { rows: rows.map((r) => r.json), last: end && columns.map((c) => end[c.slice(2) as keyof FeedPageRow]) }
}

/** Builds pieces of a feed's text: in a worker thread when there is one, else on the event loop in slices. */
class FeedTexts {
  private sliceStart = performance.now()
  private inLoop: boolean

  constructor(
    private readonly calendar: FeedCalendar,
    private readonly ctx: CallContext,
    private readonly workers: FeedWorkers | undefined,
  ) {
    this.inLoop = workers === undefined
  }

  /** Restarts the slice clock: the time since was spent waiting (on the database), not working. */
  waited(): void {
    this.sliceStart = performance.now()
  }

  private async slice(): Promise<void> {
    if (performance.now() - this.sliceStart < SLICE_MS) return
    await yieldLoop()
    this.sliceStart = performance.now()
  }

  /** The text of `task`: from a worker, else (none could be started) here, a slice at a time. */
  private async text(task: FeedTextTask): Promise<string> {
    if (!this.inLoop) {
      try {
        return await this.workers!.text(task)
      } catch (err) {
        if (!(err instanceof FeedWorkersUnavailable)) throw err
        this.inLoop = true
      }
    }
    let text = ''
    for (const step of feedTextSteps(task)) {
      text += step
      await this.slice()
    }
    return text
  }

  /** The calendar's lines and the VTIMEZONEs of `zones`. */
  head(zones: readonly ZoneYears[]): Promise<string> {
    return this.text({ kind: 'head', calendar: this.calendar, zones })
  }

  /** The VEVENTs of `rows` (JSON text of `IcalRow`s). */
  events(rows: readonly string[]): Promise<string> {
    // Only what a VEVENT reads of the call crosses to the worker (it is copied).
    return this.text({ kind: 'events', calendar: this.calendar, rows, ctx: icalContext(this.ctx) })
  }
}

/**
 * The whole text of a feed of the events `f` selects, in chunks: the calendar's head and
 * VTIMEZONEs, then the VEVENTs a page at a time, at most `maxEvents`. Built before anything is
 * sent (a failing database is an error response, never a cut one; the build slot is held for the
 * build, not for as long as a slow client reads). The text is built in a worker thread (`workers`)
 * while the next page is read; without one, on the event loop in slices of at most about
 * `SLICE_MS` between which it runs other work.
 */
export async function buildFeed(calendar: FeedCalendar, f: EventListFilters, ctx: CallContext, maxEvents: number, workers?: FeedWorkers): Promise<string[]> {
  const db = ctx.db
  const texts = new FeedTexts(calendar, ctx, workers)
  const zones = await feedZones(db, f)
  texts.waited()
  const chunks: Promise<string>[] = [texts.head(zones)]
  const pace = feedPace()
  let page = await feedPage(db, f, undefined, Math.min(FEED_PAGE, maxEvents))
  let sent = 0
  for (;;) {
    texts.waited()
    const text = texts.events(page.rows)
    // Nothing waits for a page's text but the end: a failure is seen there (and not left unhandled meanwhile).
    text.catch(() => {})
    chunks.push(text)
    sent += page.rows.length
    const wanted = Math.min(FEED_PAGE, maxEvents - sent)
    if (page.rows.length < FEED_PAGE || wanted <= 0) break
    // On the event loop, the page's text first (one build's slices at a time); with a worker, the
    // next page is read while it builds this one, once it finished the one before (two pages of
    // rows at most in memory, however much faster the database is than the text).
    await (workers ? chunks[chunks.length - 2] : text)
    await pace.next()
    page = await feedPage(db, f, page.last, wanted)
    if (page.rows.length === 0) break
  }
  const built = await Promise.all(chunks)
  built.push(CALENDAR_END)
  return built
}
