import { parentPort } from 'node:worker_threads'
import { feedText, type FeedTextTask } from './feed-text.js'

// The worker thread of feed builds (`feed-workers.ts`): it answers each task, a page of rows or
// the feed's head, with its text. Its own entry of the build (dist/feed-worker.js).

/** A task as the pool sends it: an id to answer under. */
export interface FeedWorkerRequest {
  id: number
  task: FeedTextTask
}

/** The answer to one task: its text, or why it failed. */
export type FeedWorkerReply = { id: number; text: string } | { id: number; error: string }

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
