// The request headers the OpenAPI document declares on creates, reads and item writes.

type Json = Record<string, unknown>

/** The header a create accepts to make a retry safe (README "Retrying creates"). */
export const IDEMPOTENCY_KEY_PARAM: Json = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Any 1 to 255 characters, unique per intended create. A retry with the same key and body answers the first ' +
    'result (status, body, Location) and writes nothing; the same key with another body is a 422 ' +
    '`rest_idempotency_key_reused`; a repeat while the first still runs waits for it and gets its answer (409 ' +
    '`rest_idempotency_key_in_progress` if that answer is not stored within 15 s of its commit). A create that failed ' +
    'leaves the key free. Keys are per caller and kept 24 hours.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
}

/** `If-None-Match` on a JSON read (README "Conditional requests and caching"). */
export const IF_NONE_MATCH_READ_PARAM: Json = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: '`*` or entity tags from earlier answers (weak comparison): when one is current, the answer is 304 with no body.',
  schema: { type: 'string' },
}

/** The preconditions of an item update or delete (README "Lost-update protection"). */
export const WRITE_PRECONDITION_PARAMS: Json[] = [
  {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'Write only if the item is unchanged: `*` (the item exists) or entity tags this caller got from a GET (or a write) of it; ' +
      'strong comparison, so weak tags (`W/"…"`) never match. Otherwise 412 `precondition-failed` and nothing is written. ' +
      'A malformed value is 400 `rest_invalid_if_match`.',
    schema: { type: 'string' },
  },
  {
    name: 'If-Unmodified-Since',
    in: 'header',
    required: false,
    description:
      'An HTTP-date: 412 when the event, venue or organizer was modified after it (seconds). Ignored with `If-Match`, ' +
      'when the date is invalid, and on categories and tags (they keep no modified time).',
    schema: { type: 'string' },
  },
  {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: '`*` or the current tag: 412, nothing written. A malformed value is ignored.',
    schema: { type: 'string' },
  },
]
