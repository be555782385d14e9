import { sql, type Kysely, type Migration } from 'kysely'

// Occurrences of recurring events (issue 19, docs/recurrence.md). Self-contained: a migration is
// history and must not change when the runtime code (src/recurrence/occurrences.ts) does.
//
// - `event_occurrences` holds one row per occurrence of a series, written by the calendar in the
//   same transaction as the series (the rule engine runs in JavaScript, not in SQL). The series'
//   list-relevant columns are copied in so that the list index below can answer a list (and count
//   it) without visiting the events table; a row trigger keeps the copies equal to the series,
//   whoever updates it (the API, the trash, raw SQL).
// - `overridden` is room for exceptions (one occurrence changed): rematerialising keeps such rows.
// - Open-ended series are stored up to `event_occurrence_horizon.until` (UTC; null until the
//   calendar first materialised every series), plus the UTC years listed in
//   `event_occurrence_years` that a list asked for beyond it.
// - The change log (0007) records writes of the table under its own name.
// - The list indexes of events gain `recurrence` as an included column, so that "plain events
//   only" (`recurrence is null`) is still answered from the index alone.
const UP = [
  `create table event_occurrences (
     series_id integer not null references events(id) on delete cascade,
     occurrence_key text not null,
     start_local timestamp(0) not null,
     end_local timestamp(0) not null,
     start_utc timestamp(0) not null,
     end_utc timestamp(0) not null,
     status text not null,
     language text not null,
     featured boolean not null,
     hide_from_listings boolean not null,
     venue_id integer,
     date_utc timestamp(0) not null,
     author_id integer,
     overridden boolean not null default false,
     primary key (series_id, occurrence_key)
   )`,
  `create index event_occurrences_listing on event_occurrences (start_local, date_utc, series_id, occurrence_key) include (end_local)
     where status = 'publish' and not hide_from_listings`,
  `create index event_occurrences_venue_listing on event_occurrences (venue_id, start_local, date_utc, series_id) include (end_local)
     where status = 'publish' and not hide_from_listings`,
  `create index event_occurrences_start on event_occurrences (start_local, date_utc, series_id)`,
  `create index event_occurrences_start_utc on event_occurrences (start_utc)`,
  `create table event_occurrence_horizon (
     one boolean primary key default true check (one),
     until timestamp(0)
   )`,
  `insert into event_occurrence_horizon (until) values (null)`,
  `create table event_occurrence_years (year integer primary key)`,
  `create function cal_sync_occurrences() returns trigger language plpgsql as $$
   begin
     update event_occurrences
        set status = new.status, language = new.language, featured = new.featured,
            hide_from_listings = new.hide_from_listings, venue_id = new.venue_id,
            date_utc = new.date_utc, author_id = new.author_id
      where series_id = new.id;
     return null;
   end $$`,
  `create trigger events_sync_occurrences after update on events for each row
     when ((old.status, old.language, old.featured, old.hide_from_listings, old.venue_id, old.date_utc, old.author_id)
           is distinct from (new.status, new.language, new.featured, new.hide_from_listings, new.venue_id, new.date_utc, new.author_id))
     execute function cal_sync_occurrences()`,
  `create trigger cal_record_change after insert or update or delete or truncate on event_occurrences
     for each statement execute function cal_record_change()`,
  `drop index if exists events_listing_cover`,
  `create index events_listing_cover on events (start_local, date_utc, id) include (end_local, recurrence)
     where status = 'publish' and not hide_from_listings`,
  `drop index if exists events_venue_listing`,
  `create index events_venue_listing on events (venue_id, start_local, date_utc, id) include (end_local, recurrence)
     where status = 'publish' and not hide_from_listings`,
]

const DOWN = [
  `drop index if exists events_listing_cover`,
  `create index events_listing_cover on events (start_local, date_utc, id) include (end_local)
     where status = 'publish' and not hide_from_listings`,
  `drop index if exists events_venue_listing`,
  `create index events_venue_listing on events (venue_id, start_local, date_utc, id) include (end_local)
     where status = 'publish' and not hide_from_listings`,
  `drop trigger if exists events_sync_occurrences on events`,
  `drop function if exists cal_sync_occurrences()`,
  `drop table if exists event_occurrence_years`,
  `drop table if exists event_occurrence_horizon`,
  `drop table if exists event_occurrences`,
]

/** `event_occurrences`: the stored occurrences of recurring events, kept with their series. */
export const eventOccurrences: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of UP) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    for (const statement of DOWN) await sql.raw(statement).execute(db)
  },
}
