import { execFile } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { freshCalendar } from '../../../test-support/test-db.js'
import { startServer, type TestServer } from '../../../test-support/http.js'
import { typesOf } from '../src/generate-types.js'

const run = promisify(execFile)
const HERE = fileURLToPath(new URL('..', import.meta.url))
const TSC = fileURLToPath(new URL('../../../node_modules/.bin/tsc', import.meta.url))

describe('a client generated from the served OpenAPI document (openapi-typescript + openapi-fetch)', () => {
  let calendar: Calendar
  let server: TestServer
  let token: string
  let serverUrl: string
  beforeAll(async () => {
    calendar = await freshCalendar({ variant: 'B' })
    server = await startServer(calendar)
    token = (await calendar.tokens.create({ role: 'administrator', login: 'admin' })).token
    const doc = (await server.request('GET', '/doc')).body
    serverUrl = doc.servers[0].url
    mkdirSync(`${HERE}client/generated`, { recursive: true })
    writeFileSync(`${HERE}client/generated/schema.d.ts`, await typesOf(doc))
  })
  afterAll(async () => {
    await server.close()
    await calendar.close()
  })

  it('compiles under strict TypeScript with no casts and no any; every wrong input it tries is a type error', async () => {
    const source = readFileSync(`${HERE}client/consumer.ts`, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
    expect(source).not.toMatch(/\bas\s+(?!const\b)[A-Za-z{[(]|\bany\b|<[A-Za-z]+>\s*\w/)
    // An `@ts-expect-error` that is no longer an error fails the compile (TS2578).
    const result = await run(TSC, ['-p', `${HERE}tsconfig.json`]).then(
      () => ({ code: 0, out: '' }),
      (err: { code: number; stdout: string }) => ({ code: err.code, out: err.stdout }),
    )
    expect(result.out).toBe('')
    expect(result.code).toBe(0)
  }, 120_000)

  it('lists, reads, creates, updates and trashes through the generated client against the server', async () => {
    // Loaded by URL so the workspace type-check does not follow it into types generated only here.
    const consumer = `${HERE}client/consumer.ts`
    const { runConsumer } = (await import(consumer)) as { runConsumer(baseUrl: string, token: string): Promise<Record<string, any>> }
    const report = await runConsumer(serverUrl, token)
    expect(report.listedIds).toEqual([report.created.event])
    expect(report.listedTitles).toEqual(['Typed Meetup'])
    expect(report.listTotal).toBe(1)
    expect(report.listTotalHeader).toBe('1')
    expect(report.bySlugId).toBe(report.created.event)
    expect(report.featuredAfterUpdate).toBe(true)
    expect(report.venueAfterUnlink).toEqual([])
    expect(report.trashedStatus).toBe('trash')
    expect(report.notFound).toEqual({ status: 404, code: 'rest-event-not-found' })
    expect(report.badRequest).toEqual({ status: 400, code: 'rest_invalid_param', params: ['event'] })
  })
})
