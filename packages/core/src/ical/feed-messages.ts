import type { EventRow } from '../events/event.serializer.js'
import type { IcalContext } from './ical-event.js'
import type { FeedTextTask } from './feed-text.js'

// What crosses to a feed worker (issue 28). A page of 500 rows posted as objects was one
// structured clone of about 1 MB on the event loop, 14-50 ms at once on the bench machine; the
// rows now go as JSON text (JSON.stringify is a fraction of the structured clone, and a string
// crosses as one copy), at most `MESSAGE_ROWS` of them per message, one message per turn of the
// loop. The worker parses them back: rows are plain data (timestamps stay text, see db/pg-types.ts).

/** Most rows of a page in one message to a worker. */
export const MESSAGE_ROWS = 100

/** A piece of a feed's text as it crosses to a worker: the head as it is, the rows of events as JSON text. */
export type FeedTextMessage =
  | Extract<FeedTextTask, { kind: 'head' }>
  | { kind: 'events-json'; calendar: Extract<FeedTextTask, { kind: 'events' }>['calendar']; rowsJson: string; ctx: IcalContext }

/**
 * The messages of `task`, made one at a time as they are taken (each piece's JSON is made when it
 * is sent): the head whole; the rows of events by `MESSAGE_ROWS`. Their texts, joined in order,
 * are the task's.
 */
export function* feedTextMessages(task: FeedTextTask): Generator<FeedTextMessage, void, undefined> {
  if (task.kind === 'head') {
    yield task
    return
  }
  // The call's moment read once (a getter on the main thread's context), plain data for every piece.
  const ctx: IcalContext = { principal: task.ctx.principal, urls: task.ctx.urls, now: task.ctx.now }
  for (let at = 0; at < task.rows.length; at += MESSAGE_ROWS) {
    yield { kind: 'events-json', calendar: task.calendar, rowsJson: JSON.stringify(task.rows.slice(at, at + MESSAGE_ROWS)), ctx }
  }
}

/** The task a message stands for (in the worker). */
export function feedTextTaskOf(message: FeedTextMessage): FeedTextTask {
  if (message.kind === 'head') return message
  return { kind: 'events', calendar: message.calendar, rows: JSON.parse(message.rowsJson) as EventRow[], ctx: message.ctx }
}
