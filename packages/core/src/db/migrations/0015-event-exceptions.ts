import { sql, type Kysely, type Migration } from 'kysely'

// Exceptions to recurring events (issue 19 item 3, docs/recurrence.md). Self-contained: a
// migration is history and must not change when the runtime code does.
//
// - A changed occurrence is an event row of its own (`exception_of` = the series, `exception_key`
//   = the occurrence key, its RECURRENCE-ID): its own title, times, venue, terms and organizers,
//   so every list filter reads its values. It is a single event (no recurrence), listed by the
//   events half of the list.
// - The series' stored occurrence of that key stays, `overridden` and hidden from lists, so
//   rematerialising the series (migration 0012 keeps overridden rows) neither brings it back nor
//   loses its place.
// - Visibility is the series': its status, author, password and hide_from_listings are copied to
//   its exceptions by a trigger, whoever writes the series (the API, the trash, raw SQL).
const UP = [
  `alter table events add column exception_of integer references events(id) on delete cascade`,
  `alter table events add column exception_key text`,
  `alter table events add constraint events_exception_pair check ((exception_of is null) = (exception_key is null))`,
  `create unique index events_exception on events (exception_of, exception_key) where exception_of is not null`,
  `create or replace function cal_sync_occurrences() returns trigger language plpgsql as $$
   begin
     update event_occurrences
        set status = new.status, language = new.language, featured = new.featured,
            hide_from_listings = new.hide_from_listings or overridden, venue_id = new.venue_id,
            date_utc = new.date_utc, author_id = new.author_id
      where series_id = new.id;
     return null;
   end $$`,
  `create function cal_sync_exceptions() returns trigger language plpgsql as $$
   begin
     update events
        set status = new.status, author_id = new.author_id, password = new.password,
            hide_from_listings = new.hide_from_listings
      where exception_of = new.id
        and (status, author_id, password, hide_from_listings) is distinct from (new.status, new.author_id, new.password, new.hide_from_listings);
     return null;
   end $$`,
  `create trigger events_sync_exceptions after update on events for each row
     when (new.exception_of is null and (old.status, old.author_id, old.password, old.hide_from_listings)
           is distinct from (new.status, new.author_id, new.password, new.hide_from_listings))
     execute function cal_sync_exceptions()`,
]

const DOWN = [
  `drop trigger if exists events_sync_exceptions on events`,
  `drop function if exists cal_sync_exceptions()`,
  `create or replace function cal_sync_occurrences() returns trigger language plpgsql as $$
   begin
     update event_occurrences
        set status = new.status, language = new.language, featured = new.featured,
            hide_from_listings = new.hide_from_listings, venue_id = new.venue_id,
            date_utc = new.date_utc, author_id = new.author_id
      where series_id = new.id;
     return null;
   end $$`,
  `drop index if exists events_exception`,
  `alter table events drop constraint if exists events_exception_pair`,
  `alter table events drop column if exists exception_key`,
  `alter table events drop column if exists exception_of`,
]

/** Exceptions of series: changed occurrences as their own event rows, kept visible as their series. */
export const eventExceptions: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of UP) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    for (const statement of DOWN) await sql.raw(statement).execute(db)
  },
}
