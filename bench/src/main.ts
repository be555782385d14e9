import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bareHttpCeiling, captureListSql, captureResponse, sqlCeiling } from './ceilings.js'
import { dropDatabase } from './db.js'
import { feedScenario } from './feed.js'
import { hostileBeside } from './hostile.js'
import { measure, type LoadResult } from './load.js'
import { machine, parseOptions, type BenchOptions } from './options.js'
import { preparePglite, preparePostgres } from './prepare.js'
import * as report from './report.js'
import { hostileLines, markdown } from './report-markdown.js'
import type { BesideWrites, RunResults, ScenarioResult } from './report.js'
import { allScenarios, scenarios, type Scenario, type Targets } from './scenarios.js'
import { SERVER_MAIN, serverStats, startCalendarServer, type RunningServer } from './server.js'
import { scalingRun } from './scaling.js'
import { benchDatabaseName, SERIES_PAIRED, seriesVsPlainRun } from './series.js'
import { steadyRun } from './steady.js'
import { importRun, migrateSiteRun } from './bulk.js'
import { sweep, sweepPaths } from './sweep.js'
import { calendarWriter, foreignWriter, hostWriter, type BackgroundWriter } from './writers.js'

const started = performance.now()
const opts = parseOptions(process.argv.slice(2))
const runOpts = { connections: opts.connections, duration: opts.duration, warmup: opts.warmup }

if (!existsSync(SERVER_MAIN)) {
  console.error(`No production build at ${SERVER_MAIN}. Run \`pnpm bench\` (it builds first), or build with\n  pnpm build && pnpm --filter @cal-events/example-server build`)
  process.exit(1)
}

const results: RunResults = {
  startedAt: new Date().toISOString(),
  command: `pnpm bench${process.argv.length > 2 ? ` ${process.argv.slice(2).join(' ')}` : ''}`,
  machine: {
    ...machine(),
    cpu: cpus()[0]?.model ?? 'unknown',
    memory: `${Math.round(totalmem() / 2 ** 30)} GB`,
    'load average at start': loadavg().map((l) => l.toFixed(2)).join(' '),
  },
  options: { ...opts } as unknown as Record<string, unknown>,
  targets: [],
  seconds: 0,
}

console.log(`cal-events bench: ${results.machine.cores} cores, ${results.machine.cpu}, node ${results.machine.node}, load ${results.machine['load average at start']}`)
console.log(`${opts.connections} connections, ${opts.warmup} s warm-up + ${opts.duration} s per scenario\n`)

/** The scenarios named, or by default all but the series ones when no share is seeded as series. */
function selected(all: Scenario[], names: string[] | undefined): Scenario[] {
  if (!names) return all.filter((s) => !s.series || opts.seriesShare > 0)
  const unknown = names.filter((n) => !all.some((s) => s.name === n))
  if (unknown.length > 0) throw new Error(`Unknown scenario(s) ${unknown.join(', ')}; known: ${all.map((s) => s.name).join(', ')}`)
  return all.filter((s) => names.includes(s.name))
}

async function runScenarios(server: RunningServer, targets: Targets, list: Scenario[], label: string): Promise<ScenarioResult[]> {
  const out: ScenarioResult[] = []
  console.log(`\n${label}`)
  console.log(report.scenarioLine(report.SCENARIO_HEADER))
  for (const s of list) {
    const r = { name: s.name, title: s.title, ...(await measure(server, { scenario: s.name, targets }, { ...runOpts, stats: true })) }
    out.push(r)
    console.log(report.scenarioLine(report.scenarioRow(r)))
  }
  return out
}

/** SQL statements of single list requests at several per_page values (and one with a new filter). */
async function statementProbe(server: RunningServer): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  const probes: [string, string][] = [
    ['per_page=1', '/events?per_page=1'],
    ['per_page=5', '/events?per_page=5'],
    ['per_page=50', '/events?per_page=50'],
    ['per_page=50, new filter', `/events?per_page=50&start_date=2020-02-${String(1 + (Date.now() % 28)).padStart(2, '0')}`],
  ]
  for (const [name, path] of probes) {
    const before = await serverStats(server)
    const res = await fetch(`${server.base}${path}`)
    if (!res.ok) throw new Error(`${path} answered ${res.status}`)
    await res.arrayBuffer()
    const after = await serverStats(server)
    out[name] = after.queries - before.queries
  }
  return out
}

/**
 * The default list beside writes elsewhere (issue 17): 20 commits a second into a host table of
 * the calendar's database, the same into another database of the server, and 2 event updates a
 * second through the API. Each is paired with a read-only list measured just before it, and
 * printed as the ratio of the two.
 */
