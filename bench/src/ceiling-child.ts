import { followKnownTotal } from '@cal-events/core/internal'
import { sqlCeilingHere, type SqlCeilingJob } from './ceilings.js'

// The SQL ceiling's client in a process of its own (`ceilings.ts` starts one per measurement), for
// the same reason as the load generator's: the harness's process is not a clean client.
const job = JSON.parse(process.argv[2]!) as SqlCeilingJob
const result = await sqlCeilingHere(job.url, job.statements, job.run, job.follow ? followKnownTotal : undefined)
process.stdout.write(`${JSON.stringify(result)}\n`)
process.exit(0)
