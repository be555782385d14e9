import { sql, type Kysely, type Migration } from 'kysely'

// The horizon job (recurrence/occurrences.ts) reads every series: `recurrence is not null`. Without
// an index that is a scan of the whole events table (seconds at 1M events under load), once a day
// and at a process's first call. Series are few; the partial index holds only them.
const STATEMENTS = [`create index if not exists events_series on events (id) where recurrence is not null`]

/** `events_series`: the series among the events, for the occurrence horizon job. */
export const seriesIndex: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    await sql.raw('drop index if exists events_series').execute(db)
  },
}
