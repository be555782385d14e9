import { sql, type Kysely, type Migration } from 'kysely'

// The hot-read cache's change check as a PL/pgSQL function (issue 32, docs/response-cache.md
// "Cost"). Self-contained on purpose: a migration is history and must not change with the runtime
// modules.
//
// Behind a transaction pooler that keeps no named statements (Debian bookworm's PgBouncer 1.18), the
// check was sent as one simple-protocol message, its parameter written in, and PostgreSQL parsed and
// planned its five sub-selects on every check: 0.46 ms a check against 0.31 for the same text
// named. PL/pgSQL keeps its statements' plans for the life of the connection, so a call costs the
// parsing of `select … from cal_check_changes('…')` only (0.30 ms; a sequential latency probe
// through PgBouncer, 2026-11-28).
//
// The body is `changes/change-log.ts`'s check as it was (the bodies of `cal_log_misses` and
// `cal_credentials_version()` written in: a SQL function is planned on every call), unchanged in
// what it answers. One snapshot still: a STABLE function's statements run on the snapshot of the
// statement that called it (PostgreSQL takes no new one for them, "Function Volatility
// Categories"), and `pg_current_snapshot()` answers that same active snapshot, so the point
// returned is the one the log walks and the version read ran at. Were it VOLATILE, each statement
// would take a fresh snapshot and a change committing between them could be missed.
// The 101 and 1000 are the runtime's: at most 100 changes named (`NAMED_AT_MOST`), and one
// transaction records each kind at most once.
//
// Its search path is pinned (`set search_path from current`): behind a pooler it is called with its
// schema's name on a connection whose search path is not the calendar's. `migrate.ts` pins it again,
// with the trigger functions, after every run and when a calendar set renames a spare schema.
const CHECK = `create function cal_check_changes(p pg_snapshot,
     out missed boolean, out later text[], out running text[], out credentials text, out now text)
   language plpgsql stable set search_path from current as $$
   begin
     select exists (select 1 from cal_change_horizon h
                     where h.xid >= pg_snapshot_xmin(p)
                       and (h.snapshot is null or pg_snapshot_xmax(p) <= h.xid
                            or exists (select 1 from pg_snapshot_xip(p) x where x <= h.xid and pg_visible_in_snapshot(x, h.snapshot)))),
            array(select c.tbl from cal_changes c where c.xid >= pg_snapshot_xmax(p) order by c.xid limit 101),
            array(select r.tbl from pg_snapshot_xip(p) x
                    cross join lateral (select c.tbl from cal_changes c where c.xid >= x and c.xid <= x order by c.xid limit 1000) r),
            (select v.version from cal_credentials_version v)::text,
            pg_current_snapshot()::text
       into missed, later, running, credentials, now;
   end $$`

/** `cal_check_changes(point)`: the hot-read cache's change check, its plans kept by PL/pgSQL. */
export const changeCheckFunction: Migration = {
  async up(db: Kysely<unknown>) {
    await sql.raw(CHECK).execute(db)
  },
  async down(db: Kysely<unknown>) {
    await sql.raw(`drop function if exists cal_check_changes(pg_snapshot)`).execute(db)
  },
}
