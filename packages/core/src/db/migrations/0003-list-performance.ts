import { sql, type Kysely, type Migration } from 'kysely'

// Indexes the benchmark (bench/, BENCHMARKS.md) called for at a million events.
const UP = [
  // The public default list (publish, not hidden, start_local window, end_local bound, ordered by
  // start_local, date_utc, id) as an index-only scan: end_local rides along, so neither the page
  // nor the count visits the table. Replaces 0001's `events_listing`, which lacked end_local.
  `create index events_listing_cover on events (start_local, date_utc, id) include (end_local)
     where status = 'publish' and not hide_from_listings`,
  `drop index events_listing`,
  // Slug uniqueness checks ask for `slug = $1 or slug like '$1-%'` per language; a pattern-ops
  // index turns that from a table scan (O(events) per create) into two index probes.
  `create index events_slug_pattern on events (language, slug text_pattern_ops)`,
]

const DOWN = [
  `create index events_listing on events (start_local, date_utc, id) where status = 'publish' and not hide_from_listings`,
  `drop index if exists events_listing_cover`,
  `drop index if exists events_slug_pattern`,
]

/** List and write performance indexes (no schema change visible to queries). */
export const listPerformance: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of UP) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    for (const statement of DOWN) await sql.raw(statement).execute(db)
  },
}
