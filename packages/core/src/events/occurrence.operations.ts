import { args } from '../api/arg-kinds.js'
import { defineOperation } from '../api/operation.js'
import { writeTransaction } from '../api/write.js'
import { canEditItem, canEditType, require } from '../auth/permissions.js'
import { CalendarError } from '../errors.js'
import { occurrenceNotFound, withExdate } from '../recurrence/exceptions.js'
import { occurrenceAt } from '../recurrence/occurrences.js'
import { locatePost } from '../shared/locate.js'
import { findEventRow } from './event.repository.js'
import { serializeEvent } from './event.serializer.js'
import { applyEventWrite, planEventWrite } from './event-write.js'
import { notAnEvent } from './event.operations.js'

// Operations on one occurrence of a series (issue 19 item 3, docs/recurrence.md). Permissions and
// visibility are the series' (CONTRACT section 3): whoever may edit the series may change or
// delete its occurrences.

const idArg = args.int({ required: true, description: 'Unique identifier of the series (the event).' })
const keyArg = args.shortText(20, {
  required: true,
  description: 'Occurrence key: its original start in UTC (20270105T090000Z, the RECURRENCE-ID), or its date (20270105) in an all-day series.',
})

/**
 * `DELETE /events/{id}/occurrences/{key}`: excludes one occurrence (an EXDATE is added to the
 * series, which is not trashed); answers the series. A key that is no occurrence of the series
 * now (already deleted, or the event is no series) is `404 rest-event-occurrence-not-found`;
 * deleting the last occurrence left is `400` on `recurrence` (delete the series instead).
 */
export function eventOccurrenceDeleteOperation() {
  return defineOperation({
    args: { id: idArg, key: keyArg },
    async prepare(input, ctx) {
      return { ...(await locatePost(ctx, 'events', { id: input.id as number }, findEventRow)), key: input.key as string }
    },
    authorize({ row }, ctx) {
      require(ctx.principal, row ? canEditItem(ctx.principal, row) : canEditType(ctx.principal))
    },
    async run({ id, row, key }, ctx) {
      if (!row) return notAnEvent(ctx, id)
      if (row.status === 'trash') throw new CalendarError('EVENT_IN_TRASH', 'The event is already trashed')
      await writeTransaction(ctx, async (trx) => {
        // Read again under a row lock: two deletes of different occurrences must both keep their EXDATE.
        await trx.selectFrom('events').select('id').where('id', '=', row.id).forUpdate().execute()
        const series = (await findEventRow(trx, row.id))!
        if (!occurrenceAt(series, key)) throw occurrenceNotFound(series.id, key)
        const plan = await planEventWrite(trx, { recurrence: withExdate(series.recurrence!, key, series.all_day) }, series, ctx)
        await applyEventWrite(trx, plan, series, ctx)
      })
      return { body: serializeEvent((await findEventRow(ctx.db, row.id))!, ctx) }
    },
  })
}
