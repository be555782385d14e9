import { sql, type Kysely, type Migration } from 'kysely'

// Reads never write (issue 28 item 3, docs/recurrence.md): occurrences of open-ended series past
// the stored horizon are computed per list request, no longer stored in the UTC years a list asked
// for. Self-contained: a migration is history and must not change with the runtime code.
//
// - The rows such lists stored past the horizon go: the occurrences of open-ended series (an RRULE
//   without COUNT or UNTIL) starting after `event_occurrence_horizon.until`, except overridden ones
//   (the places of changed occurrences, which lists still need to hide the computed ones). Bounded
//   series are stored whole, past the horizon too, and keep every row.
// - `event_occurrence_years`, the record of those years, is dropped.
const UP = [
  `delete from event_occurrences o
    using events e, event_occurrence_horizon h
    where e.id = o.series_id
      and not o.overridden
      and h.until is not null
      and o.start_utc > h.until
      and exists (select from unnest(e.recurrence) as l(line) where l.line ~ '^RRULE:' and l.line !~ '(^|[:;])(COUNT|UNTIL)=')`,
  `drop table if exists event_occurrence_years`,
]

const DOWN = [`create table if not exists event_occurrence_years (year integer primary key)`]

/** Drops the occurrences lists stored past the horizon and their years' record. */
export const farOccurrences: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of UP) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    for (const statement of DOWN) await sql.raw(statement).execute(db)
  },
}
