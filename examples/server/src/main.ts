/**
 * The example server: the `cal-events serve` command of @cal-events/cli, with its PGlite data kept
 * in examples/server/.data/pglite whatever the working directory. What it assembles (the calendar,
 * the Express app with the calendar, health, metrics and reference routers, compression, the
 * hot-read fast path, request logging, the administrator token and the demo data) is
 * `startServer` in packages/cli/src/server.ts; the start, the messages and the signals are
 * `runServe` in packages/cli/src/serve.ts.
 */
import { fileURLToPath } from 'node:url'
import { runServe } from '@cal-events/cli'

const defaultDataDir = fileURLToPath(new URL('../.data/pglite', import.meta.url))
process.exit(await runServe(process.argv.slice(2), process.env, undefined, { defaultDataDir }))
