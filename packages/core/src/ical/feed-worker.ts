import { setPriority } from 'node:os'
import { parentPort } from 'node:worker_threads'
import type { FeedTextMessage } from './feed-messages.js'
import { feedText } from './feed-text.js'

// The worker thread of feed builds (`feed-workers.ts`): it answers each task, a page of rows or
// the feed's head, with its text. Its own entry of the build (dist/feed-worker.js).

/** A piece of a feed's text as the pool sends it (`feed-messages.ts`): an id to answer under. */
export interface FeedWorkerRequest {
  id: number
  task: FeedTextMessage
}

/** The answer to one task: its text, or why it failed. */
export type FeedWorkerReply = { id: number; text: string } | { id: number; error: string }

/**
 * The worker's nice value: a feed build is background work. On a machine whose cores are busy
 * (the bench's two cores shared with PostgreSQL and other processes) a worker at full priority
 * took its share from the requests' main thread and the database (the list beside four feeds fell
 * from 0.50 to 0.40 of its figure alone); niced, it builds with what they leave.
 */
export const FEED_WORKER_NICE = 10

// Linux keeps nice values per thread, and setpriority(0) names the calling one; elsewhere it would
// be the whole process, the host's too: left as it is.
if (process.platform === 'linux') {
  try {
    setPriority(FEED_WORKER_NICE)
  } catch {
    // Not allowed (a container's policy): the worker runs at the process's priority.
  }
}

parentPort?.on('message', (request: FeedWorkerRequest) => {
  let reply: FeedWorkerReply
  try {
    reply = { id: request.id, text: feedText(request.task) }
  } catch (err) {
    reply = { id: request.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }
  }
  parentPort!.postMessage(reply)
})
// Its modules are loaded: the pool counts failures from here on as failures of a task, not of the worker.
parentPort?.postMessage('ready')
