import { sql, type Kysely, type Migration } from 'kysely'

// Term counts without hot rows (issue 34 item 2, docs/term-counts.md). Self-contained on purpose:
// a migration is history and must not change with the runtime modules.
//
// Before, the count triggers of 0001 ran `update terms set count = count ± 1` in every write that
// linked, unlinked, published or unpublished an event: creates into one category queued on its
// row's lock, writers replacing terms locked the rows in different orders and deadlocked, and
// every write left a dead version of each of its terms' rows.
//
// - The triggers append `(term_id, delta)` rows to `cal_term_count_deltas` instead: an insert
//   takes no lock another writer waits for. Same rules as before (published events count).
// - A term's count is `terms.count + sum(delta)` of its rows, read in the same statement (one
//   snapshot: a fold is atomic, so a reader sees the rows before or after it, never half).
// - `cal_fold_term_counts()` adds the deltas into `terms.count` and deletes them, in one statement
//   per term set: the calendar calls it after every 16th write of a process and with the hourly
//   prune (src/db/term-counts.ts). It never waits: another fold running makes it return
//   (`pg_try_advisory_xact_lock`), and terms another transaction holds (a rename, a delete) are
//   left for the next fold (`skip locked`). Deltas of deleted terms are dropped.
// - A fold changes no answer, so an update of terms that changed only `count` is no longer a
//   change of the log (0007 recorded every update of terms): caches keep their answers.
const COUNT = (id: string) => `(t.count + coalesce((select sum(d.delta) from cal_term_count_deltas d where d.term_id = ${id}), 0))::int`

/** 0004's cal_event_relations with `count` read as above; `terms` is the only part that differs. */
const RELATIONS = (count: string) => `create or replace function cal_event_relations(p_ids integer[])
     returns table (event_id integer, image json, venue json, organizers json, terms json)
     language plpgsql stable rows 10 set plan_cache_mode = force_generic_plan as $$
   #variable_conflict use_column
   begin
     return query
     select e.id,
       (select to_json(obj) from (select i.id, i.url, i.extension, i.width, i.height from images i where i.id = e.image_id) obj),
       (select to_json(obj) from (
          select v.*, (select to_json(obj) from (select i.id, i.url, i.extension, i.width, i.height from images i where i.id = v.image_id) obj) as image
            from venues v where v.id = e.venue_id and v.status <> 'trash') obj),
       (select coalesce(json_agg(agg), '[]') from (
          select o.*, (select to_json(obj) from (select i.id, i.url, i.extension, i.width, i.height from images i where i.id = o.image_id) obj) as image
            from event_organizers eo
            cross join lateral (select o.* from organizers o where o.id = eo.organizer_id and o.status <> 'trash' offset 0) o
           where eo.event_id = e.id
           order by eo.position, o.id) agg),
       (select coalesce(json_agg(agg order by agg.name, agg.id), '[]') from event_terms et
          cross join lateral (
            select t.id, t.taxonomy, t.name, t.slug, t.description, t.parent_id, ${count} as count from terms t where t.id = et.term_id offset 0) agg
         where et.event_id = e.id)
     from events e
     where e.id = any(p_ids);
   end $$`

const TRIGGER_FUNCTIONS = [
  `create or replace function cal_event_terms_count() returns trigger language plpgsql as $$
   begin
     if tg_op = 'INSERT' then
       insert into cal_term_count_deltas (term_id, delta)
       select new.term_id, 1 where exists (select 1 from events where id = new.event_id and status = 'publish');
       return new;
     end if;
     insert into cal_term_count_deltas (term_id, delta)
     select old.term_id, -1 where exists (select 1 from events where id = old.event_id and status = 'publish');
     return old;
   end $$`,
  `create or replace function cal_event_status_count() returns trigger language plpgsql as $$
   begin
     if (old.status = 'publish') is distinct from (new.status = 'publish') then
       insert into cal_term_count_deltas (term_id, delta)
       select term_id, case when new.status = 'publish' then 1 else -1 end from event_terms where event_id = new.id;
     end if;
     return new;
   end $$`,
  // A hard delete cascades to event_terms after the event row is gone; settle counts first.
  `create or replace function cal_event_delete_count() returns trigger language plpgsql as $$
   begin
     if old.status = 'publish' then
       insert into cal_term_count_deltas (term_id, delta) select term_id, -1 from event_terms where event_id = old.id;
     end if;
     return old;
   end $$`,
]

