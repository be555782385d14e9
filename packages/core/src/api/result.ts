// Apart from operation.ts so that idempotency.ts (which keeps results) and the call context it
// sits in need not import the operation machinery.

/** What a handler returns: the body, and a status/headers when they are not 200/none. */
export interface OperationResult<R = unknown> {
  status?: number
  headers?: Record<string, string>
  body: R
  /** A body that is not JSON (an iCalendar feed): text sent chunk by chunk; `body` is then unused. */
  stream?: TextStream
  /**
   * A write that read its item back: what the item's by-id GET by the same caller answers now
   * (`null`: an error), so the new `ETag` costs no second read (http/preconditions.ts).
   */
  read?: OperationResult | null
}

/** Text produced piece by piece, so that a large document never sits in memory whole. */
export type TextStream = AsyncIterable<string> | Iterable<string>
