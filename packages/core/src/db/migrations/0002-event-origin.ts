import { sql, type Kysely, type Migration } from 'kysely'

// Imported events remember where they came from (an iCalendar UID, a feed item id…), so an
// importer can find them again and a re-run updates instead of duplicating. One origin id names
// at most one event per language; most events have none.
const STATEMENTS = [
  `alter table events add column origin_uid text`,
  `create unique index events_origin_uid on events (language, origin_uid) where origin_uid is not null`,
]

/** `events.origin_uid`: the external id an event was imported from (CONTRACT 4.1 lineage). */
export const eventOrigin: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    await sql.raw('drop index if exists events_origin_uid').execute(db)
    await sql.raw('alter table events drop column if exists origin_uid').execute(db)
  },
}
