import type { Kysely } from 'kysely'
import type { DB } from '../db/generated.js'
import type { CallContext } from './context.js'

// What the script API's bulk imports share (`calendar.events.import()`, `venues.import()`,
// `organizers.import()`): their batch options and progress reports.

/** What an import did so far. */
export interface ImportProgress {
  /** Items read. */
  done: number
  created: number
  updated: number
  /** Found again and left as they were (`existing: 'skip'`, or the function said so). */
  unchanged: number
  /** Found again in the trash: left there, never recreated. */
  skipped: number
  failed: number
}

/** What to do with an item an import finds already stored (not trashed). */
export type ExistingPolicy = 'update' | 'skip' | ((current: Record<string, unknown>, item: Record<string, unknown>) => 'update' | 'skip')

/** Options of a bulk import besides the call's own. */
export interface ImportBatchOptions {
  /** Items per transaction. Default 500. */
  batchSize?: number
  /** An item found already stored: updated (default), skipped, or as the function decides given the stored item as an answer shows it. */
  existing?: ExistingPolicy
  /** Called after each batch. */
  onProgress?: (progress: ImportProgress) => void
}

/** What an import needs of the calendar. */
export interface ImportDeps {
  db: Kysely<DB>
  /** A fresh call context on `db` (its own clock) for each batch. */
  context(): CallContext
}

/** The batch size an import uses: `batchSize`, 500 when not given, within 1-5,000. */
export function importBatchSize(options: ImportBatchOptions): number {
  return Math.max(1, Math.min(options.batchSize ?? 500, 5000))
}

/** The counts of a progress report. */
export function progressOf(p: ImportProgress): ImportProgress {
  const { done, created, updated, unchanged, skipped, failed } = p
  return { done, created, updated, unchanged, skipped, failed }
}

/** Adds `part`'s counts to `sum`. */
export function addProgress(sum: ImportProgress, part: ImportProgress): void {
  for (const key of ['done', 'created', 'updated', 'unchanged', 'skipped', 'failed'] as const) sum[key] += part[key]
}
