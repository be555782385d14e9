/**
 * Caps on the lists a write can carry and on what a list response embeds (issue 15 item 7): one
 * request must not create thousands of terms (each takes an advisory lock) nor make every list
 * page that shows its event megabytes long. Documented in the README and as `maxItems` in `/doc`.
 */
export const LIMITS = Object.freeze({
  /** `categories` and `tags` of one event write, each. */
  termsPerEvent: 100,
  /** `organizer` entries (ids, `{id}` objects and inline objects) of one event write. */
  organizersPerEvent: 20,
  /** `cost` entries of one event write. */
  costValues: 50,
  /** Characters of one term name or slug in an event's `categories`/`tags`. */
  termItemLength: 200,
})
