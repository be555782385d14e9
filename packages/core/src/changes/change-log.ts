import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely'
import type { Resource } from '../api/policy.js'
import type { DB } from '../db/generated.js'
import { pruneIdempotencyKeys } from '../api/idempotency.js'
import { foldTermCounts } from '../db/term-counts.js'
import { SCHEMA_QUALIFIED } from '../db/prepared-statements.js'

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

/** Kinds of change from the log's own names (`cal_changes.tbl`); an unknown name is `undefined`. */
const KNOWN_KINDS = new Set<string>(['events', 'events.search', 'events.content', 'venues', 'organizers', 'terms', 'event_terms', 'event_organizers', 'event_occurrences', 'images', 'users'] satisfies ChangeKind[])

/** The kinds of change that can change what a reader of `resources` read (`OperationPolicy.reads`). */
export function changeKindsOf(resources: readonly Resource[]): ChangeKind[] {
  return resources.flatMap((r): ChangeKind[] => (r === 'events' ? ['events', 'events.search', 'events.content'] : [r]))
}

/** Past this many changes since a point, a check stops naming their kinds: everything counts as changed. */
const NAMED_AT_MOST = 100

// Which kinds changed since the point: the changes at or past xmax(p), and those of the
// transactions in progress at p, by the index walks of `cal_changed_since` (migration 0018, which
// explains why): `order by … limit` makes the primary key's order the plan whatever the estimates,
// so a check reads the changes since the previous check, not the log. A transaction records each
// kind at most once (the key is (xid, tbl)), so the second limit never cuts a transaction short.
// The version of the tokens and users (migration 0021) rides along: a token's kept principal is
// used only while it is the version read with its row (auth/token-cache.ts). `checkChanges` runs
// it for the hot-read cache, on every kept answer it serves.
// `missed` and `credentials` are the bodies of `cal_log_misses` (migration 0011) and
// `cal_credentials_version()` (0021) written in: PostgreSQL inlines neither (it plans a SQL
// function's body on every call), and the check cost 0.15 ms of the server's time calling them
// against 0.05 with their bodies here (pgbench, one prepared statement, 2026-11-28). Written in,
// every name of the calendar can be qualified with its schema (`changeCheckText`). Migration 0023's
// `cal_check_changes` has this same body, for connections that send the check unnamed (`checkCall`):
// a change of one is a change of both (a migration replacing the function).
function kindsSince(q: string): string {
  return `select exists (select 1 from ${q}cal_change_horizon h
                  where h.xid >= pg_snapshot_xmin($1::pg_snapshot)
                    and (h.snapshot is null or pg_snapshot_xmax($1::pg_snapshot) <= h.xid
                         or exists (select 1 from pg_snapshot_xip($1::pg_snapshot) x where x <= h.xid and pg_visible_in_snapshot(x, h.snapshot)))) as missed,
  array(select c.tbl from ${q}cal_changes c where c.xid >= pg_snapshot_xmax($1::pg_snapshot) order by c.xid limit ${NAMED_AT_MOST + 1}) as later,
  array(select r.tbl from pg_snapshot_xip($1::pg_snapshot) x
          cross join lateral (select c.tbl from ${q}cal_changes c where c.xid >= x and c.xid <= x order by c.xid limit 1000) r) as running,
  (select v.version from ${q}cal_credentials_version v)::text as credentials,
  pg_current_snapshot()::text as now`
}

/** The hot-read cache's check, in the calendar's search path. */
export const KINDS_SINCE = kindsSince('')

// The same check as a call of migration 0023's PL/pgSQL function, whose body is `kindsSince`'s
// (`NAMED_AT_MOST + 1` written in). Sent unnamed (a pooler that keeps no named statements, such as
// PgBouncer 1.18; `preparedStatements: false`; PGlite), the text above is parsed and planned whole on
// every check: 0.46 ms a check through PgBouncer against 0.31 named. PL/pgSQL keeps its statements'
// plans per connection, so the call costs the planning of `select … from cal_check_changes($1)`
// only (0.30). Named, the text above stays: a named statement is planned once too, and the call
// cost it more (0.06 ms of the server's time against 0.04, pgbench; BENCHMARKS.md "Issue 32: the
// change check as a function"). One snapshot still: a STABLE function's statements run on the
// snapshot of the statement that called it (the migration says why). `lsn` is read in the select
// list, after the function's row; the statement's snapshot was taken before either.
function checkCall(q: string, withLsn: boolean): string {
  return `select c.missed, c.later, c.running, c.credentials, c.now${withLsn ? ', pg_current_wal_lsn()::text as lsn' : ''} from ${q}cal_check_changes($1::pg_snapshot) c`
}

/**
 * The text of the check: in the search path, or (`schema`) with every name of the calendar
 * qualified and marked `SCHEMA_QUALIFIED`, for connections that get the calendar's search path
 * per transaction (a pooler, a host's pool): sent alone, it needs no transaction around it.
 * `withLsn` (read replicas): also the primary's WAL position after the snapshot: every commit the
 * point shows is at or before it, so a replica replayed that far reads at least the point's data.
 * `call`: as a call of `cal_check_changes`, for connections that do not name statements.
 */
export function changeCheckText(schema?: string, withLsn = false, call = false): string {
  const q = schema === undefined ? '' : `"${schema}".`
  const text = call ? checkCall(q, withLsn) : `${kindsSince(q)}${withLsn ? ', pg_current_wal_lsn()::text as lsn' : ''}`
  return schema === undefined ? text : `${text} ${SCHEMA_QUALIFIED}`
}

/**
 * What a check found: the kinds of change since the point (`all` when the log cannot name them:
 * pruned past the point, or too many changes), the current point, the version of the tokens and
 * users, and (`withLsn`) the primary's WAL position.
 */
export interface ChangeCheck {
  changed: readonly ChangeKind[] | 'all'
  now: ChangePoint
  credentials: string
  lsn?: string
}

/**
 * Asks on its own which kinds of change committed since `point` (`all` from `ORIGIN_POINT`); also
 * returns the current point. `text`: the check's (`changeCheckText`).
 */
export async function checkChanges(db: Kysely<DB>, point: ChangePoint, text = KINDS_SINCE): Promise<ChangeCheck> {
  const { rows } = await db.executeQuery<{ missed: boolean; later: string[]; running: string[]; credentials: string; now: ChangePoint; lsn?: string }>(
    CompiledQuery.raw(text, [point]),
  )
  const { missed, later, running, credentials, now, lsn } = rows[0]!
  const kinds = new Set([...later, ...running])
  const named = !missed && later.length <= NAMED_AT_MOST && [...kinds].every((k) => KNOWN_KINDS.has(k))
  return { changed: named ? ([...kinds] as ChangeKind[]) : 'all', now, credentials, ...(lsn !== undefined ? { lsn } : {}) }
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
