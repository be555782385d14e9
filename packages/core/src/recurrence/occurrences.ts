import { sql, type Kysely, type Transaction } from 'kysely'
import type { DB } from '../db/generated.js'
import { addMonthsToWall, epochMsToUtcWall, nowUtcWall, storableWall, utcWallToEpochMs, wallToUtc, type WallTime, wallFromDb } from '../time/wall-time.js'
import { expandBounded, expandRecurrence, type Occurrence } from './recurrence.js'
import { expandBoundedSliced, expandSliced, ruleWork, STORE_WORK_MS, type RuleWork } from './rule-work.js'

// The stored occurrences of series (docs/recurrence.md, migration 0012): what is written with a
// series, the horizon open-ended series are stored up to, and the job that moves it. Bounded
// series (COUNT, UNTIL, RDATEs only: at most 1,000 occurrences) are always stored whole. Past the
// horizon nothing is stored: lists compute those occurrences per request (recurrence/far-occurrences.ts).

type Db = Kysely<DB> | Transaction<DB>

/** How far past now open-ended series are stored (past the list's default window of 24 months). */
export const HORIZON_MONTHS = 36
/** Most occurrences stored for one series within the horizon: those of the last as many days before it. */
export const MAX_STORED_OCCURRENCES = 10_000
const DAY_MS = 86_400_000
/** How often a running calendar moves the horizon. */
const EXTEND_EVERY_MS = 24 * 3600 * 1000
/**
 * Rows per insert statement (14 parameters a row, well below PostgreSQL's 65,535). Building and
 * sending one statement is synchronous work: 2,000 rows held the event loop 100-200 ms (issue 28).
 */
const ROWS_PER_INSERT = 500

/** What materialising needs of a series row. */
export interface SeriesRow {
  id: number
  recurrence: string[] | null
  start_local: string
  end_local: string
  start_utc: string
  timezone: string
  all_day: boolean
  status: string
  language: string
  featured: boolean
  hide_from_listings: boolean
  venue_id: number | null
  date_utc: string
  author_id: number | null
}

/** The columns of `events` a `SeriesRow` holds. */
export const SERIES_COLUMNS = [
  'id', 'recurrence', 'start_local', 'end_local', 'start_utc', 'timezone', 'all_day', 'status', 'language', 'featured',
  'hide_from_listings', 'venue_id', 'date_utc', 'author_id',
] as const

/** Stored horizon: open-ended series are stored up to `until` (UTC); null before the first run of the job. */
export interface Horizon {
  until: WallTime | null
}

/**
 * The key of an occurrence: its original start in UTC as an RFC 5545 DATE-TIME (`20270105T090000Z`,
 * the RECURRENCE-ID), or its date (`20270105`) for an all-day series. Stable for the life of the series.
 */
export function occurrenceKey(startUtc: WallTime, startLocal: WallTime, allDay: boolean): string {
  if (allDay) return startLocal.slice(0, 10).replace(/-/g, '')
  return `${startUtc.slice(0, 10).replace(/-/g, '')}T${startUtc.slice(11, 19).replace(/:/g, '')}Z`
}

const KEY_RE = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z)?$/

/** Whether `text` has the form of an occurrence key. */
export function isOccurrenceKey(text: string): boolean {
  return KEY_RE.test(text)
}

/** Whether a series' lines run without end: an RRULE without COUNT or UNTIL. */
export function isOpenEnded(lines: readonly string[]): boolean {
  return lines.some((l) => l.startsWith('RRULE:') && !/(^|[:;])(COUNT|UNTIL)=/.test(l))
}

/** The horizon a calendar keeps at `now`: now + `HORIZON_MONTHS`, in UTC. */
export function targetHorizon(now: Date): WallTime {
  return addMonthsToWall(nowUtcWall(now), HORIZON_MONTHS)
}

const asDate = (utc: WallTime) => new Date(`${utc.replace(' ', 'T')}Z`)

/**
 * The occurrence rows of `series` starting between two UTC instants (inclusive); all of them
 * without `from`. `toUtc` reads the series' wall clocks as UTC (a `zoneClock` when many are read).
 */
