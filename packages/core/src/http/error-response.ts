import { CalendarError, type CalendarErrorCode } from '../errors.js'
import { isDatabaseUnavailable } from '../db/connection-errors.js'
import type { CalendarResponse } from './request.js'

/** The single table from error code to wire code and HTTP status (each wire code has a line in docs/errors.md). */
export const ERRORS = {
  NO_ROUTE: { status: 404, code: 'rest_no_route' },
  INVALID_JSON: { status: 400, code: 'rest_invalid_json' },
  PAYLOAD_TOO_LARGE: { status: 413, code: 'rest_payload_too_large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, code: 'rest_unsupported_media_type' },
  MISSING_PARAM: { status: 400, code: 'rest_missing_callback_param' },
  INVALID_PARAM: { status: 400, code: 'rest_invalid_param' },
  UNAUTHENTICATED: { status: 401, code: 'rest_forbidden' },
  FORBIDDEN: { status: 403, code: 'rest_forbidden' },
  INVALID_TOKEN: { status: 401, code: 'rest_invalid_token' },
  INVALID_NAMESPACE: { status: 404, code: 'rest_invalid_namespace' },
  EVENT_ARCHIVE_PAGE_NOT_FOUND: { status: 404, code: 'event-archive-page-not-found' },
  VENUE_ARCHIVE_PAGE_NOT_FOUND: { status: 404, code: 'venue-archive-page-not-found' },
  ORGANIZER_ARCHIVE_PAGE_NOT_FOUND: { status: 404, code: 'organizer-archive-page-not-found' },
  EVENT_NOT_FOUND: { status: 404, code: 'rest-event-not-found' },
  EVENT_OCCURRENCE_NOT_FOUND: { status: 404, code: 'rest-event-occurrence-not-found' },
  INVALID_EVENT_ID: { status: 400, code: 'rest-invalid-event-id' },
  EVENT_NO_LONGER_AVAILABLE: { status: 403, code: 'event-no-longer-available' },
  EVENT_NOT_ACCESSIBLE: { status: 403, code: 'event-not-accessible' },
  EVENT_PASSWORD_PROTECTED: { status: 403, code: 'event-password-protected' },
  EVENT_IN_TRASH: { status: 410, code: 'event-is-in-trash' },
  VENUE_NOT_ACCESSIBLE: { status: 403, code: 'venue-not-accessible' },
  ORGANIZER_NOT_ACCESSIBLE: { status: 403, code: 'organizer-not-accessible' },
  VENUE_IN_TRASH: { status: 410, code: 'venue-is-in-trash' },
  ORGANIZER_IN_TRASH: { status: 410, code: 'organizer-is-in-trash' },
  COULD_NOT_CREATE_VENUE: { status: 400, code: 'could-not-create-venue' },
  COULD_NOT_CREATE_ORGANIZER: { status: 400, code: 'could-not-create-organizer' },
  COULD_NOT_UPDATE_VENUE: { status: 400, code: 'could-not-update-venue' },
  COULD_NOT_UPDATE_ORGANIZER: { status: 400, code: 'could-not-update-organizer' },
  INVALID_LINKED_POST_ID: { status: 400, code: 'invalid-linked-post-id' },
  BAD_SEARCH_STRING: { status: 400, code: 'archive-bad-search-string' },
  TERM_EXISTS: { status: 400, code: 'term_exists' },
  DUPLICATE_TERM_SLUG: { status: 400, code: 'duplicate_term_slug' },
  TAXONOMY_NOT_HIERARCHICAL: { status: 400, code: 'rest_taxonomy_not_hierarchical' },
  CALENDAR_NOT_FOUND: { status: 404, code: 'rest_calendar_not_found' },
  INVALID_CALENDAR_KEY: { status: 400, code: 'rest_invalid_calendar_key' },
  TOO_MANY_REQUESTS: { status: 429, code: 'rest_too_many_requests' },
  INVALID_HOST: { status: 400, code: 'rest_invalid_host' },
  IDEMPOTENCY_KEY_INVALID: { status: 400, code: 'rest_idempotency_key_invalid' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, code: 'rest_idempotency_key_reused' },
  IDEMPOTENCY_KEY_IN_PROGRESS: { status: 409, code: 'rest_idempotency_key_in_progress' },
  SYNC_TOKEN_INVALID: { status: 410, code: 'rest_sync_token_invalid' },
  SYNC_TOKEN_EXPIRED: { status: 410, code: 'rest_sync_token_expired' },
  SYNC_TOKEN_MISMATCH: { status: 400, code: 'rest_sync_token_mismatch' },
  INVALID_IF_MATCH: { status: 400, code: 'rest_invalid_if_match' },
  PRECONDITION_FAILED: { status: 412, code: 'precondition-failed' },
  DATABASE_UNAVAILABLE: { status: 503, code: 'database-unavailable' },
  FEED_BUSY: { status: 503, code: 'rest_feed_busy' },
  INTERNAL: { status: 500, code: 'rest_internal_error' },
} as const satisfies Record<CalendarErrorCode, { status: number; code: string }>

/** HTTP status of an error code. */
export function statusOf(code: CalendarErrorCode): number {
  return ERRORS[code].status
}

/** Wire code (`rest_invalid_param`, `event-is-in-trash`, ...) of an error code. */
export function wireCodeOf(code: CalendarErrorCode): string {
  return ERRORS[code].code
}

const CONTENT_TYPE = 'application/json; charset=UTF-8'

/** Converts anything thrown into a response in the contract's error shape; never echoes internals. */
export function toErrorResponse(err: unknown, onError?: (err: unknown) => void): CalendarResponse {
  let error: CalendarError
  if (err instanceof CalendarError) {
    error = err
  } else if (isDatabaseUnavailable(err)) {
    error = new CalendarError('DATABASE_UNAVAILABLE', 'The database is unavailable; try again shortly.')
    onError?.(err)
  } else {
    error = new CalendarError('INTERNAL', 'Internal server error.')
    onError?.(err)
  }
  const headers: Record<string, string> = { 'Content-Type': CONTENT_TYPE }
  // An error that says when to try again (429, a busy feed's 503) says it in the header too (RFC 9110 10.2.3).
  const retryAfter = error.data?.retry_after
  if (typeof retryAfter === 'number') headers['Retry-After'] = String(retryAfter)
  return { status: statusOf(error.code), headers, body: errorBody(error) }
}

/** The contract's error body of an error (CONTRACT 2.1). */
export function errorBody(error: CalendarError): { code: string; message: string; data: Record<string, unknown> } {
  const status = statusOf(error.code)
  return { code: wireCodeOf(error.code), message: error.message, data: { status, ...error.data } }
}