async function besideWrites(server: RunningServer, url: string, targets: Targets, o: BenchOptions): Promise<BesideWrites[]> {
  const kinds: { name: string; title: string; goal: number; start: () => Promise<BackgroundWriter> }[] = [
    { name: 'host-writes', title: 'beside 20 host-table commits/s', goal: 0.8, start: () => hostWriter(url, 20) },
    { name: 'foreign-writes', title: 'beside 20 commits/s in another database', goal: 0.8, start: () => foreignWriter(o.adminUrl, 20) },
    { name: 'calendar-writes', title: 'beside 2 event updates/s (API)', goal: 0.5, start: async () => calendarWriter(server, targets.eventIds, 2) },
  ]
  const out: BesideWrites[] = []
  console.log('\nwrites beside the default list, each paired with a read-only list just before it')
  for (const kind of kinds) {
    const readOnly = await measure(server, { scenario: 'list', targets }, { ...runOpts, stats: true })
    const writer = await kind.start()
    let withWrites: LoadResult
    try {
      withWrites = await measure(server, { scenario: 'list', targets }, { ...runOpts, stats: true })
    } catch (err) {
      await writer.stop()
      throw err
    }
    const done = await writer.stop()
    out.push({ name: kind.name, title: kind.title, goal: kind.goal, readOnly, withWrites, writer: done, ratio: withWrites.rps / readOnly.rps })
  }
  console.log(report.besideWritesTable(out))
  return out
}

/**
 * The scenarios that need the hot-read cache, on a server of their own started with it on (the
 * main server runs with it off, so the default list keeps measuring the read itself).
 */
async function cachedRun(url: string, targets: Targets, list: Scenario[]): Promise<ScenarioResult[]> {
  const server = await startCalendarServer(url, { responseCache: true })
  try {
    const res = await fetch(`${server.base}/events`)
    await res.arrayBuffer()
    const listTag = res.headers.get('etag') ?? undefined
    if (!res.ok || !listTag) throw new Error(`GET /events answered ${res.status} without an ETag`)
    return await runScenarios(server, { ...targets, listTag }, list, 'hot-read cache on (a server of its own)')
  } finally {
    await server.stop()
  }
}

/** Bench databases to drop at the end (none with --keep or --reuse). */
const toDrop: string[] = []

