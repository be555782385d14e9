import type { Kysely, Transaction } from 'kysely'
import type { DB } from '../db/generated.js'
import { CalendarError, invalidParams } from '../errors.js'
import { MAX_RECURRENCE_LINES } from './recurrence.js'

// Exceptions to a series (issue 19 item 3, docs/recurrence.md). Keys and finding an occurrence
// in the rule are in occurrences.ts (occurrenceKey, occurrenceAt).

/** Longest EXDATE line grown by deletes before a new one is started (the calendar takes 2,000 characters). */
const MAX_EXDATE_LINE = 1900

/**
 * The changed occurrence (exception row, migration 0015) that replaces occurrence `key` of series
 * `seriesId`, if one was written: its id and modified time.
 */
export async function findException(
  db: Kysely<DB> | Transaction<DB>,
  seriesId: number,
  key: string,
): Promise<{ id: number; modified_utc: string } | undefined> {
  return db.selectFrom('events').select(['id', 'modified_utc']).where('exception_of', '=', seriesId).where('exception_key', '=', key).executeTakeFirst()
}

/** The answer for a key that names no occurrence of the series (documented 404). */
export function occurrenceNotFound(seriesId: number, key: string): CalendarError {
  return new CalendarError('EVENT_OCCURRENCE_NOT_FOUND', `Event ${seriesId} has no occurrence ${key.slice(0, 40)}.`)
}

/**
 * `lines` with the occurrence `key` excluded: the key's value added to the series' EXDATE line
 * of the same form (UTC date-times, or dates in an all-day series), or a new such line.
 */
export function withExdate(lines: readonly string[], key: string, allDay: boolean): string[] {
  const prefix = allDay ? 'EXDATE;VALUE=DATE:' : 'EXDATE:'
  const out = [...lines]
  const i = out.findIndex((l) => l.startsWith(prefix) && l.length + key.length < MAX_EXDATE_LINE)
  if (i >= 0) out[i] = `${out[i]},${key}`
  else out.push(`${prefix}${key}`)
  // Past the line limit parseRecurrence answers 400 on `recurrence`; say why first.
  if (out.length > MAX_RECURRENCE_LINES) throw invalidParams({ recurrence: `The series has no room for another EXDATE line (at most ${MAX_RECURRENCE_LINES} lines).` })
  return out
}
