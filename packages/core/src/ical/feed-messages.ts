import type { IcalContext } from './ical-event.js'
import type { FeedTextTask } from './feed-text.js'

// What crosses to a feed worker (issue 28). A page of 500 rows posted as objects was one
// structured clone of about 1 MB on the event loop, 14-50 ms at once on the bench machine. The
// rows now come from the database as JSON text, one string a row (`ical-feed.ts`), which the
// worker parses: a string crosses as one copy. At most `MESSAGE_ROWS` of them go in one message,
// one message per turn of the loop.

/** Most rows of a page in one message to a worker. */
export const MESSAGE_ROWS = 100

/** A piece of a feed's text as it crosses to a worker: a task of at most `MESSAGE_ROWS` rows, its context plain data. */
export type FeedTextMessage = FeedTextTask

/**
 * The messages of `task`, made one at a time as they are taken: the head whole; the rows of
 * events by `MESSAGE_ROWS`. Their texts, joined in order, are the task's.
 */
export function* feedTextMessages(task: FeedTextTask): Generator<FeedTextMessage, void, undefined> {
  if (task.kind === 'head') {
    yield task
    return
  }
  // The call's moment read once (a getter on the main thread's context), plain data for every piece.
  const ctx: IcalContext = { principal: task.ctx.principal, urls: task.ctx.urls, now: task.ctx.now }
  for (let at = 0; at < task.rows.length; at += MESSAGE_ROWS) {
    yield { kind: 'events', calendar: task.calendar, rows: task.rows.slice(at, at + MESSAGE_ROWS), ctx }
  }
}
