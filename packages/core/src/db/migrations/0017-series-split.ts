import { sql, type Kysely, type Migration } from 'kysely'

// "This and all following" (issue 19 item 3, docs/recurrence.md): a split ends a series before
// the chosen occurrence and starts a new series there. The new series names the one it was split
// from, for its `global_id_lineage`; deleting the old series for good leaves the new one standing.
const UP = [`alter table events add column split_from integer references events(id) on delete set null`]

const DOWN = [`alter table events drop column if exists split_from`]

/** `events.split_from`: the series a series was split from ("this and following"). */
export const seriesSplit: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of UP) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    for (const statement of DOWN) await sql.raw(statement).execute(db)
  },
}
