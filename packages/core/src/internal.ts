// `@cal-events/core/internal`: helpers for this repository's own tools and adapters, outside the
// public API (no semver promise; a minor release may change them). Apps import `@cal-events/core`.

// For HTTP adapters (the Express and fetch ones): what each must do the same way.
export { bodyReadError, calendarPrefixes, errorAnswer, readRequestBody, responseText } from './http/adapter-kit.js'
// For tools that drive or measure a calendar's database directly (the bench's SQL ceiling and seed).
export { calendarTypes } from './db/pg-types.js'
export { followKnownTotal } from './events/known-total.js'
export { slugify } from './shared/slug.js'
