import { sql, type Kysely, type Migration } from 'kysely'

// Term count deltas per statement, not per row (issue 33: bulk import). Self-contained on purpose:
// a migration is history and must not change with the runtime modules.
//
// 0001's `event_terms_count` ran a PL/pgSQL function for every link inserted or deleted, each
// probing `events` for the event's status and appending one `(term_id, ±1)` row (0020): a batch of
// 1,000 imported events with 3 links each paid 3,000 trigger calls. Now two statement-level
// triggers read the statement's links as a transition table and append one delta per term with
// the sum, in one insert ... select. The rules are 0020's: a link counts while its event is
// published, read when the statement ends (as the row trigger, an AFTER trigger, read it), so an
// update that changes an event's status and its links in one statement is still to be avoided
// (events/event-write.ts writes those apart). A link of an event deleted in the statement (the
// cascade of a hard delete) finds no event and counts nothing: `events_delete_count` settled it.
const DELTAS = (table: string, sign: '' | '-') => `insert into cal_term_count_deltas (term_id, delta)
       select l.term_id, ${sign}count(*)::int from ${table} l join events e on e.id = l.event_id and e.status = 'publish'
        group by l.term_id order by l.term_id`

const UP = [
  `drop trigger if exists event_terms_count on event_terms`,
  `create function cal_event_terms_count_added() returns trigger language plpgsql as $$
   begin
     ${DELTAS('cal_added_event_terms', '')};
     return null;
   end $$`,
  `create function cal_event_terms_count_removed() returns trigger language plpgsql as $$
   begin
     ${DELTAS('cal_removed_event_terms', '-')};
     return null;
   end $$`,
  `create trigger event_terms_count_added after insert on event_terms
     referencing new table as cal_added_event_terms for each statement execute function cal_event_terms_count_added()`,
  `create trigger event_terms_count_removed after delete on event_terms
     referencing old table as cal_removed_event_terms for each statement execute function cal_event_terms_count_removed()`,
]

const DOWN = [
  `drop trigger if exists event_terms_count_added on event_terms`,
  `drop trigger if exists event_terms_count_removed on event_terms`,
  `drop function if exists cal_event_terms_count_added()`,
  `drop function if exists cal_event_terms_count_removed()`,
  // 0020's row function is still there (0001 created it, 0020 replaced its body).
  `create trigger event_terms_count after insert or delete on event_terms
     for each row execute function cal_event_terms_count()`,
]

/** Term count deltas of `event_terms` written per statement (transition tables), one row per term. */
export const termCountStatements: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of UP) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    for (const statement of DOWN) await sql.raw(statement).execute(db)
  },
}