export function occurrenceRows(series: SeriesRow, from?: Date, to?: Date, limit = MAX_STORED_OCCURRENCES, toUtc: (wall: WallTime) => WallTime = (w) => wallToUtc(w, series.timezone)) {
  const startLocal = wallFromDb(series.start_local)
  const start = { wall: startLocal, zone: series.timezone, allDay: series.all_day }
  const found = from && to ? expandRecurrence(series.recurrence!, start, from, to, limit) : expandBounded(series.recurrence!, start)
  return rowsOf(series, found, toUtc)
}

function rowsOf(series: SeriesRow, found: readonly Occurrence[], toUtc: (wall: WallTime) => WallTime = (w) => wallToUtc(w, series.timezone)) {
  const lengthMs = utcWallToEpochMs(wallFromDb(series.end_local)) - utcWallToEpochMs(wallFromDb(series.start_local))
  const rows = []
  for (const o of found) {
    // The series' length on the wall clock: a 10:00-12:00 series stays 10:00-12:00 across DST.
    const endLocal = epochMsToUtcWall(utcWallToEpochMs(o.wall) + lengthMs)
    // A timed occurrence comes with its instant; an all-day one's is its midnight in the zone.
    const startUtc = series.all_day ? storableWall(() => toUtc(o.wall)) : o.utc
    const endUtc = storableWall(() => toUtc(endLocal))
    if (startUtc === null || endUtc === null || !storableWall(() => endLocal)) continue
    rows.push({
      series_id: series.id,
      occurrence_key: occurrenceKey(startUtc, o.wall, series.all_day),
      start_local: o.wall,
      end_local: endLocal,
      start_utc: startUtc,
      end_utc: endUtc,
      status: series.status,
      language: series.language,
      featured: series.featured,
      hide_from_listings: series.hide_from_listings,
      venue_id: series.venue_id,
      date_utc: wallFromDb(series.date_utc),
      author_id: series.author_id,
    })
  }
  return rows
}

/**
 * The occurrence of `series` whose key is `key`, computed from the rule (stored or not: an
 * open-ended series has occurrences past the horizon); `undefined` when the series has none there.
 * Sliced and bounded like every expansion on a request's path (`work`: a rule stored before its
 * bounds, too costly, is the 400 on `recurrence`, never a held event loop).
 */
export async function occurrenceAt(series: SeriesRow, key: string, work: RuleWork = ruleWork()) {
  const m = KEY_RE.exec(key)
  if (!m || !series.recurrence || series.recurrence.length === 0 || series.all_day !== (m[4] === undefined)) return undefined
  const utc = `${m[1]}-${m[2]}-${m[3]} ${m[4] ?? '00'}:${m[5] ?? '00'}:${m[6] ?? '00'}`
  if (!storableWall(() => utc)) return undefined
  const at = asDate(utc)
  // All-day keys are dates of the series' own calendar: look a day around and match the key.
  const margin = series.all_day ? 2 * DAY_MS : 0
  return (await slicedRows(series, work, new Date(at.getTime() - margin), new Date(at.getTime() + margin), 5)).find((r) => r.occurrence_key === key)
}

/**
 * The occurrence rows of `series` starting between two UTC instants (inclusive), all of them
 * without `from`: as `occurrenceRows`, but window by window, yielding to the event loop (issue 28:
 * the write path and the horizon job expand up to 10,000 occurrences a series).
 */
async function slicedRows(series: SeriesRow, work: RuleWork, from?: Date, to?: Date, limit = MAX_STORED_OCCURRENCES) {
  const start = { wall: wallFromDb(series.start_local), zone: series.timezone, allDay: series.all_day }
  const found = from && to ? await expandSliced(series.recurrence!, start, from, to, limit, work) : await expandBoundedSliced(series.recurrence!, start, work)
  return rowsSliced(series, found)
}

