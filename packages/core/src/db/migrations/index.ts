import type { Migration } from 'kysely'
import { initialSchema } from './0001-initial-schema.js'
import { eventOrigin } from './0002-event-origin.js'
import { listPerformance } from './0003-list-performance.js'
import { pageRelations } from './0004-page-relations.js'
import { tokenExpiry } from './0005-token-expiry.js'
import { idempotencyKeys } from './0006-idempotency-keys.js'
import { changeLog } from './0007-change-log.js'
import { eventRevision } from './0010-event-revision.js'
import { rowChanges } from './0011-row-changes.js'
import { eventOccurrences } from './0012-event-occurrences.js'
import { feedKeys } from './0013-feed-keys.js'
import { eventExceptions } from './0015-event-exceptions.js'
import { seriesIndex } from './0016-series-index.js'
import { seriesSplit } from './0017-series-split.js'
import { changeCheck } from './0018-change-check.js'
import { farOccurrences } from './0019-far-occurrences.js'
import { termCountDeltas } from './0020-term-count-deltas.js'
import { credentialsVersion } from './0021-credentials-version.js'
import { termCountStatements } from './0022-term-count-statements.js'
import { changeCheckFunction } from './0023-change-check-function.js'

// Listed in code, not read from a folder, so the migrations survive bundling. `migrate.ts` runs
// the pending ones in name order; keep the entries sorted by name.
/** Every migration of the calendar by name; the same set for PostgreSQL and PGlite. */
export const MIGRATIONS: Record<string, Migration> = {
  '0001-initial-schema': initialSchema,
  '0002-event-origin': eventOrigin,
  '0003-list-performance': listPerformance,
  '0004-page-relations': pageRelations,
  '0005-token-expiry': tokenExpiry,
  '0006-idempotency-keys': idempotencyKeys,
  '0007-change-log': changeLog,
  '0010-event-revision': eventRevision,
  '0011-row-changes': rowChanges,
  '0012-event-occurrences': eventOccurrences,
  '0013-feed-keys': feedKeys,
  '0015-event-exceptions': eventExceptions,
  '0016-series-index': seriesIndex,
  '0017-series-split': seriesSplit,
  '0018-change-check': changeCheck,
  '0019-far-occurrences': farOccurrences,
  '0020-term-count-deltas': termCountDeltas,
  '0021-credentials-version': credentialsVersion,
  '0022-term-count-statements': termCountStatements,
  '0023-change-check-function': changeCheckFunction,
}
