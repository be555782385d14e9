import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely'
import type { DB } from '../db/generated.js'
import { pruneIdempotencyKeys } from '../api/idempotency.js'
import { foldTermCounts } from '../db/term-counts.js'

// The calendar's change record and the one place that reads it (docs/change-tracking.md).
// Migration 0007 creates the log, its triggers and `cal_changed_since`; this module decides what a
// point is, how "changed since" is asked, and when the log is pruned.

/**
 * A point in the calendar's history: a PostgreSQL snapshot as text (`xmin:xmax:xip,...`), taken in
 * the same statement as whatever was read at that point.
 */
export type ChangePoint = string

/** A point before every change: "changed since" it is always true (the log starts after it). */
export const ORIGIN_POINT: ChangePoint = '1:1:'

/** How long changes stay in the log; a point older than that always counts as changed. */
export const CHANGE_RETENTION_MS = 7 * 24 * 3600 * 1000

/** How often a calendar prunes the log while it runs. */
const PRUNE_EVERY_MS = 3600 * 1000

const POINT_TEXT = /^(\d{1,20}):(\d{1,20}):(\d{1,20}(,\d{1,20})*)?$/

/** Whether `text` has the form of a point (for points that come back from clients). */
export function isChangePoint(text: string): boolean {
  const m = POINT_TEXT.exec(text)
  if (!m) return false
  const [xmin, xmax] = [BigInt(m[1]!), BigInt(m[2]!)]
  const inProgress = m[3] ? m[3].split(',').map(BigInt) : []
  const max = 2n ** 63n - 1n
  return xmin > 0n && xmin <= xmax && xmax <= max && inProgress.every((x) => x >= xmin && x < xmax)
}

/** The point of the statement this is part of. */
export function currentPoint(): RawBuilder<ChangePoint> {
  return sql<ChangePoint>`pg_current_snapshot()::text`
}

/**
 * The names changes are recorded under (`cal_changes.tbl`): each tracked table's own name, except
 * that an update of events is `events` only when it changed a column some list filter reads;
 * `events.search` when it changed only the searched text, `events.content` when it changed only
 * columns no filter reads (migration 0007 lists them).
 */
export type ChangeKind =
  | 'events'
  | 'events.search'
  | 'events.content'
  | 'venues'
  | 'organizers'
  | 'terms'
  | 'event_terms'
  | 'event_organizers'
  | 'event_occurrences'
  | 'images'
  | 'users'

/**
 * Whether the calendar changed between `point` and the snapshot of the statement this is part
 * of: true when a change committed since (of one of `kinds`, when given), or when `point` is older
 * than the pruned log.
 */
export function changedSince(point: ChangePoint, kinds?: readonly ChangeKind[]): RawBuilder<boolean> {
  if (!kinds) return sql<boolean>`cal_changed_since(${point}::pg_snapshot)`
  // The kinds are constants of the code, written into the text: one statement text per set.
  return sql<boolean>`cal_changed_since(${point}::pg_snapshot, ${sql.raw(`array[${kinds.map((k) => `'${k}'`).join(', ')}]::text[]`)})`
}

/** `checkChanges`'s statement, compiled once: the hot-read cache runs it on every kept answer it serves. */
const CHECK = sql`select ${changedSince('')} as changed, ${currentPoint()} as now`
// With read replicas, also the primary's WAL position after the snapshot: every commit the point
// shows is at or before it, so a replica replayed that far reads at least the point's data.
const CHECK_WITH_LSN = sql`select ${changedSince('')} as changed, ${currentPoint()} as now, pg_current_wal_lsn()::text as lsn`
let checkText: string | undefined
let checkWithLsnText: string | undefined

/** What a check found: whether anything changed, the current point and (`withLsn`) the primary's WAL position. */
export interface ChangeCheck {
  changed: boolean
  now: ChangePoint
  lsn?: string
}

/** Asks on its own whether anything changed since `point`; also returns the current point. */
export async function checkChanges(db: Kysely<DB>, point: ChangePoint, withLsn = false): Promise<ChangeCheck> {
  const text = withLsn ? (checkWithLsnText ??= CHECK_WITH_LSN.compile(db).sql) : (checkText ??= CHECK.compile(db).sql)
  const { rows } = await db.executeQuery<ChangeCheck>(CompiledQuery.raw(text, [point]))
  return rows[0]!
}

/** The current point, asked on its own: a point taken before a read stands for what that read sees. */
export async function takePoint(db: Kysely<DB>): Promise<ChangePoint> {
  const { rows } = await sql<{ now: ChangePoint }>`select ${currentPoint()} as now`.execute(db)
  return rows[0]!.now
}

/** `takePoint` with the primary's WAL position after it (read replicas). */
export async function takePointWithLsn(db: Kysely<DB>): Promise<{ now: ChangePoint; lsn: string }> {
  const { rows } = await sql<{ now: ChangePoint; lsn: string }>`select ${currentPoint()} as now, pg_current_wal_lsn()::text as lsn`.execute(db)
  return rows[0]!
}

/**
 * Drops log rows recorded more than `retentionMs` ago by the database's clock; points older than
 * what it dropped then count as changed.
 */
export async function pruneChanges(db: Kysely<DB>, retentionMs = CHANGE_RETENTION_MS): Promise<void> {
  await sql`select cal_prune_changes(now() - make_interval(secs => ${retentionMs / 1000}))`.execute(db)
}

/**
 * Prunes every hour while the calendar runs (not at start-up: a process that only runs a script
 * should not write); returns the function that stops it. A failed prune (database away) is retried
 * at the next hour: the log only grows meanwhile.
 */
export function keepPruning(db: Kysely<DB>, retentionMs = CHANGE_RETENTION_MS): () => void {
  // Idempotency keys (24 h) are pruned on the same clock, and term count deltas a calendar that
  // stopped writing left unfolded are folded.
  const prune = () => Promise.all([pruneChanges(db, retentionMs), pruneIdempotencyKeys(db), foldTermCounts(db)])
  const timer = setInterval(() => void prune().catch(() => {}), PRUNE_EVERY_MS)
  timer.unref?.()
  return () => clearInterval(timer)
}