// 0001's trigger functions, for the way down.
const TRIGGER_FUNCTIONS_0001 = [
  `create or replace function cal_event_terms_count() returns trigger language plpgsql as $$
   begin
     if tg_op = 'INSERT' then
       update terms set count = count + 1
        where id = new.term_id and exists (select 1 from events where id = new.event_id and status = 'publish');
       return new;
     end if;
     update terms set count = count - 1
      where id = old.term_id and exists (select 1 from events where id = old.event_id and status = 'publish');
     return old;
   end $$`,
  `create or replace function cal_event_status_count() returns trigger language plpgsql as $$
   begin
     if (old.status = 'publish') is distinct from (new.status = 'publish') then
       update terms set count = count + (case when new.status = 'publish' then 1 else -1 end)
        where id in (select term_id from event_terms where event_id = new.id);
     end if;
     return new;
   end $$`,
  `create or replace function cal_event_delete_count() returns trigger language plpgsql as $$
   begin
     if old.status = 'publish' then
       update terms set count = count - 1 where id in (select term_id from event_terms where event_id = old.id);
     end if;
     return old;
   end $$`,
]

const FOLD = `create function cal_fold_term_counts() returns integer language plpgsql as $$
   declare folded integer;
   begin
     -- Nothing to fold (the common case between folds): no statement that would lock or record.
     if not exists (select 1 from cal_term_count_deltas) then return 0; end if;
     if not pg_try_advisory_xact_lock(hashtext('cal_fold_term_counts')) then return 0; end if;
     with mine as (select t.id from terms t where t.id in (select d.term_id from cal_term_count_deltas d)
                    order by t.id for no key update skip locked),
          gone as (delete from cal_term_count_deltas d using mine where d.term_id = mine.id returning d.term_id, d.delta),
          sums as (select term_id, sum(delta)::int as n from gone group by term_id)
     update terms t set count = t.count + sums.n from sums where t.id = sums.term_id and sums.n <> 0;
     get diagnostics folded = row_count;
     delete from cal_term_count_deltas d where not exists (select 1 from terms t where t.id = d.term_id);
     return folded;
   end $$`

const UP = [
  `create table cal_term_count_deltas (
     term_id integer not null,
     delta integer not null
   )`,
  `create index cal_term_count_deltas_term on cal_term_count_deltas (term_id)`,
  ...TRIGGER_FUNCTIONS,
  FOLD,
  // Emptying terms (ids restarted, perhaps) empties their deltas too: they would count for new terms.
  `create function cal_term_count_deltas_clear() returns trigger language plpgsql as $$
   begin
     delete from cal_term_count_deltas;
     return null;
   end $$`,
  `create trigger cal_term_count_deltas_clear after truncate on terms for each statement execute function cal_term_count_deltas_clear()`,
  RELATIONS(COUNT('t.id')),
  // Updates of terms: recorded unless only `count` changed (a fold).
  `create function cal_record_term_update() returns trigger language plpgsql as $$
   begin
     insert into cal_changes (xid, tbl)
     select pg_current_xact_id(), 'terms'
      where exists (select 1 from cal_old_terms o full join cal_new_terms n on n.id = o.id
                     where o.id is null or n.id is null or (to_jsonb(o) - 'count') is distinct from (to_jsonb(n) - 'count'))
     on conflict do nothing;
     return null;
   end $$`,
  `drop trigger cal_record_change on terms`,
  `create trigger cal_record_change after insert or delete or truncate on terms for each statement execute function cal_record_change()`,
  `create trigger cal_record_term_update after update on terms
     referencing old table as cal_old_terms new table as cal_new_terms
     for each statement execute function cal_record_term_update()`,
]

const DOWN = [
  `drop trigger if exists cal_record_term_update on terms`,
  `drop trigger if exists cal_record_change on terms`,
  `create trigger cal_record_change after insert or update or delete or truncate on terms for each statement execute function cal_record_change()`,
  `drop function if exists cal_record_term_update()`,
  `update terms t set count = t.count + s.n from (select term_id, sum(delta)::int as n from cal_term_count_deltas group by term_id) s where t.id = s.term_id`,
  RELATIONS('t.count'),
  ...TRIGGER_FUNCTIONS_0001,
  `drop trigger if exists cal_term_count_deltas_clear on terms`,
  `drop function if exists cal_term_count_deltas_clear()`,
  `drop function if exists cal_fold_term_counts()`,
  `drop table if exists cal_term_count_deltas`,
]

/** Term counts as a stored base plus appended deltas, folded in now and then: no hot row per term. */
export const termCountDeltas: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of UP) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    for (const statement of DOWN) await sql.raw(statement).execute(db)
  },
}
