import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scratchDatabase } from '../../../test-support/scratch-db.js'
import type { EventList, EventResource } from '@cal-events/core'

const ADMIN_TOKEN = 'two-processes-admin-token-0123456789'
const database = scratchDatabase('two_processes')
const main = fileURLToPath(new URL('../src/main.ts', import.meta.url))
const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url))

interface Child {
  process: ChildProcess
  url: string
}

/** The example server in a process of its own, on the scratch database. */
async function startServer(): Promise<Child> {
  const env = { ...process.env, DATABASE_URL: database.url, PORT: '0', CAL_DEMO: '0', CAL_ADMIN_TOKEN: ADMIN_TOKEN, CAL_LOG_LEVEL: 'warn' }
  const child = spawn(tsx, ['--conditions=source', main], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no server within 60 s:\n${output}`)), 60_000)
    const read = (chunk: Buffer) => {
      output += chunk.toString()
      const m = /listening at (\S+)/.exec(output)
      if (m) {
        clearTimeout(timer)
        resolve(m[1]!)
      }
    }
    child.stdout!.on('data', read)
    child.stderr!.on('data', read)
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)))
  })
  return { process: child, url }
}

async function stop(child: Child | undefined): Promise<void> {
  if (!child || child.process.exitCode !== null) return
  const exited = new Promise((resolve) => child.process.once('exit', resolve))
  child.process.kill('SIGTERM')
  await exited
}

async function call(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, total: res.headers.get('x-cal-total'), body: (await res.json()) as Record<string, unknown> }
}

// Each process remembers list totals on its own; the change log in the database is what tells
// either of them that the other one wrote (docs/change-tracking.md).
describe('two server processes on one PostgreSQL database', () => {
  let a: Child | undefined
  let b: Child | undefined

  beforeAll(async () => {
    await database.create()
    a = await startServer()
    b = await startServer()
  }, 150_000)
  afterAll(async () => {
    await Promise.all([stop(a), stop(b)])
    await database.drop()
  })

  it('each sees the other’s acknowledged writes on its next read', { timeout: 60_000 }, async () => {
    const total = async (child: Child, query = '') => Number((await call(child.url, 'GET', `/events${query}`)).total)
    const event = (title: string) => ({ title, start_date: '2031-05-01 10:00:00', end_date: '2031-05-01 11:00:00' })
    const window = '?start_date=2031-01-01&end_date=2031-12-31'
    expect(await total(a!, window)).toBe(0)
    expect(await total(b!, window)).toBe(0)
    let expected = 0
    for (let i = 0; i < 3; i++) {
      const created = await call(b!.url, 'POST', '/events', event(`From B ${i}`))
      expect(created.status).toBe(201)
      expected++
      expect(await total(a!, window)).toBe(expected)
      // A content edit on A, then a change of what matches on A: B's remembered total follows.
      await call(a!.url, 'POST', `/events/${created.body.id}`, { description: 'edited on A' })
      expect(await total(b!, window)).toBe(expected)
      await call(a!.url, 'POST', `/events/${created.body.id}`, { start_date: '2032-05-01 10:00:00', end_date: '2032-05-01 11:00:00' })
      expected--
      expect(await total(b!, window)).toBe(expected)
      expect(await total(a!, window)).toBe(expected)
      await call(a!.url, 'POST', `/events/${created.body.id}`, { start_date: '2031-06-01 10:00:00', end_date: '2031-06-01 11:00:00' })
      expected++
      expect(await total(b!, window)).toBe(expected)
    }
    const listed = await call(b!.url, 'GET', `/events${window}&search=From`)
    expect((listed.body.events as { description: string }[]).map((e) => e.description)).toEqual(['edited on A', 'edited on A', 'edited on A'].map((d) => expect.stringContaining(d)))
  })
  it('never serves a kept anonymous answer older than the other process’s acknowledged write', { timeout: 60_000 }, async () => {
    const anonymous = async <B,>(child: Child, path: string) => {
      const res = await fetch(`${child.url}${path}`)
      return { etag: res.headers.get('etag'), body: (await res.json()) as B }
    }
    const created = await call(a!.url, 'POST', '/events', { title: 'Hot 0', start_date: '2031-09-01 10:00:00', end_date: '2031-09-01 11:00:00' })
    const path = `/events/${created.body.id}`
    const list = '/events?start_date=2031-09-01&end_date=2031-09-30'
    for (let i = 1; i <= 5; i++) {
      // Read three times on B: from the second read on, B keeps the answer (response-cache.ts).
      for (let r = 0; r < 3; r++) {
        expect((await anonymous<EventResource>(b!, path)).body.title).toBe(`Hot ${i - 1}`)
        expect((await anonymous<EventList>(b!, list)).body.events[0]!.title).toBe(`Hot ${i - 1}`)
      }
      const updated = await call(a!.url, 'POST', path, { title: `Hot ${i}` })
      expect(updated.status).toBe(200)
      expect((await anonymous<EventResource>(b!, path)).body.title).toBe(`Hot ${i}`)
      expect((await anonymous<EventList>(b!, list)).body.events[0]!.title).toBe(`Hot ${i}`)
    }
  })
})
