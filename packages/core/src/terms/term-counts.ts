import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/generated.js'

// Term counts are a folded base plus appended deltas (migration 0020, docs/term-counts.md). Reads
// add the deltas up (`termCountSql`); this module folds them in now and then, so that a term's
// deltas stay few: after every FOLD_EVERY-th write of a process (counted per database handle), and
// with the hourly prune. A fold never waits on writers, nor they on it.

/** Writes of a process between two folds. */
const FOLD_EVERY = 16

const writes = new WeakMap<object, number>()

/** Folds the appended deltas into the terms' stored counts (skipping terms another transaction holds). */
export async function foldTermCounts(db: Kysely<DB>): Promise<void> {
  await sql`select cal_fold_term_counts()`.execute(db)
}

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
