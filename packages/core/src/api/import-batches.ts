import type { Kysely } from 'kysely'
import { isDatabaseUnavailable } from '../db/connection-errors.js'
import type { DB } from '../db/generated.js'
import { CalendarError } from '../errors.js'
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

/** Whether the policy updates an item found stored; `current` gives the stored item as an answer shows it (asked only of a function). */
export function updatesExisting(policy: ExistingPolicy | undefined, current: () => Record<string, unknown>, item: Record<string, unknown>): boolean {
  if (policy === undefined || policy === 'update') return true
  if (policy === 'skip') return false
  return policy(current(), item) === 'update'
}

/** The database is away (as the driver says it, or as a call's error): no item can be written. */
const databaseAway = (err: unknown) => isDatabaseUnavailable(err) || (err instanceof CalendarError && err.code === 'DATABASE_UNAVAILABLE')

/**
 * Writes a checked batch with `whole` (one transaction); when that fails as a whole (rolled back),
 * each item again alone with `one`, the one at fault handed to `failed`. The database being away
 * is thrown, as from any call: no item could be written.
 */
export async function writeWholeOrEach<I>(items: readonly I[], whole: () => Promise<void>, one: (item: I) => Promise<void>, failed: (item: I, err: unknown) => void): Promise<void> {
  if (items.length === 0) return
  try {
    await whole()
  } catch (err) {
    if (databaseAway(err)) throw err
    for (const item of items) {
      try {
        await one(item)
      } catch (err) {
        if (databaseAway(err)) throw err
        failed(item, err)
      }
    }
  }
}
