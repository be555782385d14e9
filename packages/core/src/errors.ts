/**
 * The one error type of the service. `code` is an internal, stable name; the wire code and
 * the HTTP status come from the single table in `http/error-response.ts`.
 */
export type CalendarErrorCode =
  | 'NO_ROUTE'
  | 'INVALID_JSON'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'MISSING_PARAM'
  | 'INVALID_PARAM'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'INVALID_TOKEN'
  | 'INVALID_NAMESPACE'
  | 'EVENT_ARCHIVE_PAGE_NOT_FOUND'
  | 'VENUE_ARCHIVE_PAGE_NOT_FOUND'
  | 'ORGANIZER_ARCHIVE_PAGE_NOT_FOUND'
  | 'EVENT_NOT_FOUND'
  | 'EVENT_OCCURRENCE_NOT_FOUND'
  | 'INVALID_EVENT_ID'
  | 'EVENT_NO_LONGER_AVAILABLE'
  | 'EVENT_NOT_ACCESSIBLE'
  | 'EVENT_PASSWORD_PROTECTED'
  | 'EVENT_IN_TRASH'
  | 'VENUE_NOT_ACCESSIBLE'
  | 'ORGANIZER_NOT_ACCESSIBLE'
  | 'VENUE_IN_TRASH'
  | 'ORGANIZER_IN_TRASH'
  | 'COULD_NOT_CREATE_VENUE'
  | 'COULD_NOT_CREATE_ORGANIZER'
  | 'COULD_NOT_UPDATE_VENUE'
  | 'COULD_NOT_UPDATE_ORGANIZER'
  | 'INVALID_LINKED_POST_ID'
  | 'BAD_SEARCH_STRING'
  | 'TERM_EXISTS'
  | 'DUPLICATE_TERM_SLUG'
  | 'TAXONOMY_NOT_HIERARCHICAL'
  | 'TOO_MANY_REQUESTS'
  | 'INVALID_HOST'
  | 'IDEMPOTENCY_KEY_INVALID'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENCY_KEY_IN_PROGRESS'
  | 'SYNC_TOKEN_INVALID'
  | 'SYNC_TOKEN_EXPIRED'
  | 'SYNC_TOKEN_MISMATCH'
  | 'INVALID_IF_MATCH'
  | 'PRECONDITION_FAILED'
  | 'DATABASE_UNAVAILABLE'
  | 'FEED_BUSY'
  | 'CALENDAR_NOT_FOUND'
  | 'INVALID_CALENDAR_KEY'
  | 'INTERNAL'

/** Extra members of the error body's `data` object, beside `status`. */
export type CalendarErrorData = Record<string, unknown>

/** An expected failure: it becomes a 4xx/5xx response in the contract's error shape. */
export class CalendarError extends Error {
  constructor(
    readonly code: CalendarErrorCode,
    message: string,
    readonly data?: CalendarErrorData,
  ) {
    super(message)
    this.name = 'CalendarError'
  }
}

/** A `rest_invalid_param` error naming every failing parameter. */
export function invalidParams(
  params: Record<string, string>,
  details: Record<string, unknown> = {},
): CalendarError {
  const names = Object.keys(params)
  return new CalendarError('INVALID_PARAM', `Invalid parameter(s): ${names.join(', ')}`, {
    params,
    // The reference serialises an empty map as [] (CONTRACT 1.3).
    details: Object.keys(details).length > 0 ? details : [],
  })
}

/** Shorthand for one invalid parameter with the reference's generic reason. */
export function invalidParam(name: string, reason = 'Invalid parameter.'): CalendarError {
  return invalidParams({ [name]: reason })
}
