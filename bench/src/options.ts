import { availableParallelism } from 'node:os'

/** What one `pnpm bench` run does. Flags win over environment variables, which win over defaults. */
export interface BenchOptions {
  /** Events seeded for the main PostgreSQL run. */
  events: number
  /** Scenario names to run (all by default). */
  scenarios: string[] | undefined
  /** Seconds measured per scenario. */
  duration: number
  /** Seconds of warm-up load before each measurement (not recorded). */
  warmup: number
  connections: number
  /** Events of the small database of the scaling run. */
  scalingEvents: number
  /** Events of the PGlite run. */
  pgliteEvents: number
  /** Share (0-1) of the seeded timed events made series with stored occurrences (issue 19). */
  seriesShare: number
  skipPglite: boolean
  skipScaling: boolean
  skipCeilings: boolean
  /** No sweep of single requests over filter combinations and deep pages. */
  skipSweep: boolean
  /** No run of the default list beside host, foreign and calendar writes. */
  skipBesideWrites: boolean
  /** No run of the default list beside the hostile mix (issue 28). */
  skipHostile: boolean
  /** Paired rounds for the ratio targets: list and SQL ceiling, 1M and small database, series and plain database, back to back. */
  rounds: number
  /** PostgreSQL server URL (any database); bench databases are created next to it. */
  adminUrl: string
  /** Keep the seeded databases after the run (dropped by default). */
  keep: boolean
  /** Reuse the PostgreSQL databases a `--keep` run left (no seeding; for iterating on the server). */
  reuse: boolean
  /** Where the JSON results go. */
  out: string
  /** Steady-state mode (issue 34): reads, a history of API writes, the reads again, then 16 concurrent writers. */
  steady: boolean
  /** Creates of the steady-state history (as many updates, a fifth as many trashes). */
  steadyWrites: number
  /** Events of the bulk-import scenario (`import`, issue 33). */
  importEvents: number
  /** Events of the migrate-site scenario's source (`migrate-site`, issue 33). */
  sourceEvents: number
}

const HELP = `Usage: pnpm bench [options]

  --events N          events in the main PostgreSQL database (default 1000000; env BENCH_EVENTS)
  --scenarios a,b     only these scenarios (default all; env BENCH_SCENARIOS): list, list-window-category,
                      search, list-venue, list-uncached, event-id, event-slug, venues, categories, create,
                      create-series (a weekly series of 104 occurrences; by default only with --series-share),
                      feed (one ~20,000-event iCalendar feed at a time, --rounds times: events/s and the
                      server's RSS growth), hostile-beside (the default list alone, then beside anonymous
                      and administrator creates with a pathological RRULE, far-future windows and 4
                      parallel full feeds: the list's ratio, /healthz p99 and the event loop's max delay;
                      quick on a small seed: --events 20000 --scenarios hostile-beside --skip-pglite
                      --skip-scaling)
  --duration S        seconds measured per scenario (default 10; env BENCH_DURATION)
  --warmup S          seconds of warm-up per scenario (default 3; env BENCH_WARMUP)
  --connections N     concurrent connections (default 32; env BENCH_CONNECTIONS)
  --scaling-events N  events of the scaling run's small database (default 10000)
  --pglite-events N   events of the PGlite run (default 100000; env BENCH_PGLITE_EVENTS)
  --series-share F    share of timed events seeded as series (0 < F <= 1, default none; issue 19: 0.05;
                      env BENCH_SERIES_SHARE): weekly/monthly for 1-2 years, some open-ended, into
                      cal_bench_<events>_series<percent>; then list, list-window-category and categories
                      are measured on it and on as many plain events (cal_bench_<events>_plain) back to
                      back, --rounds times, and printed as series/plain req/s ratios (median of rounds)
  --skip-pglite       no PGlite run (env BENCH_SKIP_PGLITE=1)
  --skip-scaling      no scaling run (env BENCH_SKIP_SCALING=1)
  --skip-ceilings     no ceiling measurements (env BENCH_SKIP_CEILINGS=1)
  --skip-sweep        no sweep: single requests, one at a time, over filter combinations and deep
                      pages the scenarios leave out, to show a plan gone wrong (env BENCH_SKIP_SWEEP=1)
  --skip-beside-writes  no run of the default list beside writes elsewhere (env BENCH_SKIP_BESIDE_WRITES=1):
                      each of 20 host-table commits/s, 20 commits/s in another database and 2 event
                      updates/s through the API, paired with a read-only list just before it
  --skip-hostile      no hostile-beside run in a full bench (env BENCH_SKIP_HOSTILE=1)
  --rounds N          paired rounds behind each ratio (default 3; env BENCH_ROUNDS): the default list
                      and its SQL ceiling, the 1M and small databases, and the series and plain databases,
                      measured back to back N times;
                      the ratios and the list p99 target are medians over them
  --keep              keep the bench databases afterwards
  --reuse             reuse databases kept by an earlier --keep run instead of seeding (iteration aid)
  --out FILE          JSON results (default bench/results/latest.json)
  --steady            steady-state mode instead of the scenarios above (issue 34; env BENCH_STEADY=1): seed,
                      measure list, list-window-category, categories, search and hot-list, write a history
                      through the API (--steady-writes creates, as many updates, a fifth as many trashes,
                      spread over categories, tags, venues and dates), measure them again (no VACUUM) and
                      report after/before ratios; then 16 clients write overlapping terms at once (5xx,
                      deadlocks, term counts against a recount)
  --import-events N   events written by calendar.events.import() into the main database in the scenario
                      import (named in --scenarios only; default 100000; env BENCH_IMPORT_EVENTS)
  --source-events N   events of the source served by the project in the scenario migrate-site (named in
                      --scenarios only; default 100000; env BENCH_SOURCE_EVENTS): timed migrate-site into
                      an empty calendar
  --steady-writes N   creates of the steady-state history (default 10000; env BENCH_STEADY_WRITES)

  DATABASE_URL        PostgreSQL server to use (default postgres://postgres@127.0.0.1:5432/test)
  BENCH_DB_PREFIX     prefix of the seeded databases' names (default cal_bench): benches run side by side
                      on one server must not drop each other's databases
  BENCH_SERVER_NODE_OPTIONS  NODE_OPTIONS for the calendar server process only (default none)
  BENCH_SERVER_NODE_ARGS     node command-line flags for the server, space-separated (default none)
  CAL_DB_POOL_SIZE           the server's PostgreSQL pool size (default: the example server's, 2 x cores + 2)
`

