import { sql, type Kysely, type Migration } from 'kysely'

// What the benchmark (bench/, BENCHMARKS.md) called for at a million events. Every statement is
// idempotent, so the migration can be re-run by hand (delete its cal_migrations row) on a database
// that ran an earlier draft of it.

/** The image object of `linked.repository.ts` `imageJson`: id, url, extension, width, height. */
const IMAGE = (idRef: string) =>
  `(select to_json(obj) from (select i.id, i.url, i.extension, i.width, i.height from images i where i.id = ${idRef}) obj)`

const INDEXES = [
  // The public default list (publish, not hidden, start_local window, end_local bound, ordered by
  // start_local, date_utc, id) as an index-only scan: end_local rides along, so neither the page
  // nor the count visits the table. Replaces 0001's `events_listing`, which lacked end_local.
  `create index if not exists events_listing_cover on events (start_local, date_utc, id) include (end_local)
     where status = 'publish' and not hide_from_listings`,
  `drop index if exists events_listing`,
  // The same list filtered by venue (`?venue=`): in list order within one venue, instead of walking
  // the whole list and skipping other venues' events.
  `create index if not exists events_venue_listing on events (venue_id, start_local, date_utc, id) include (end_local)
     where status = 'publish' and not hide_from_listings`,
  // Slug uniqueness checks ask for `slug = $1 or slug like '$1-%'` per language; a pattern-ops
  // index turns that from a table scan (O(events) per create) into two index probes.
  `create index if not exists events_slug_pattern on events (language, slug text_pattern_ops)`,
]

/** The per-event relation functions; 0004 replaced them with one per page, and recreates them on the way down. */
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

const UP = [...INDEXES, ...EVENT_RELATION_FUNCTIONS]

const DOWN = [
  `drop function if exists cal_event_terms_json(integer)`,
  `drop function if exists cal_event_organizers_json(integer)`,
  `drop function if exists cal_venue_json(integer)`,
  `drop function if exists cal_image_json(integer)`,
  `create index events_listing on events (start_local, date_utc, id) where status = 'publish' and not hide_from_listings`,
  `drop index if exists events_listing_cover`,
  `drop index if exists events_venue_listing`,
  `drop index if exists events_slug_pattern`,
]

/** List and read performance: covering and pattern indexes, relation functions with cached plans. */
export const listPerformance: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of UP) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    for (const statement of DOWN) await sql.raw(statement).execute(db)
  },
}
