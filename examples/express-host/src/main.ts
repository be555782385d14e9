/**
 * Starts the host app.
 *
 *   pnpm --filter @cal-events/example-express-host start
 *
 * Environment: PORT (default 3001), HOST (127.0.0.1), DATABASE_URL (PostgreSQL; unset: PGlite),
 * CAL_DATA_DIR (PGlite directory; unset: in memory), SESSION_SECRET (unset: random, so sessions
 * end with the process). Users: ada/ada-secret (administrator), erin/erin-secret (editor),
 * sam/sam-secret (subscriber).
 */
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { resolve } from 'node:path'
import { createCalendar, type DatabaseOptions } from '@cal-events/core'
import { authenticate, createHostApp, USERS, CALENDAR_ROLES } from './app.js'

const env = (name: string) => process.env[name]?.trim() || undefined
const port = Number(env('PORT') ?? 3001)
const host = env('HOST') ?? '127.0.0.1'
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, not ${JSON.stringify(env('PORT'))}.`)
  process.exit(1)
}
const databaseUrl = env('DATABASE_URL')
const dataDir = env('CAL_DATA_DIR')
const database: DatabaseOptions = databaseUrl ? { url: databaseUrl } : dataDir ? { dataDir: resolve(env('INIT_CWD') ?? process.cwd(), dataDir) } : { memory: true }

const calendar = await createCalendar({ database, authenticate })
const app = createHostApp(calendar, { sessionSecret: env('SESSION_SECRET') ?? randomBytes(32).toString('hex') })
const server = app.listen(port, host, () => {
  const url = `http://${host}:${(server.address() as AddressInfo).port}`
  console.log(`Host app at ${url}/  (calendar: ${url}/api/cal/events/v1)`)
  console.log(`Users: ${USERS.map((u) => `${u.login}/${u.password} (${CALENDAR_ROLES[u.role]})`).join(', ')}`)
})

let stopping = false
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return
    stopping = true
    server.close(() => {
      calendar.close().then(
        () => process.exit(0),
        () => process.exit(1),
      )
    })
    server.closeIdleConnections()
  })
}