/** Seeds (or reuses) the main database and runs the scenarios and ceilings on it; the database stays for the scaling run. */
async function postgresRun(o: BenchOptions): Promise<{ url: string; targets: Targets }> {
  const name = benchDatabaseName(o.events, o.seriesShare)
  const seriesNote = o.seriesShare > 0 ? `, ${report.percent(o.seriesShare)}% series` : ''
  console.log(`PostgreSQL: seeding ${o.events.toLocaleString('en-US')} events${seriesNote} into ${name}…`)
  if (!o.keep && !o.reuse) toDrop.push(name)
  const db = await preparePostgres(o.adminUrl, name, o.events, o.reuse, o.seriesShare)
  console.log(report.seedLine(o.events, db.migrate, db.timings))
  const server = await startCalendarServer(db.url)
  const all = allScenarios(db.targets)
  // The feed is no load scenario (one long response at a time): measured on its own below.
  const wantFeed = !o.scenarios || o.scenarios.includes('feed')
  // So is the hostile mix (issue 28): the list alone and beside it, measured last.
  const wantHostile = o.scenarios ? o.scenarios.includes('hostile-beside') : !o.skipHostile
  // The bulk scenarios of issue 33 too: run only when named.
  const wantImport = o.scenarios?.includes('import') ?? false
  const named = o.scenarios?.filter((n) => !['feed', 'hostile-beside', 'import', 'migrate-site'].includes(n))
  const chosen = named?.length === 0 ? [] : selected(all, named)
  const reads = chosen.filter((s) => (s.spec.method ?? 'GET') === 'GET' && !s.cache)
  const cached = chosen.filter((s) => s.cache)
  const writes = chosen.filter((s) => (s.spec.method ?? 'GET') !== 'GET')
  try {
    const statementsByPerPage = await statementProbe(server)
    console.log(`statements per list request: ${report.probeText(statementsByPerPage)}`)
    const captured = await captureResponse(server, '/events')
    const scenarioResults = await runScenarios(server, db.targets, reads, `PostgreSQL, ${o.events.toLocaleString('en-US')} events${seriesNote}`)
    if (cached.length > 0) scenarioResults.push(...(await cachedRun(db.url, db.targets, cached)))
    results.postgres = { events: o.events, migrate: db.migrate, seed: db.timings, statementsByPerPage, scenarios: scenarioResults }
    if (wantFeed) {
      console.log(`\nfeed: ${db.targets.feed.start} to ${db.targets.feed.end}, one download at a time, ${o.rounds} round(s)`)
      results.postgres.feed = await feedScenario(server, db.targets.feed, o.rounds)
      console.log(report.feedLines(results.postgres.feed))
    }
    if (!o.skipSweep) {
      console.log('\nsweep: single requests, one at a time, beyond the scenarios')
      results.postgres.sweep = await sweep(server, sweepPaths(db.targets))
      console.log(report.sweepTable(results.postgres.sweep))
    }
    if (!o.skipCeilings) {
      console.log('\nceilings (same machine, same concurrency)')
      const bare = await bareHttpCeiling(captured, runOpts)
      console.log(`  bare node:http, same ${captured.body.length} bytes: ${bare.rps.toFixed(0)} req/s, p50 ${bare.p50} ms, p99 ${bare.p99} ms`)
      const withBare = { ...results, postgres: { ...results.postgres, ceilings: { bare } } } as RunResults
      for (const share of report.cacheShares(withBare)) {
        console.log(`  ${share.title}: ${share.rps.toFixed(0)} req/s = ${(share.fraction * 100).toFixed(0)}% of bare node:http (goal >= ${share.goal * 100}%)`)
      }
      const sqlText = await captureListSql(db.url)
      let sqlUncached
      // A first request counts (no total known yet); replayed, its statements count every time.
      if (JSON.stringify(sqlText.first) !== JSON.stringify(sqlText.warm)) {
        sqlUncached = await sqlCeiling(db.url, sqlText.first, runOpts)
        console.log(`  list SQL via pg, ${sqlUncached.statements} statement(s) as a first request issues them (total counted every time): ${sqlUncached.requestsPerSecond.toFixed(0)} req/s, p50 ${sqlUncached.p50.toFixed(1)} ms, p99 ${sqlUncached.p99.toFixed(1)} ms`)
      }
      // This machine's speed drifts by more than the margins of the targets over a few minutes, so
      // the ratio compares measurements taken back to back, several times, and takes the median.
      const rounds = []
      for (let i = 0; i < o.rounds; i++) {
        const list = await measure(server, { scenario: 'list', targets: db.targets }, { ...runOpts, stats: true })
        const sql = await sqlCeiling(db.url, sqlText.warm, runOpts, true)
        const lower = Math.min(bare.rps, sql.requestsPerSecond)
        rounds.push({ list, sql, lower, fraction: list.rps / lower })
        console.log(
          `  round ${i + 1}: default list ${list.rps.toFixed(0)} req/s (p99 ${list.p99} ms), then list SQL via pg, ${sql.statements} statement(s) as a warm request issues them: ` +
            `${sql.requestsPerSecond.toFixed(0)} req/s (p50 ${sql.p50.toFixed(1)} ms, p99 ${sql.p99.toFixed(1)} ms): ${(rounds[i]!.fraction * 100).toFixed(0)}%`,
        )
      }
      const fraction = report.median(rounds.map((x) => x.fraction))
      const mid = [...rounds].sort((a, b) => a.fraction - b.fraction)[rounds.length >> 1]!
      console.log(`  default list: ${(fraction * 100).toFixed(0)}% of the lower ceiling (median of ${rounds.length} rounds)`)
      results.postgres.ceilings = {
        bare,
        sql: { ...mid.sql, sql: sqlText.warm.map((s) => s.text) },
        ...(sqlUncached ? { sqlUncached: { ...sqlUncached, sql: sqlText.first.map((s) => s.text) } } : {}),
        rounds,
        lower: mid.lower,
        fraction,
      }
    }
    if (!o.skipBesideWrites) results.postgres.besideWrites = await besideWrites(server, db.url, db.targets, o)
    // Before the writes, which add events and occurrences to the series database only.
    if (o.seriesShare > 0 && SERIES_PAIRED.some((n) => !o.scenarios || o.scenarios.includes(n))) {
      results.seriesVsPlain = await seriesVsPlainRun(o, { server, targets: db.targets }, statementProbe, (n) => toDrop.push(n))
    }
    if (writes.length > 0) {
      results.postgres.scenarios.push(...(await runScenarios(server, db.targets, writes, 'writes')))
      const cost = report.seriesCreateCost(results.postgres.scenarios)
      if (cost) console.log(`a weekly two-year series costs ${report.times(cost.rpsRatio)} one event by req/s (create / create-series), ${report.times(cost.cpuRatio)} by CPU ms per request of the server and its database's PostgreSQL backends`)
    }
    if (wantImport) {
      console.log(`\nbulk import: ${o.importEvents.toLocaleString('en-US')} events through calendar.events.import() into the ${o.events.toLocaleString('en-US')}-event database`)
      results.postgres.bulkImport = await importRun(db.url, db.targets, o.importEvents)
      console.log(report.importLine(results.postgres.bulkImport))
    }
    if (wantHostile) {
      console.log('\nhostile beside: the default list alone, then beside pathological rules, far windows and 4 parallel full feeds')
      results.postgres.hostileBeside = await hostileBeside(server, db.targets, runOpts)
      console.log(hostileLines(results.postgres.hostileBeside))
    }
  } finally {
    await server.stop()
  }
  return { url: db.url, targets: db.targets }
}

