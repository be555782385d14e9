import { NAMESPACE, WP_NAMESPACE } from '@cal-events/core'
import { applyGcTuning } from './gc-tuning.js'
import { ConfigError, loadConfig, type ExampleServerConfig } from './config.js'
import { startExampleServer } from './server.js'

function describeDatabase(config: ExampleServerConfig): string {
  const db = config.database
  // The password stays out of the log.
  if ('url' in db) return `PostgreSQL ${db.url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')}`
  if ('dataDir' in db) return `embedded PGlite in ${db.dataDir}`
  return 'embedded PGlite in memory'
}

async function main(): Promise<void> {
  applyGcTuning()
  let config: ExampleServerConfig
  try {
    config = loadConfig()
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    console.error(err.message)
    process.exit(1)
  }

  console.log(`Opening ${describeDatabase(config)} (variant ${config.variant}, site time zone ${config.siteTimezone})…`)
  let server
  try {
    server = await startExampleServer(config)
  } catch (err) {
    console.error(`Could not start the example server: ${err instanceof Error ? err.message : String(err)}`)
    process.exit(1)
  }

  if (server.demo) {
    const d = server.demo
    console.log(`Seeded demo data: ${d.events} events, ${d.venues} venues, ${d.organizers} organizers, ${d.categories} categories, ${d.tags} tags.`)
  }
  if (server.generatedAdminToken) {
    console.log('')
    console.log('Administrator token (shown only once; keep it, or set CAL_ADMIN_TOKEN):')
    console.log(`  ${server.generatedAdminToken}`)
    console.log('')
  }
  console.log(`Calendar API listening at ${server.url}`)
  if (config.wpCompat) console.log(`  and, for clients of the WordPress plugin, at ${server.url.replace(NAMESPACE, WP_NAMESPACE)}`)

  let stoppingSince = 0
  const stop = (signal: NodeJS.Signals) => {
    if (stoppingSince) {
      // A signal sent to the whole process group can arrive twice (once relayed by tsx); only a
      // later, deliberate second Ctrl-C forces the exit.
      if (Date.now() - stoppingSince < 1000) return
      console.error(`${signal} again: exiting immediately.`)
      process.exit(1)
    }
    stoppingSince = Date.now()
    console.log(`${signal} received: finishing in-flight requests and closing the database…`)
    server.close().then(
      () => {
        console.log('Stopped.')
        process.exit(0)
      },
      (err: unknown) => {
        console.error('Shutdown failed:', err)
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

await main()
