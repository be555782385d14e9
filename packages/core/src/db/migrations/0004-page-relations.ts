import { sql, type Kysely, type Migration } from 'kysely'
import { EVENT_RELATION_FUNCTIONS, IMAGE } from './0003-list-performance.js'

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
