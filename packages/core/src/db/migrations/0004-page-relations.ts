import { sql, type Kysely, type Migration } from 'kysely'

// Copied from 0003, not imported: a migration is history, and must not change with another file.
/** The image object of `linked.repository.ts` `imageJson`: id, url, extension, width, height. */
const IMAGE = (idRef: string) =>
  `(select to_json(obj) from (select i.id, i.url, i.extension, i.width, i.height from images i where i.id = ${idRef}) obj)`

/** 0003's per-event relation functions, as 0003 created them: the way down recreates them. */
const EVENT_RELATION_FUNCTIONS = [
  // An event's relations as JSON, for `event.repository.ts` `eventRelations`: the same objects as
  // correlated subqueries in every statement would give, but PL/pgSQL prepares its queries once
  // per connection, while a subquery in the statement is planned again on every execution (most
  // of a list statement's database time). Not inlinable on purpose (PL/pgSQL, not SQL).
  `create or replace function cal_image_json(p_id integer) returns json language plpgsql stable as $$
   begin
     if p_id is null then return null; end if;
     return ${IMAGE('p_id')};
   end $$`,
  `create or replace function cal_venue_json(p_id integer) returns json language plpgsql stable as $$
   begin
     if p_id is null then return null; end if;
     return (select to_json(obj) from (
       select v.*, cal_image_json(v.image_id) as image from venues v where v.id = p_id and v.status <> 'trash') obj);
   end $$`,
  `create or replace function cal_event_organizers_json(p_event_id integer) returns json language plpgsql stable as $$
   begin
     return (select coalesce(json_agg(agg), '[]') from (
       select o.*, cal_image_json(o.image_id) as image
         from event_organizers eo join organizers o on o.id = eo.organizer_id
        where eo.event_id = p_event_id and o.status <> 'trash'
        order by eo.position, o.id) agg);
   end $$`,
  // Terms by primary key: a join lets the planner hash the whole (small, update-churned) terms
  // table on every call, four times slower than these few index probes.
  `create or replace function cal_event_terms_json(p_event_id integer) returns json language plpgsql stable as $$
   begin
     return (select coalesce(json_agg(agg), '[]') from (
       select t.id, t.taxonomy, t.name, t.slug, t.description, t.parent_id, t.count
         from terms t
        where t.id = any(array(select et.term_id from event_terms et where et.event_id = p_event_id))
        order by t.name, t.id) agg);
   end $$`,
]

// One call per list page instead of four per event. 0003's per-event functions each paid a
// PL/pgSQL call and an executor start-up per event (about 65 µs an event at a million events);
// here the relations of the whole page are correlated subqueries of one cached plan.
//
// - `plan_cache_mode = force_generic_plan`: PL/pgSQL would otherwise keep planning a custom plan
//   for every array it is given (the generic plan's row estimate for `= any($1)` looks costlier),
//   which costs more than the query itself.
// - The `offset 0` fences keep organizers and terms as index probes per link row: flattened into
//   a join, the planner hashes the whole (small, count-churned) table on every execution.
// - `#variable_conflict use_column`: the output columns share names with table columns.
const UP = [
  `create or replace function cal_event_relations(p_ids integer[])
     returns table (event_id integer, image json, venue json, organizers json, terms json)
     language plpgsql stable rows 10 set plan_cache_mode = force_generic_plan as $$
   #variable_conflict use_column
   begin
     return query
     select e.id,
       ${IMAGE('e.image_id')},
       (select to_json(obj) from (
          select v.*, ${IMAGE('v.image_id')} as image from venues v where v.id = e.venue_id and v.status <> 'trash') obj),
       (select coalesce(json_agg(agg), '[]') from (
          select o.*, ${IMAGE('o.image_id')} as image
            from event_organizers eo
            cross join lateral (select o.* from organizers o where o.id = eo.organizer_id and o.status <> 'trash' offset 0) o
           where eo.event_id = e.id
           order by eo.position, o.id) agg),
       (select coalesce(json_agg(agg order by agg.name, agg.id), '[]') from event_terms et
          cross join lateral (
            select t.id, t.taxonomy, t.name, t.slug, t.description, t.parent_id, t.count from terms t where t.id = et.term_id offset 0) agg
         where et.event_id = e.id)
     from events e
     where e.id = any(p_ids);
   end $$`,
  `drop function if exists cal_event_terms_json(integer)`,
  `drop function if exists cal_event_organizers_json(integer)`,
  `drop function if exists cal_venue_json(integer)`,
  `drop function if exists cal_image_json(integer)`,
]

/** Event relations per page: `cal_event_relations(ids)` replaces 0003's four per-event functions. */
export const pageRelations: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of UP) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    for (const statement of EVENT_RELATION_FUNCTIONS) await sql.raw(statement).execute(db)
    await sql.raw('drop function if exists cal_event_relations(integer[])').execute(db)
  },
}
