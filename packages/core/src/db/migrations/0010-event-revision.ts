import { sql, type Kysely, type Migration } from 'kysely'

// iCalendar feeds (issue 20) need a SEQUENCE that grows whenever an event changes: a counter
// kept by a row trigger counts every write, whoever makes it (the API, an importer, raw SQL), and
// two writes in the same second, which `modified_utc` (whole seconds) could not tell apart.
// `recurrence` holds an event's RFC 5545 recurrence lines (RRULE/RDATE/EXDATE, issue 19); null
// for a single event.
const STATEMENTS = [
  `alter table events add column revision integer not null default 0`,
  `alter table events add column recurrence text[]`,
  `create or replace function cal_event_revision() returns trigger language plpgsql as $$
   begin
     new.revision := old.revision + 1;
     return new;
   end
   $$`,
  `create trigger events_revision before update on events
   for each row when (old.* is distinct from new.*) execute function cal_event_revision()`,
]

/** `events.revision` (SEQUENCE of the iCalendar feeds) and `events.recurrence`. */
export const eventRevision: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    await sql.raw('drop trigger if exists events_revision on events').execute(db)
    await sql.raw('drop function if exists cal_event_revision()').execute(db)
    await sql.raw('alter table events drop column if exists recurrence').execute(db)
    await sql.raw('alter table events drop column if exists revision').execute(db)
  },
}
