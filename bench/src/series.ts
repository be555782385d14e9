import { measure } from './load.js'
import type { BenchOptions } from './options.js'
import { preparePostgres } from './prepare.js'
import * as report from './report.js'
import type { RunResults, ScenarioResult } from './report.js'
import { scenarios, type Targets } from './scenarios.js'
import { startCalendarServer, type RunningServer } from './server.js'

/** The scenarios issue 19 compares between the series and the plain database. */
export const SERIES_PAIRED = ['list', 'list-window-category', 'categories']

/**
 * The prefix of the bench databases' names: `BENCH_DB_PREFIX`, so that benches run side by side on
 * one server (several engineers) never drop or reuse each other's databases; `cal_bench` by default.
 */
export const DB_PREFIX = process.env.BENCH_DB_PREFIX || 'cal_bench'

/**
 * The bench database of `events` events: `cal_bench_<events>`, with `_series<percent>` when a share
 * is seeded as series, so a series run never drops or reuses a plain run's database.
 */
export function benchDatabaseName(events: number, seriesShare: number): string {
  return seriesShare > 0 ? `${DB_PREFIX}_${events}_series${report.percent(seriesShare).replace('.', '_')}` : `${DB_PREFIX}_${events}`
}

/** Statement counts of single list requests (main.ts `statementProbe`). */
type StatementProbe = (server: RunningServer) => Promise<Record<string, number>>

/**
 * Issue 19 (with `--series-share`): the database of the main run, whose share of events are series,
 * beside one of as many plain events (`cal_bench_<events>_plain`, seeded the same way with no
 * series), with each list scenario measured on both, back to back, in paired rounds; the ratios
 * (series req/s over plain req/s) are per round, and their median is the figure. `drop` is told
 * the plain database's name unless it is to be kept.
 */
export async function seriesVsPlainRun(
  o: BenchOptions,
  series: { server: RunningServer; targets: Targets },
  statementProbe: StatementProbe,
  drop: (name: string) => void,
): Promise<NonNullable<RunResults['seriesVsPlain']>> {
  const names = SERIES_PAIRED.filter((n) => !o.scenarios || o.scenarios.includes(n))
  const name = `${DB_PREFIX}_${o.events}_plain`
  console.log(`\nSeries vs plain: seeding ${o.events.toLocaleString('en-US')} plain events into ${name}…`)
  if (!o.keep && !o.reuse) drop(name)
  const db = await preparePostgres(o.adminUrl, name, o.events, o.reuse, 0)
  console.log(report.seedLine(o.events, db.migrate, db.timings))
  const plainServer = await startCalendarServer(db.url)
  try {
    const statements = { series: await statementProbe(series.server), plain: await statementProbe(plainServer) }
    console.log(`statements per list request, series: ${report.probeText(statements.series)}; plain: ${report.probeText(statements.plain)}`)
    const pick = (t: Targets) => scenarios(t).filter((s) => names.includes(s.name))
    const runOpts = { connections: o.connections, duration: o.duration, warmup: o.warmup, stats: true }
    const rounds: { series: ScenarioResult[]; plain: ScenarioResult[] }[] = []
    for (let i = 0; i < o.rounds; i++) {
      console.log(`\nround ${i + 1}: each scenario on ${o.events.toLocaleString('en-US')} events with ${report.percent(o.seriesShare)}% series, then on as many plain events`)
      console.log(report.scenarioLine(report.SCENARIO_HEADER))
      const round: (typeof rounds)[number] = { series: [], plain: [] }
      // Pairs per scenario, not per round: the load of a shared machine drifts within a minute.
      for (const s of pick(series.targets)) {
        for (const [side, server, targets] of [['series', series.server, series.targets], ['plain', plainServer, db.targets]] as const) {
          const r = { name: s.name, title: `${s.title} (${side})`, ...(await measure(server, { scenario: s.name, targets }, runOpts)) }
          round[side].push(r)
          console.log(report.scenarioLine(report.scenarioRow(r)))
        }
      }
      rounds.push(round)
    }
    const result: NonNullable<RunResults['seriesVsPlain']> = { events: o.events, seriesShare: o.seriesShare, rounds: o.rounds, statements, scenarios: [] }
    for (const [j, s] of pick(db.targets).entries()) {
      const ratios = rounds.map((r) => r.series[j]!.rps / r.plain[j]!.rps)
      const cpuRatios = rounds.map((r) => report.serverCpu(r.plain[j]!) / report.serverCpu(r.series[j]!))
      result.scenarios.push({
        name: s.name,
        series: rounds.map((r) => r.series[j]!),
        plain: rounds.map((r) => r.plain[j]!),
        ratios,
        ratio: report.median(ratios),
        cpuRatios,
        cpuRatio: report.median(cpuRatios),
      })
    }
    console.log(report.seriesTable(result))
    return result
  } finally {
    await plainServer.stop()
  }
}
