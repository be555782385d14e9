import v8 from 'node:v8'
import vm from 'node:vm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { CalendarRequest } from '@cal-events/core'
import { resolveOptions, type ResolvedOptions } from '../../src/config/options.js'
import { startCalendar, type Calendar } from '../../src/create-calendar.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { openSharedDatabase, type SharedDatabase } from '../../src/db/shared-database.js'
import { scratchDatabase } from '../../../../test-support/scratch-db.js'
import { BACKEND } from '../../../../test-support/test-db.js'

// Heap an open, idle calendar of a set keeps (issue 31, docs/multi-calendar.md): the operations,
// their argument schemas and the routes are the variant's, built once and shared; what stays per
// calendar is its database handle, caches and background work. The calendars are opened the way
// `createCalendars` opens one (a handle of the shared database, then `startCalendar`), here all on
// one schema: creating 100 schemas would take a minute and changes nothing in memory.

const CALENDARS = 100
// Measured 30 kB (core-pg) and 33 kB (core-pglite) since the script services are built on first
// use, the query compiler, route patterns and kept statement texts are shared and the discovery
// arguments declared once (45.6 kB before, core-pg); each calendar building its own operations
// kept about 450 kB.
const BOUND_KB = 42
const SCHEMA = 'cal_c_heap'
const request: CalendarRequest = { method: 'GET', path: '/cal/events/v1/events', query: '', headers: {}, origin: 'http://heap' }

let database: SharedDatabase
let options: ResolvedOptions
let drop = async () => {}

beforeAll(async () => {
  let base: NonNullable<Parameters<typeof resolveOptions>[0]>['database']
  if (BACKEND === 'postgres') {
    const scratch = scratchDatabase(`heap${process.env.VITEST_POOL_ID ?? 0}`)
    await scratch.create()
    drop = scratch.drop
    base = { url: scratch.url, poolSize: 2 }
  } else {
    const [{ PGlite }, { pg_trgm }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite/contrib/pg_trgm')])
    const instance = await PGlite.create({ extensions: { pg_trgm } })
    drop = () => instance.close()
    base = { pglite: instance as never }
  }
  options = { ...resolveOptions({ database: base, schema: SCHEMA }), siteUnderMount: true }
  database = await openSharedDatabase(options.database)
  await migrateToLatest(database.open(SCHEMA).db, SCHEMA)
})

afterAll(async () => {
  await database?.close()
  await drop()
})

it(`keeps less than ${BOUND_KB} kB of heap per open idle calendar (${CALENDARS} calendars, one list served each)`, async () => {
  v8.setFlagsFromString('--expose-gc')
  const gc = vm.runInNewContext('gc') as () => void
  const heap = () => {
    gc()
    gc()
    return process.memoryUsage().heapUsed
  }
  const open: Calendar[] = []
  const openOne = async () => {
    // The set's handle: closing the calendar leaves the shared pool open.
    const calendar = startCalendar(options, { ...database.open(SCHEMA, options.onQuery), close: async () => {} })
    expect((await calendar.handle(request)).status).toBe(200)
    open.push(calendar)
  }
  // The first one builds what every calendar of the variant shares.
  await openOne()
  const before = heap()
  for (let i = 0; i < CALENDARS; i++) await openOne()
  const perCalendarKb = (heap() - before) / CALENDARS / 1024
  await Promise.all(open.map((c) => c.close()))
  expect(perCalendarKb, `${perCalendarKb.toFixed(1)} kB per calendar`).toBeLessThan(BOUND_KB)
}, 120_000)
