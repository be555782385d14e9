import { createInterface } from 'node:readline'
import autocannon from 'autocannon'
import { autocannonOptions, type GeneratorJob, type GeneratorResult } from './load.js'
import { allScenarios } from './scenarios.js'

// The load generator's own process (`load.ts` starts one per measurement): warm-up, then "ready";
// on "go" the measured run, then its result as one JSON line; then it waits to be told to exit, so
// the parent can read its CPU time while it is still there.

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)))
  })
}

const job = JSON.parse(process.argv[2]!) as GeneratorJob
const spec = 'spec' in job.source ? job.source.spec : allScenarios(job.source.targets).find((s) => s.name === (job.source as { scenario: string }).scenario)?.spec
if (!spec) throw new Error(`unknown scenario in ${process.argv[2]}`)

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
const expect = async (word: string) => {
  const { value, done } = await lines.next()
  if (done || value !== word) process.exit(0) // the parent went away or gave up
}

if (job.warmup > 0) await run(autocannonOptions(job.base, spec, job.connections, job.warmup))
process.stdout.write('ready\n')
await expect('go')
const r = await run(autocannonOptions(job.base, spec, job.connections, job.duration))
const result: GeneratorResult = {
  rps: r.requests.average,
  requests: r.requests.total,
  p50: r.latency.p50,
  p90: r.latency.p90,
  p99: r.latency.p99,
  max: r.latency.max,
  errors: r.errors,
  non2xx: r.non2xx,
}
process.stdout.write(`${JSON.stringify(result)}\n`)
await expect('exit')
process.exit(0)
