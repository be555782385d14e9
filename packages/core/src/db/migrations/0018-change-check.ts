import { sql, type Kysely, type Migration } from 'kysely'

// The change check's cost no longer grows with the log (issue 34 item 1, docs/change-tracking.md).
// Self-contained on purpose: a migration is history and must not change with the runtime modules.
//
// 0007/0011 asked `exists (… where xid >= pg_snapshot_xmin(p) and not pg_visible_in_snapshot(xid, p))`.
// The function is not inlined (its body has sub-selects), so its body is planned with `p` unknown:
// the planner guesses a third of the log matches `xid >= $1` and an `exists` over a sequential
// scan looks cheapest. The scan starts at the oldest rows, all visible, and reads the whole log
// before it can answer "no change" (about 700 pages at 100,000 rows, 6 ms, on every cached answer).
//
// A transaction is not in p exactly when its xid is at or past xmax(p), or is one of xip(p), the
// transactions in progress at p (an xid below xmax and not in xip had ended before p). So:
// - one row at or past xmax(p): an index walk from xmax(p) up, first match wins (`order by … limit 1`
//   makes the primary key's order the plan whatever the estimates). With no kind filter that is the
//   first index entry looked at; with one, it passes only later changes of other kinds: O(changes
//   since the point).
// - or one row of an xid in xip(p): an index probe per transaction in progress at p, written as a
//   range with `limit` for the same reason (`xid = any(…)` is a sequential scan on a log without
//   statistics, and autovacuum may never have analysed it).
// Rows of aborted writers are dead and skipped as before; nothing before xmin(p) is read at all.
const CHANGED_SINCE = `create or replace function cal_changed_since(p pg_snapshot, p_tables text[] default null) returns boolean language sql stable as $$
     select cal_log_misses(p)
         or exists (select 1 from (select c.xid from cal_changes c
                                    where c.xid >= pg_snapshot_xmax(p) and (p_tables is null or c.tbl = any(p_tables))
                                    order by c.xid limit 1) later)
         or exists (select 1 from pg_snapshot_xip(p) x
                     where exists (select 1 from (select c.xid from cal_changes c
                                                   where c.xid >= x and c.xid <= x and (p_tables is null or c.tbl = any(p_tables))
                                                   order by c.xid limit 1) running))
   $$`

// 0011's definition, for the way down.
const CHANGED_SINCE_0011 = `create or replace function cal_changed_since(p pg_snapshot, p_tables text[] default null) returns boolean language sql stable as $$
     select cal_log_misses(p)
         or exists (select 1 from cal_changes c
                     where c.xid >= pg_snapshot_xmin(p) and not pg_visible_in_snapshot(c.xid, p)
                       and (p_tables is null or c.tbl = any(p_tables)))
   $$`

/** `cal_changed_since` by index probes past the point: its cost follows the changes since, not the log. */
export const changeCheck: Migration = {
  async up(db: Kysely<unknown>) {
    await sql.raw(CHANGED_SINCE).execute(db)
  },
  async down(db: Kysely<unknown>) {
    await sql.raw(CHANGED_SINCE_0011).execute(db)
  },
}
