import type { BenchOptions } from './options.js'
import { preparePostgres } from './prepare.js'
import * as report from './report.js'
import type { RunResults, ScenarioResult } from './report.js'
import { scenarios, type Scenario, type Targets } from './scenarios.js'
import { benchDatabaseName } from './series.js'
import { startCalendarServer, type RunningServer } from './server.js'
import { interleavedLatency } from './interleaved.js'

/** Requests per side of the interleaved single-caller measurement. */
const INTERLEAVED_REQUESTS = 400

/** The medians of `runs` (p50, p99, req/s) on the first run's other fields. */
function medianResult(runs: ScenarioResult[]): ScenarioResult {
  return { ...runs[0]!, rps: report.median(runs.map((x) => x.rps)), p50: report.median(runs.map((x) => x.p50)), p99: report.median(runs.map((x) => x.p99)) }
}

/** Runs the issue's scenarios in `label`'s table (main.ts `runScenarios`). */
type RunScenarios = (server: RunningServer, targets: Targets, list: Scenario[], label: string) => Promise<ScenarioResult[]>

/**
 * Optional (`--skip-scaling`): a small database beside the large one of the main run, with the
 * list and search measured on both, back to back, in paired rounds; the latency ratios are of
 * the medians. `drop` is told the small database's name unless it is to be kept.
 */
export async function scalingRun(
  o: BenchOptions,
  large: { url: string; targets: Targets; events: number },
  runScenarios: RunScenarios,
  drop: (name: string) => void,
): Promise<NonNullable<RunResults['scaling']>> {
  const largeUrl = large.url
  const largeTargets = large.targets
  const name = benchDatabaseName(o.scalingEvents, o.seriesShare)
  console.log(`\nScaling: seeding ${o.scalingEvents.toLocaleString('en-US')} events into ${name}…`)
  if (!o.keep && !o.reuse) drop(name)
  const db = await preparePostgres(o.adminUrl, name, o.scalingEvents, o.reuse, o.seriesShare)
  console.log(report.seedLine(o.scalingEvents, db.migrate, db.timings))
  // Both servers run; each round measures the large then the small database, back to back.
  const bigServer = await startCalendarServer(largeUrl)
  let smallServer: RunningServer | undefined
  try {
    smallServer = await startCalendarServer(db.url)
    const pick = (t: Targets) => scenarios(t).filter((s) => s.name === 'list' || s.name === 'search')
    const bigRuns: ScenarioResult[][] = []
    const smallRuns: ScenarioResult[][] = []
    for (let i = 0; i < o.rounds; i++) {
      bigRuns.push(await runScenarios(bigServer, largeTargets, pick(largeTargets), `round ${i + 1}: PostgreSQL, ${large.events.toLocaleString('en-US')} events`))
      smallRuns.push(await runScenarios(smallServer, db.targets, pick(db.targets), `round ${i + 1}: PostgreSQL, ${o.scalingEvents.toLocaleString('en-US')} events`))
    }
    const scaling: NonNullable<RunResults['scaling']> = { small: o.scalingEvents, large: large.events, rounds: o.rounds, scenarios: [] }
    for (const [j, s] of pick(db.targets).entries()) {
      const big = medianResult(bigRuns.map((r) => r[j]!))
      const small = medianResult(smallRuns.map((r) => r[j]!))
      scaling.scenarios.push({ name: s.name, small, large: big, p50Ratio: big.p50 / small.p50, p99Ratio: big.p99 / small.p99 })
    }
    console.log(
      report.table(
        ['scenario (medians of rounds)', 'p50 ratio', 'p99 ratio'],
        scaling.scenarios.map((x) => [`${x.name} (${large.events} / ${o.scalingEvents})`, `${x.p50Ratio.toFixed(2)}x`, `${x.p99Ratio.toFixed(2)}x`]),
      ),
    )
    // The same paths once more, one request at a time alternating between the two servers: the
    // statement's own latency, which a loaded machine's swings between rounds do not drown.
    scaling.interleaved = []
    for (const s of pick(db.targets)) scaling.interleaved.push(await interleavedLatency(s.name, s.spec.path, bigServer, smallServer, INTERLEAVED_REQUESTS))
    console.log(
      report.table(
        [`one caller, ${INTERLEAVED_REQUESTS} requests each side, alternating`, 'p50 ms large/small', 'p99 ms large/small', 'p50 ratio', 'p99 ratio'],
        scaling.interleaved.map((x) => [x.name, `${x.large.p50.toFixed(1)} / ${x.small.p50.toFixed(1)}`, `${x.large.p99.toFixed(1)} / ${x.small.p99.toFixed(1)}`, `${x.p50Ratio.toFixed(2)}x`, `${x.p99Ratio.toFixed(2)}x`]),
      ),
    )
    return scaling
  } finally {
    await bigServer.stop()
    await smallServer?.stop()
  }
}