/** `rowsOf` a few milliseconds at a time: rows cost a zone conversion each (tens of µs). */
async function rowsSliced(series: SeriesRow, found: readonly Occurrence[]) {
  const rows: ReturnType<typeof rowsOf> = []
  for (let i = 0; i < found.length; ) {
    const began = performance.now()
    for (; i < found.length && performance.now() - began < 5; i += 50) rows.push(...rowsOf(series, found.slice(i, i + 50)))
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  return rows
}

/** Every stored occurrence of `series` under `horizon`: all of a bounded series, else up to the horizon. */
async function storedRows(series: SeriesRow, horizon: WallTime, work: RuleWork) {
  const first = asDate(wallFromDb(series.start_utc))
  // One day early: an all-day or `UTC±h` series is generated on a UTC clock (expandRecurrence filters exactly).
  const from = new Date(first.getTime() - DAY_MS)
  if (!isOpenEnded(series.recurrence!)) return slicedRows(series, work)
  const until = asDate(horizon)
  // A rule gives at most one instance a day (no BYHOUR or finer, recurrence.ts), so the
  // MAX_STORED_OCCURRENCES days before the horizon hold at most that many: a series started
  // decades ago keeps its latest ones (those lists show), not its first, and is never expanded
  // over a century (the engine gives up after 20,000 steps: a daily series from 1900 was a 500).
  const recent = new Date(until.getTime() - MAX_STORED_OCCURRENCES * DAY_MS)
  return slicedRows(series, work, from > recent ? from : recent, until)
}

async function insertRows(db: Db, rows: readonly ReturnType<typeof occurrenceRows>[number][]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    // An overridden occurrence (an exception) keeps its row; extending twice writes nothing twice.
    await db
      .insertInto('event_occurrences')
      .values(rows.slice(i, i + ROWS_PER_INSERT))
      .onConflict((oc) => oc.columns(['series_id', 'occurrence_key']).doNothing())
      .execute()
  }
}

/**
 * Reads the stored horizon; `lock` takes the row for share, so that a series write and the job
 * that moves the horizon do not interleave (the job takes it for update).
 */
async function readHorizon(db: Db, lock: 'share' | 'update' | undefined): Promise<Horizon> {
  const head = await db.selectFrom('event_occurrence_horizon').select('until').$if(lock === 'share', (q) => q.forShare()).$if(lock === 'update', (q) => q.forUpdate()).executeTakeFirst()
  return { until: head?.until ? wallFromDb(head.until) : null }
}

/**
 * Stores the occurrences of event `id` anew, in the caller's transaction: after a write that
 * created the series or changed its start, end, zone, all-day flag or rule, or made it a single
 * event (then it has none). Overridden occurrences are kept. The series' other list columns are
 * kept equal by the trigger of migration 0012.
 */
export async function materialiseSeries(trx: Transaction<DB>, id: number, now: Date): Promise<void> {
  const series = await trx.selectFrom('events').select([...SERIES_COLUMNS]).where('id', '=', id).executeTakeFirst()
  await trx.deleteFrom('event_occurrences').where('series_id', '=', id).where('overridden', '=', false).execute()
  if (!series?.recurrence || series.recurrence.length === 0) return
  const stored = await readHorizon(trx, 'share')
  const target = targetHorizon(now)
  const horizon = stored.until !== null && stored.until > target ? stored.until : target
  await insertRows(trx, await storedRows(series, horizon, ruleWork(STORE_WORK_MS)))
}

/**
 * `materialiseSeries` for series a batch has just created (`events/event-import.ts`): their rows
 * in one statement, the horizon read once, all their occurrences in as few inserts as fit. New
 * events have no stored occurrences, so nothing is deleted first. `known`: a bounded series'
 * occurrences as its write's check expanded them from the same rule, start and zone
 * (`verifyRecurrence`), not expanded again.
 */
export async function materialiseNewSeries(trx: Transaction<DB>, ids: readonly number[], now: Date, known: ReadonlyMap<number, readonly Occurrence[]> = new Map()): Promise<void> {
  if (ids.length === 0) return
  const series = await trx.selectFrom('events').select([...SERIES_COLUMNS]).where('id', '=', sql<number>`any(${[...ids]}::int[])`).orderBy('id').execute()
  const stored = await readHorizon(trx, 'share')
  const target = targetHorizon(now)
  const horizon = stored.until !== null && stored.until > target ? stored.until : target
  const rows: ReturnType<typeof rowsOf> = []
  for (const one of series as SeriesRow[]) {
    if (!one.recurrence || one.recurrence.length === 0) continue
    const found = isOpenEnded(one.recurrence) ? undefined : known.get(one.id)
    // Each series its own budget, as each single write has.
    rows.push(...(found ? await rowsSliced(one, found) : await storedRows(one, horizon, ruleWork(STORE_WORK_MS))))
  }
  await insertRows(trx, rows)
}

async function seriesRows(db: Db, openEndedOnly: boolean): Promise<SeriesRow[]> {
  const rows = (await db.selectFrom('events').select([...SERIES_COLUMNS]).where('recurrence', 'is not', null).execute()) as SeriesRow[]
  return rows.filter((r) => r.recurrence && r.recurrence.length > 0 && (!openEndedOnly || isOpenEnded(r.recurrence)))
}

