import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { Worker } from 'node:worker_threads'
import { feedTextMessages, type FeedTextMessage } from './feed-messages.js'
import type { FeedTextTask } from './feed-text.js'
import type { FeedWorkerReply, FeedWorkerRequest } from './feed-worker.js'

// Worker threads that build feeds' text (issue 28): an 18,563-event feed is about 15 s of CPU,
// which on the event loop, even in 10 ms slices, took a third of it from every other request (the
// host's too). The database reads stay on the main thread; a worker turns each page of rows into
// VEVENT text (and the VTIMEZONEs). The rows cross in pieces, one per turn of the loop
// (`feed-messages.ts`). Started at the first feed, stopped with the calendar.

/** Raised when no worker could be started (no worker file in this build, no worker_threads): the build goes on in the event loop. */
export class FeedWorkersUnavailable extends Error {}

/** A small pool of feed-text workers (one per process, shared by its calendars). */
export interface FeedWorkers {
  /** The text of `task`, built in one of the workers (the least busy). */
  text(task: FeedTextTask): Promise<string>
  /** The calendar's `close()`: the last one open stops the workers (later tasks would start new ones). */
  close(): Promise<void>
}

interface Pending {
  resolve: (text: string) => void
  reject: (err: Error) => void
}

interface Thread {
  worker: Worker
  pending: Map<number, Pending>
}

/**
 * How a worker is started. From the build (dist/index.js or index.cjs beside dist/feed-worker.js,
 * always ESM), the file itself; from the sources (Vitest, tsx: this module is a .ts file), the
 * .ts worker through tsx's loader, which only the workspace has (a development dependency).
 */
function spawn(): Worker {
  const here = import.meta.url
  if (!here.endsWith('.ts')) return new Worker(new URL(`./feed-worker.${'js'}`, here))
  // tsx's ESM entry (`tsx/esm/api` as `import` resolves it; require's resolution would give its CJS one).
  const manifest = createRequire(here).resolve('tsx/package.json')
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }
  const tsx = pathToFileURL(join(dirname(manifest), exports['./esm/api']!.import.default)).href
  const entry = new URL(`./feed-worker.${'ts'}`, here).href
  return new Worker(`import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(entry)}) })`, { eval: true })
}

/** The process's pool: up to `size` workers, started when tasks come. */
function createPool(size: () => number): FeedWorkers {
  const threads: Thread[] = []
  let nextId = 1
  let broken = false
  /** No worker can be started: said once, as a process warning (a host's bundle that left the worker file out), and builds go on in the event loop. */
  const breaks = (why: string) => {
    if (!broken) process.emitWarning(`Feeds are built on the event loop: no worker thread could be started (${why}).`, { code: 'CAL_FEED_WORKER' })
    broken = true
  }

  const start = (): Thread => {
    const worker = spawn()
    const thread: Thread = { worker, pending: new Map() }
    // Idle workers do not keep the process alive; one with work does (a script awaiting a feed).
    worker.unref()
    const fail = (err: Error) => {
      const at = threads.indexOf(thread)
      if (at >= 0) threads.splice(at, 1)
      for (const p of thread.pending.values()) p.reject(err)
      thread.pending.clear()
    }
    // Ready once its modules loaded (it says so): an error before that is a worker that cannot run.
    let online = false
    worker.on('message', (reply: FeedWorkerReply | 'ready') => {
      if (reply === 'ready') {
        online = true
        return
      }
      const p = thread.pending.get(reply.id)
      if (!p) return
      thread.pending.delete(reply.id)
      if (thread.pending.size === 0) worker.unref()
      if ('text' in reply) p.resolve(reply.text)
      else p.reject(new Error(`Feed worker: ${reply.error}`))
    })
    worker.on('error', (err) => {
      // A worker that never came up will not come up next time either (its file is missing).
      if (!online) breaks(err.message)
      fail(online ? err : new FeedWorkersUnavailable(err.message))
    })
    worker.on('exit', (code) => fail(online ? new Error(`Feed worker stopped (exit code ${code}).`) : new FeedWorkersUnavailable(`Feed worker exited (${code}) before it started.`)))
    threads.push(thread)
    return thread
  }

  /** Sends one message to the least busy worker (starting one if the pool is not full), answering its text. */
  const post = (message: FeedTextMessage): Promise<string> => {
    if (broken) return Promise.reject(new FeedWorkersUnavailable('No feed worker could be started.'))
    let thread: Thread
    try {
      thread = threads.length < size() ? start() : threads.reduce((a, b) => (b.pending.size < a.pending.size ? b : a))
    } catch (err) {
      breaks(err instanceof Error ? err.message : String(err))
      return Promise.reject(new FeedWorkersUnavailable(err instanceof Error ? err.message : String(err)))
    }
    const id = nextId++
    return new Promise<string>((resolve, reject) => {
      thread.pending.set(id, { resolve, reject })
      thread.worker.ref()
      thread.worker.postMessage({ id, task: message } satisfies FeedWorkerRequest)
    })
  }

  return {
    async text(task) {
      const texts: Promise<string>[] = []
      for (const message of feedTextMessages(task)) {
        // One piece per turn: making and posting one holds the loop for a few milliseconds at most.
        if (texts.length > 0) await nextTurn()
        const text = post(message)
        // A failure is seen when the pieces are joined, not left unhandled while the next is made.
        text.catch(() => {})
        texts.push(text)
      }
      return (await Promise.all(texts)).join('')
    },
    async close() {
      const stopping = threads.splice(0).map((t) => t.worker.terminate())
      await Promise.all(stopping)
    },
  }
}

// One pool per process, whatever number of calendars run in it (`createCalendars` opens many):
// workers hold no calendar's state. Its size is the largest any open calendar asked for; the last
// calendar's `close()` stops it.
const sizes = new Map<symbol, number>()
const pool = createPool(() => Math.max(0, ...sizes.values()))

/** A calendar's use of the process's pool of feed workers, with `size` workers at most (at least as many if another calendar asked for more). */
export function createFeedWorkers(size: number): FeedWorkers {
  const handle = Symbol('feed workers')
  sizes.set(handle, size)
  return {
    text: (task) => pool.text(task),
    async close() {
      if (!sizes.delete(handle)) return
      if (sizes.size === 0) await pool.close()
    },
  }
}
