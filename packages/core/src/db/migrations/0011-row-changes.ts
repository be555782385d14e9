import { sql, type Kysely, type Migration } from 'kysely'

// Which rows each writing transaction changed, for incremental sync (issue 18, docs/sync.md).
// Self-contained on purpose: a migration is history and must not change with the runtime modules.
//
// - `cal_row_changes (xid, kind, id)`: filled by statement-level triggers with transition tables,
//   so a bulk write costs one insert ... select per statement, not one trigger call per row.
//   Nothing is ever updated by a writer; a repeat in one transaction hits the primary key.
// - Kinds: `event`, `venue`, `organizer` (the row itself), `term` (only when something an event
//   embeds changed: name, slug, description, parent; a count alone is not recorded), `image`.
//   Links (`event_terms`, `event_organizers`) record their event's id as `event`.
// - A TRUNCATE has no transition tables: it records `('*', 0)`, which makes every older sync token
//   expire (the ids it removed are unknown).
// - Same xids as `cal_changes` (migration 0007): every table here is tracked there too, so the
//   horizon rule covers these rows, and `cal_prune_changes` now prunes both.
const RECORD = (kind: string, select: string) =>
  `insert into cal_row_changes (xid, kind, id) select distinct pg_current_xact_id(), '${kind}', x.id from (${select}) x where x.id is not null on conflict do nothing`

/** [trigger function, table, event, referencing clause, body]. */
const TRIGGERS: [string, string, 'insert' | 'update' | 'delete', string, string][] = [
  ...['event', 'venue', 'organizer'].flatMap((kind): [string, string, 'insert' | 'update' | 'delete', string, string][] => {
    const table = `${kind}s`
    return [
      [`cal_rows_${table}_ins`, table, 'insert', 'new table as n', RECORD(kind, 'select id from n')],
      [`cal_rows_${table}_upd`, table, 'update', 'old table as o new table as n', RECORD(kind, 'select id from n union all select id from o')],
      [`cal_rows_${table}_del`, table, 'delete', 'old table as o', RECORD(kind, 'select id from o')],
    ]
  }),
  ...['event_terms', 'event_organizers'].flatMap((table): [string, string, 'insert' | 'update' | 'delete', string, string][] => [
    [`cal_rows_${table}_ins`, table, 'insert', 'new table as n', RECORD('event', 'select event_id as id from n')],
    [`cal_rows_${table}_upd`, table, 'update', 'old table as o new table as n', RECORD('event', 'select event_id as id from n union all select event_id from o')],
    [`cal_rows_${table}_del`, table, 'delete', 'old table as o', RECORD('event', 'select event_id as id from o')],
  ]),
  // Term counts change with every published event's write; events embed them, but reporting every
  // event of a category after each write would make a sync as large as a full walk.
  [
    'cal_rows_terms_upd',
    'terms',
    'update',
    'old table as o new table as n',
    RECORD('term', `select n.id from n join o on o.id = n.id
                     where (n.name, n.slug, n.description, n.parent_id, n.taxonomy, n.language) is distinct from
                           (o.name, o.slug, o.description, o.parent_id, o.taxonomy, o.language)`),
  ],
  ['cal_rows_terms_del', 'terms', 'delete', 'old table as o', RECORD('term', 'select id from o')],
  ['cal_rows_images_upd', 'images', 'update', 'old table as o new table as n', RECORD('image', 'select id from n union all select id from o')],
  ['cal_rows_images_del', 'images', 'delete', 'old table as o', RECORD('image', 'select id from o')],
]
const TRUNCATED = ['events', 'venues', 'organizers', 'event_terms', 'event_organizers', 'terms', 'images']