function num(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback
  const n = Number(value.replace(/[_,]/g, '').replace(/k$/i, '000').replace(/m$/i, '000000'))
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}: expected a positive number, got ${JSON.stringify(value)}`)
  return n
}

const truthy = (v: string | undefined) => v !== undefined && ['1', 'true', 'yes', 'on'].includes(v.toLowerCase())

/** Parses `argv` (after the script name) and the environment. */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const flags = new Map<string, string>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') continue
    if (arg === '--help' || arg === '-h') {
      console.log(HELP)
      process.exit(0)
    }
    if (!arg.startsWith('--')) throw new Error(`Unexpected argument ${arg}\n\n${HELP}`)
    const [key, inline] = arg.slice(2).split('=', 2) as [string, string | undefined]
    const boolean = key.startsWith('skip-') || key === 'keep' || key === 'reuse' || key === 'steady'
    flags.set(key, inline ?? (boolean ? '1' : (argv[++i] ?? '')))
  }
  const known = ['events', 'scenarios', 'duration', 'warmup', 'connections', 'scaling-events', 'pglite-events', 'series-share', 'skip-pglite', 'skip-scaling', 'skip-ceilings', 'skip-sweep', 'skip-beside-writes', 'skip-hostile', 'rounds', 'keep', 'reuse', 'out', 'steady', 'steady-writes', 'import-events', 'source-events']
  for (const key of flags.keys()) if (!known.includes(key)) throw new Error(`Unknown option --${key}\n\n${HELP}`)
  const get = (flag: string, envName: string) => flags.get(flag) ?? env[envName]
  const scenarios = get('scenarios', 'BENCH_SCENARIOS')
  return {
    events: Math.round(num('--events', get('events', 'BENCH_EVENTS'), 1_000_000)),
    scenarios: scenarios ? scenarios.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
    duration: num('--duration', get('duration', 'BENCH_DURATION'), 10),
    warmup: num('--warmup', get('warmup', 'BENCH_WARMUP'), 3),
    connections: Math.round(num('--connections', get('connections', 'BENCH_CONNECTIONS'), 32)),
    scalingEvents: Math.round(num('--scaling-events', get('scaling-events', 'BENCH_SCALING_EVENTS'), 10_000)),
    pgliteEvents: Math.round(num('--pglite-events', get('pglite-events', 'BENCH_PGLITE_EVENTS'), 100_000)),
    seriesShare: Math.min(1, Math.max(0, num('--series-share', get('series-share', 'BENCH_SERIES_SHARE'), 0))),
    skipPglite: truthy(get('skip-pglite', 'BENCH_SKIP_PGLITE')),
    skipScaling: truthy(get('skip-scaling', 'BENCH_SKIP_SCALING')),
    skipCeilings: truthy(get('skip-ceilings', 'BENCH_SKIP_CEILINGS')),
    skipSweep: truthy(get('skip-sweep', 'BENCH_SKIP_SWEEP')),
    skipBesideWrites: truthy(get('skip-beside-writes', 'BENCH_SKIP_BESIDE_WRITES')),
    skipHostile: truthy(get('skip-hostile', 'BENCH_SKIP_HOSTILE')),
    rounds: Math.round(num('--rounds', get('rounds', 'BENCH_ROUNDS'), 3)),
    adminUrl: env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test',
    keep: truthy(get('keep', 'BENCH_KEEP')),
    reuse: truthy(get('reuse', 'BENCH_REUSE')),
    out: get('out', 'BENCH_OUT') ?? new URL('../results/latest.json', import.meta.url).pathname,
    steady: truthy(get('steady', 'BENCH_STEADY')),
    steadyWrites: Math.round(num('--steady-writes', get('steady-writes', 'BENCH_STEADY_WRITES'), 10_000)),
    importEvents: Math.round(num('--import-events', get('import-events', 'BENCH_IMPORT_EVENTS'), 100_000)),
    sourceEvents: Math.round(num('--source-events', get('source-events', 'BENCH_SOURCE_EVENTS'), 100_000)),
  }
}

/** The machine, for the report. */
export function machine(): { cores: number; node: string; platform: string } {
  return { cores: availableParallelism(), node: process.version, platform: `${process.platform} ${process.arch}` }
}
