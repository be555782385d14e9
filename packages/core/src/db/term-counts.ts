import { sql, type Kysely } from 'kysely'
import type { DB } from './generated.js'

// Term counts are a folded base plus appended deltas (migration 0020, docs/term-counts.md). Reads
// add the deltas up (`termCountSql`); this module folds them in now and then, so that a term's
// deltas stay few: after every FOLD_EVERY-th write of a process (counted per database handle), and
// with the hourly prune. A fold never waits on writers, nor they on it.

/** Writes of a process between two folds. */
const FOLD_EVERY = 16

const writes = new WeakMap<object, number>()

/**
 * Folds the appended deltas into the terms' stored counts (skipping terms another transaction
 * holds), then vacuums the deltas' table when the fold deleted rows.
 */
export async function foldTermCounts(db: Kysely<DB>): Promise<void> {
  const { rows } = await sql<{ folded: number }>`select cal_fold_term_counts() as folded`.execute(db)
  // The table is a queue: every row is deleted soon after it is written. Without a VACUUM (and
  // autovacuum may be off, or behind) its dead rows stay, and each count read walks all of its
  // term's deleted deltas: 740 pages for a category list after 440 writes, growing with every
  // write. Vacuuming a table of a few live rows takes a millisecond. `truncate false`: giving the
  // empty pages at its end back needs an exclusive lock, which VACUUM tries to get for up to 5 s
  // while writers keep inserting (a bench history fell to 5 writes a second); the pages are reused
  // instead. `skip_locked`: a VACUUM already running (another process's) makes this one return.
  // A host's pool runs every statement in a transaction, where VACUUM cannot run: there the error
  // is ignored and the table is left to autovacuum.
  if ((rows[0]?.folded ?? 0) > 0 && !vacuuming.has(db)) {
    vacuuming.add(db)
    try {
      await sql`vacuum (truncate false, skip_locked) cal_term_count_deltas`.execute(db).catch(() => {})
    } finally {
      vacuuming.delete(db)
    }
  }
}

const vacuuming = new WeakSet<object>()

/**
 * Counts a committed write; every FOLD_EVERY-th folds. A failed fold (database away) is left to
 * the next: reads stay exact without it, only a little slower.
 */
export async function afterWrite(db: Kysely<DB>): Promise<void> {
  const n = (writes.get(db) ?? 0) + 1
  writes.set(db, n % FOLD_EVERY)
  if (n < FOLD_EVERY) return
  await foldTermCounts(db).catch(() => {})
}