/**
 * Moves the horizon to now + `HORIZON_MONTHS`, storing the open-ended series' occurrences up to
 * it. The first run after migration 0012 stores every series whole. One transaction, holding the
 * horizon row, so concurrent runs and series writes wait for each other.
 */
export async function extendOccurrences(db: Kysely<DB>, now: Date): Promise<void> {
  const target = targetHorizon(now)
  // A horizon moved within the last day is far enough (36 months against the list's default 24):
  // otherwise every process start would move it by the minutes since the last one, reading every
  // series in a transaction before its first answer.
  const recent = targetHorizon(new Date(now.getTime() - EXTEND_EVERY_MS))
  const known = cached(db)
  if (known?.until && known.until >= recent) return
  // A plain read first: a calendar that starts after another moved the horizon today opens no
  // transaction (two calendars on one PGlite instance share its single session).
  const seen = await readHorizon(db, undefined)
  if (seen.until !== null && seen.until >= recent) return remember(db, seen)
  const horizon = await db.transaction().execute(async (trx) => {
    const stored = await readHorizon(trx, 'update')
    if (stored.until !== null && stored.until >= recent) return stored
    if (stored.until === null) {
      for (const series of await seriesRows(trx, false)) {
        await trx.deleteFrom('event_occurrences').where('series_id', '=', series.id).where('overridden', '=', false).execute()
        // The job has no budget to refuse with (each series was verified when written); it still yields.
        await insertRows(trx, await storedRows(series, target, ruleWork(Infinity)))
      }
    } else {
      const from = new Date(asDate(stored.until).getTime() + 1000)
      for (const series of await seriesRows(trx, true)) {
        await insertRows(trx, await slicedRows(series, ruleWork(Infinity), from, asDate(target)))
      }
    }
    await trx.updateTable('event_occurrence_horizon').set({ until: target }).execute()
    return { until: target }
  })
  remember(db, horizon)
}

/**
 * The stored horizon of `db` (UTC): open-ended series are stored up to it and computed past it.
 * No statement once this process saw it (after the job's first run, which every call waits for);
 * `null` when no horizon was ever stored (then nothing of open-ended series is).
 */
export async function storedHorizon(db: Kysely<DB>): Promise<WallTime | null> {
  await firstRuns.get(db)
  let known = cached(db)
  if (!known || known.until === null) {
    known = await readHorizon(db, undefined)
    remember(db, known)
  }
  return known.until
}

// The horizon last seen per calendar database (Kysely instance). It only grows, so a stale value
// only makes a list compute occurrences that are stored already (the list drops those), never a
// wrong list.
const horizons = new WeakMap<object, Horizon>()
const firstRuns = new WeakMap<object, Promise<void>>()

function remember(db: Kysely<DB>, horizon: Horizon): void {
  const known = horizons.get(db)
  if (known?.until && horizon.until && known.until > horizon.until) return
  horizons.set(db, horizon)
}

function cached(db: Kysely<DB>): Horizon | undefined {
  return horizons.get(db)
}

/** The horizon job of one calendar (`keepExtending`). */
export interface HorizonJob {
  /** Runs the first move of the horizon, once, and waits for it; later calls wait for the same run. */
  ready(): Promise<void>
  /** Stops the daily runs and waits for one in progress. */
  stop(): Promise<void>
}

/**
 * Moves the horizon at the calendar's first call and then daily while it runs. The first run
 * waits for a call rather than running at start-up: a process that only runs a script writes
 * nothing it does not ask for, and two calendars sharing one PGlite instance (one session) do not
 * interleave a background statement with the other's calls. A failed run (database away) is
 * retried at the next day; lists compute what lies past the stored horizon meanwhile.
 */
export function keepExtending(db: Kysely<DB>, now: () => Date): HorizonJob {
  let running: Promise<void> = Promise.resolve()
  let first: Promise<void> | undefined
  const run = () => (running = extendOccurrences(db, now()).catch(() => {}))
  const timer = setInterval(() => void run(), EXTEND_EVERY_MS)
  timer.unref?.()
  return {
    ready() {
      if (!first) firstRuns.set(db, (first = run()))
      return first
    },
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}