async function pgliteRun(o: BenchOptions): Promise<void> {
  const dataDir = fileURLToPath(new URL(`../.data/pglite-${o.pgliteEvents}`, import.meta.url))
  console.log(`\nPGlite: seeding ${o.pgliteEvents.toLocaleString('en-US')} events into ${dataDir}…`)
  const db = await preparePglite(dataDir, o.pgliteEvents, o.seriesShare)
  console.log(report.seedLine(o.pgliteEvents, db.migrate, db.timings))
  const server = await startCalendarServer({ dataDir })
  try {
    // The same scenarios as the PostgreSQL run, less the extra uncached one.
    const chosen = scenarios(db.targets).filter((s) => (o.scenarios ? o.scenarios.includes(s.name) : !s.series || o.seriesShare > 0))
    const rows = await runScenarios(server, db.targets, chosen, `PGlite, ${o.pgliteEvents.toLocaleString('en-US')} events`)
    results.pglite = { events: o.pgliteEvents, migrate: db.migrate, seed: db.timings, scenarios: rows }
  } finally {
    await server.stop()
    if (!o.keep) rmSync(dataDir, { recursive: true, force: true })
  }
}

/** Steady-state mode (issue 34): its own database of `--events`, seeded, then only the steady-state run. */
async function steadyMain(o: BenchOptions): Promise<void> {
  // Its own name: the history writes into it, so a kept database is no fresh seed any more.
  const name = `${benchDatabaseName(o.events, 0)}_steady`
  console.log(`PostgreSQL: seeding ${o.events.toLocaleString('en-US')} events into ${name}…`)
  if (!o.keep) toDrop.push(name)
  const db = await preparePostgres(o.adminUrl, name, o.events, false, 0)
  console.log(report.seedLine(o.events, db.migrate, db.timings))
  results.steady = await steadyRun(db.url, db.targets, runOpts, o.steadyWrites)
}

try {
  if (opts.steady) await steadyMain(opts)
  else await mainRuns()
} finally {
  for (const name of toDrop) await dropDatabase(opts.adminUrl, name).catch((e: Error) => console.error(`could not drop ${name}: ${e.message}`))
  results.seconds = (performance.now() - started) / 1000
  results.targets = report.targets(results)
  mkdirSync(dirname(opts.out), { recursive: true })
  writeFileSync(opts.out, JSON.stringify(results, null, 2))
  writeFileSync(opts.out.replace(/\.json$/, '.md'), markdown(results))
  console.log(`\n${report.targetLines(results.targets)}`)
  console.log(`\nTotal ${(results.seconds / 60).toFixed(1)} min. Results: ${opts.out} (and .md)`)
}

async function mainRuns(): Promise<void> {
  // Only the migrate-site scenario named: its own source and target databases, nothing else.
  if (opts.scenarios?.length === 1 && opts.scenarios[0] === 'migrate-site') {
    console.log(`migrate-site: a ${opts.sourceEvents.toLocaleString('en-US')}-event source served by the project, into an empty calendar`)
    results.migrateSite = await migrateSiteRun(opts.adminUrl, opts.sourceEvents, opts.keep)
    console.log(report.migrateSiteLine(results.migrateSite))
    return
  }
  const main = await postgresRun(opts)
  if (!opts.skipScaling && results.postgres) {
    const large = { url: main.url, targets: main.targets, events: results.postgres.events }
    results.scaling = await scalingRun(opts, large, runScenarios, (name) => toDrop.push(name))
  }
  if (!opts.skipPglite) await pgliteRun(opts)
}
