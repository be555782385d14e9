import type { Resource } from '../api/policy.js'

// What event operations read and write, as they declare it (api/policy.ts `OperationPolicy`).

/**
 * What an event answer reads (`OperationPolicy.reads`): the event or series and its occurrences,
 * and what it embeds: venue, organizers, terms and images.
 */
export const EVENT_READS = ['events', 'event_occurrences', 'event_terms', 'event_organizers', 'terms', 'venues', 'organizers', 'images'] as const satisfies readonly Resource[]

/**
 * What an event write may change: the event, its occurrences and links, and what it creates
 * inline (venues, organizers, terms, images). Authors are checked against `users`, never written.
 */
export const EVENT_WRITES = ['events', 'event_occurrences', 'event_terms', 'event_organizers', 'terms', 'venues', 'organizers', 'images'] as const satisfies readonly Resource[]

/** An event write's own reads: what it answers with, and the authors it checks. */
export const EVENT_WRITE_READS = [...EVENT_READS, 'users'] as const satisfies readonly Resource[]
