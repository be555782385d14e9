import { sql, type Kysely, type Migration } from 'kysely'

// The calendar's change record (docs/change-tracking.md). Self-contained on purpose: a migration
// is history and must not change when the runtime module (src/changes/change-log.ts) does.
//
// - One row per writing transaction and table, inserted by statement-level triggers: no row is
//   ever updated by a writer, so concurrent writers never wait on each other here.
// - `xid` is the writer's transaction id; whether a change is in a snapshot is decided by
//   `pg_visible_in_snapshot`, which follows commit order, not id order.
// - `cal_change_horizon` holds the newest xid ever pruned: a point older than it cannot be
//   answered from the log any more and counts as changed. It starts at this migration's own
//   transaction, so a point from before the log existed also counts as changed.
// - api_tokens is left out: authenticating updates `last_used_utc`, and no response shows it.
// - An update of events says what kind of column it changed, so that a list total is not counted
//   again for an edit that cannot change which events match (docs/change-tracking.md):
//   `events.search` for the searched text only, `events.content` for columns no list filter reads
//   only, `events` for anything else. New columns count as `events` until listed here.
const TRACKED = ['events', 'venues', 'organizers', 'terms', 'event_terms', 'event_organizers', 'images', 'users']
const EVENT_SEARCH_COLUMNS = ['title', 'excerpt', 'description']
// `revision` (migration 0010) changes with every update, whatever else did.
const EVENT_CONTENT_COLUMNS = [
  'all_day', 'cost_position', 'cost_symbol', 'cost_values', 'date_floating', 'image_id', 'modified_utc', 'origin_uid', 'revision',
  'show_map', 'show_map_link', 'slug', 'sticky', 'timezone', 'translation_group', 'website',
]
const columnArray = (columns: string[]) => `array[${columns.map((c) => `'${c}'`).join(', ')}]::text[]`
const LISTED = (row: string) => `(to_jsonb(${row}) - ${columnArray([...EVENT_SEARCH_COLUMNS, ...EVENT_CONTENT_COLUMNS])})`
const SEARCHED = (row: string) => `(${EVENT_SEARCH_COLUMNS.map((c) => `${row}.${c}`).join(', ')})`

const UP = [
  `create table cal_changes (
     xid xid8 not null,
     tbl text not null,
     at timestamptz not null default now(),
     primary key (xid, tbl)
   )`,
  `create table cal_change_horizon (
     one boolean primary key default true check (one),
     xid xid8 not null
   )`,
  `insert into cal_change_horizon (xid) values (pg_current_xact_id())`,
  `create function cal_record_change() returns trigger language plpgsql as $$
   begin
     insert into cal_changes (xid, tbl) values (pg_current_xact_id(), tg_table_name) on conflict do nothing;
     return null;
   end $$`,
  // One row per kind of change the statement made; a full join, so a changed id counts as `events`.
  `create function cal_record_event_update() returns trigger language plpgsql as $$
   begin
     insert into cal_changes (xid, tbl)
     select distinct pg_current_xact_id(),
            case when ${LISTED('o')} is distinct from ${LISTED('n')} then 'events'
                 when ${SEARCHED('o')} is distinct from ${SEARCHED('n')} then 'events.search'
                 else 'events.content' end
       from cal_old_events o full join cal_new_events n on n.id = o.id
     on conflict do nothing;
     return null;
   end $$`,
  // Inlined into the calling statement (a single-expression SQL function), so it reads the log
  // with that statement's snapshot. `p_tables`: only changes recorded under these names count
  // (null: all).
  `create function cal_changed_since(p pg_snapshot, p_tables text[] default null) returns boolean language sql stable as $$
     select exists (select 1 from cal_change_horizon h where h.xid >= pg_snapshot_xmin(p))
         or exists (select 1 from cal_changes c
                     where c.xid >= pg_snapshot_xmin(p) and not pg_visible_in_snapshot(c.xid, p)
                       and (p_tables is null or c.tbl = any(p_tables)))
   $$`,
  `create function cal_prune_changes(p_before timestamptz) returns void language plpgsql as $$
   declare newest xid8;
   begin
     select max(xid) into newest from cal_changes where at < p_before;
     if newest is null then return; end if;
     update cal_change_horizon set xid = greatest(xid, newest);
     delete from cal_changes where xid <= newest;
   end $$`,
  ...TRACKED.map(
    (table) => `create trigger cal_record_change after insert ${table === 'events' ? '' : 'or update '}or delete or truncate on ${table}
                for each statement execute function cal_record_change()`,
  ),
  `create trigger cal_record_event_update after update on events
     referencing old table as cal_old_events new table as cal_new_events
     for each statement execute function cal_record_event_update()`,
]

const DOWN = [
  ...TRACKED.map((table) => `drop trigger if exists cal_record_change on ${table}`),
  `drop trigger if exists cal_record_event_update on events`,
  `drop function if exists cal_record_event_update()`,
  `drop function if exists cal_prune_changes(timestamptz)`,
  `drop function if exists cal_changed_since(pg_snapshot, text[])`,
  `drop function if exists cal_record_change()`,
  `drop table if exists cal_change_horizon`,
  `drop table if exists cal_changes`,
]

/** The change log: statement-level triggers record each writing transaction per calendar table. */
export const changeLog: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of UP) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    for (const statement of DOWN) await sql.raw(statement).execute(db)
  },
}
