// The recurrence wing's face: what the rest of the calendar uses of series, their rules, stored and
// computed occurrences, exceptions and splits (docs/recurrence.md). Code outside recurrence/ imports
// only this file (a dependency-cruiser rule holds it); what is not here stays the wing's own.

export type { Occurrence, SeriesStart } from './recurrence.js'
export { expandBounded, expandRecurrence, parseRecurrence } from './recurrence.js'
export type { RuleWork } from './rule-work.js'
export { expandSliced, ruleWork, verifyRecurrence } from './rule-work.js'
export type { SeriesRow } from './occurrences.js'
export { keepExtending, materialiseNewSeries, materialiseSeries, occurrenceAt, occurrenceKey, SERIES_COLUMNS } from './occurrences.js'
export { farOccurrences } from './far-occurrences.js'
export { findException, occurrenceNotFound, withExdate } from './exceptions.js'
export { splitRecurrence } from './split.js'