const UP = [
  `create table cal_row_changes (
     xid xid8 not null,
     kind text not null,
     id bigint not null,
     primary key (xid, kind, id)
   )`,
  // The key that signs sync tokens: one per calendar database, so every process agrees on it.
  // Two v4 UUIDs carry 244 bits from the server's strong random source (no extension needed).
  `create table cal_sync_secret (
     one boolean primary key default true check (one),
     secret text not null default replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')
   )`,
  `insert into cal_sync_secret default values`,
  ...TRIGGERS.map(
    ([fn, , , , body]) => `create function ${fn}() returns trigger language plpgsql as $$
     begin
       ${body};
       return null;
     end $$`,
  ),
  ...TRIGGERS.map(
    ([fn, table, event, referencing]) => `create trigger ${fn} after ${event} on ${table}
       referencing ${referencing} for each statement execute function ${fn}()`,
  ),
  `create function cal_rows_truncated() returns trigger language plpgsql as $$
   begin
     insert into cal_row_changes (xid, kind, id) values (pg_current_xact_id(), '*', 0) on conflict do nothing;
     return null;
   end $$`,
  ...TRUNCATED.map((table) => `create trigger cal_rows_truncated after truncate on ${table} for each statement execute function cal_rows_truncated()`),
  // The horizon also keeps a snapshot taken after the rows it dropped, so that a point can be told
  // exactly whether it needed one of them (`cal_log_misses`): every dropped row is visible in it. The log's start counts as a prune of what was never logged: every write before
  // migration 0007's triggers had committed before this migration began.
  `alter table cal_change_horizon add column snapshot pg_snapshot`,
  `update cal_change_horizon set snapshot = pg_current_snapshot()`,
  // Whether the pruned log held a change invisible in p: one at or below the horizon's xid and not
  // visible in p. Every pruned change is visible in the horizon's snapshot, so one exists only if
  // the horizon reaches xmax(p), or a transaction in progress at p had committed by the prune.
  // Exact where 0007's `horizon >= xmin(p)` is cautious: a transaction of any database of the
  // server held open across a prune holds xmin(p) back, but is in progress in both snapshots.
  `create function cal_log_misses(p pg_snapshot) returns boolean language sql stable as $$
     select exists (select 1 from cal_change_horizon h
                     where h.xid >= pg_snapshot_xmin(p)
                       and (h.snapshot is null or pg_snapshot_xmax(p) <= h.xid
                            or exists (select 1 from pg_snapshot_xip(p) x where x <= h.xid and pg_visible_in_snapshot(x, h.snapshot))))
   $$`,
  `create or replace function cal_changed_since(p pg_snapshot, p_tables text[] default null) returns boolean language sql stable as $$
     select cal_log_misses(p)
         or exists (select 1 from cal_changes c
                     where c.xid >= pg_snapshot_xmin(p) and not pg_visible_in_snapshot(c.xid, p)
                       and (p_tables is null or c.tbl = any(p_tables)))
   $$`,
  // Same horizon, same retention as before; the row record goes with the log it belongs to.
  `create or replace function cal_prune_changes(p_before timestamptz) returns void language plpgsql as $$
   declare newest xid8;
   begin
     select max(xid) into newest from cal_changes where at < p_before;
     if newest is null then return; end if;
     delete from cal_changes where xid <= newest;
     delete from cal_row_changes where xid <= newest;
     -- Read after the deletes: whatever they removed had committed, so it is visible here.
     update cal_change_horizon set xid = greatest(xid, newest), snapshot = pg_current_snapshot();
   end $$`,
]

const DOWN = [
  `create or replace function cal_changed_since(p pg_snapshot, p_tables text[] default null) returns boolean language sql stable as $$
     select exists (select 1 from cal_change_horizon h where h.xid >= pg_snapshot_xmin(p))
         or exists (select 1 from cal_changes c
                     where c.xid >= pg_snapshot_xmin(p) and not pg_visible_in_snapshot(c.xid, p)
                       and (p_tables is null or c.tbl = any(p_tables)))
   $$`,
  `drop function if exists cal_log_misses(pg_snapshot)`,
  `create or replace function cal_prune_changes(p_before timestamptz) returns void language plpgsql as $$
   declare newest xid8;
   begin
     select max(xid) into newest from cal_changes where at < p_before;
     if newest is null then return; end if;
     update cal_change_horizon set xid = greatest(xid, newest);
     delete from cal_changes where xid <= newest;
   end $$`,
  ...TRUNCATED.map((table) => `drop trigger if exists cal_rows_truncated on ${table}`),
  `drop function if exists cal_rows_truncated()`,
  ...TRIGGERS.map(([fn, table]) => `drop trigger if exists ${fn} on ${table}`),
  ...TRIGGERS.map(([fn]) => `drop function if exists ${fn}()`),
  `alter table cal_change_horizon drop column if exists snapshot`,
  `drop table if exists cal_sync_secret`,
  `drop table if exists cal_row_changes`,
]

/** Per-row change record (`cal_row_changes`) and the sync token key, for incremental sync. */
export const rowChanges: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of UP) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    for (const statement of DOWN) await sql.raw(statement).execute(db)
  },
}
