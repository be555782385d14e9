import type { ImportResult, MigrateSiteResult } from './bulk.js'
import type { SqlCeiling } from './ceilings.js'
import { HOSTILE_GOALS, type HostileBeside } from './hostile.js'
import type { FeedResult } from './feed.js'
import type { InterleavedResult } from './interleaved.js'
import type { LoadResult } from './load.js'
import type { SeedTimings } from './seed.js'
import { STEADY_GOAL, type SteadyResult } from './steady.js'
import type { SweepResult } from './sweep.js'
import type { WriterReport } from './writers.js'

export interface ScenarioResult extends LoadResult {
  name: string
  title: string
}

export interface RunResults {
  startedAt: string
  command: string
  machine: Record<string, unknown>
  options: Record<string, unknown>
  /** A timed migrate-site of a source served by the project (issue 33). */
  migrateSite?: MigrateSiteResult
  postgres?: {
    events: number
    migrate: number
    seed: SeedTimings
    statementsByPerPage: Record<string, number>
    scenarios: ScenarioResult[]
    sweep?: SweepResult[]
    /** The default list beside writes elsewhere, each paired with a read-only list measured just before. */
    besideWrites?: BesideWrites[]
    /** One ~20,000-event iCalendar feed at a time (issue 20). */
    feed?: FeedResult
    /** The default list alone and beside the hostile mix (issue 28). */
    hostileBeside?: HostileBeside
    /** `calendar.events.import()` into this database (issue 33). */
    bulkImport?: ImportResult
    ceilings?: {
      bare: LoadResult
      /** The SQL ceiling of the median round. */
      sql: SqlCeiling & { sql: string[] }
      sqlUncached?: SqlCeiling & { sql: string[] }
      /** The default list and the SQL ceiling measured back to back, with the list's share of the lower ceiling. */
      rounds: { list: LoadResult; sql: SqlCeiling; lower: number; fraction: number }[]
      /** Of the median round. */
      lower: number
      /** Median over the rounds. */
      fraction: number
    }
  }
  /** `small`/`large` hold the medians of p50, p99 and req/s over the paired rounds; the ratios are of those medians. */
  scaling?: {
    small: number
    large: number
    rounds: number
    scenarios: { name: string; small: ScenarioResult; large: ScenarioResult; p50Ratio: number; p99Ratio: number }[]
    /** The same paths, one caller alternating between the two servers request by request. */
    interleaved?: InterleavedResult[]
  }
  /** Issue 19: the list scenarios on the series database and on one of as many plain events, in paired rounds. */
  seriesVsPlain?: SeriesVsPlain
  /** Steady-state mode (issue 34): reads before and after a history of writes, then concurrent writers. */
  steady?: SteadyResult
  pglite?: { events: number; migrate: number; seed: SeedTimings; scenarios: ScenarioResult[] }
  targets: Target[]
  seconds: number
}

/** One pair of the writes-beside run: the read-only default list, then the same with `writer` committing meanwhile. */
export interface BesideWrites {
  name: string
  title: string
  readOnly: LoadResult
  withWrites: LoadResult
  writer: WriterReport
  /** withWrites req/s over readOnly req/s. */
  ratio: number
  /** The issue's floor for the ratio. */
  goal: number
}

/** The series database against the plain one: per scenario, each round's result on both and the req/s ratio (series / plain). */
export interface SeriesVsPlain {
  events: number
  seriesShare: number
  rounds: number
  /** Statements of single list requests (`statementProbe`) on each database. */
  statements: { series: Record<string, number>; plain: Record<string, number> }
  /**
   * `ratios`: series req/s / plain req/s per round, `ratio` their median. `cpuRatios`/`cpuRatio`: the
   * same of plain / series CPU ms per request (`serverCpu`), which other load on a shared
   * machine moves far less than req/s.
   */
  scenarios: { name: string; series: ScenarioResult[]; plain: ScenarioResult[]; ratios: number[]; ratio: number; cpuRatios: number[]; cpuRatio: number }[]
}

/** Issue 19's floor for the series database's req/s as a share of the plain one's. */
const SERIES_GOAL = 0.8
/** Issue 19's ceiling for creating a two-year weekly series against creating one event. */
const SERIES_CREATE_GOAL = 5

export interface Target {
  name: string
  goal: string
  value: string
  met: boolean | undefined
}

/** The median of `xs` (the mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/** Every p99 of the default list at the main size: its scenario run and the ceiling rounds. */
function listP99s(r: RunResults): number[] {
  const list = r.postgres?.scenarios.find((s) => s.name === 'list')
  return [...(list ? [list.p99] : []), ...(r.postgres?.ceilings?.rounds.map((x) => x.list.p99) ?? [])]
}

/** A number with `digits` decimals; `–` for none. */
export const f = (n: number | undefined, digits = 1) => (n === undefined || !Number.isFinite(n) ? '–' : n.toFixed(digits))
/** A ratio as `1.56x` (`–x` when a side measured nothing). */
export const times = (n: number) => `${f(n, 2)}x`
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)}`

export const SCENARIO_HEADER = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'SQL/req', 'RSS MB', 'non-2xx/err', 'CPU ms/req srv+pg+gen', 'busy']

const WIDTHS = [38, 8, 8, 8, 8, 7, 12, 22, 5]

/** One line of the live scenario table (fixed widths, so lines print as results arrive). */
export function scenarioLine(cells: string[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(WIDTHS[i]!) : c.padStart(WIDTHS[i]!))).join('  ')
}

/** The bulk import's line (issue 33). */
export function importLine(r: ImportResult): string {
  const c = r.checks
  const ok = c.failed === 0 && c.created === r.events && c.rowChanges === r.events && c.occurrencesOk && c.countsOk
  return `  ${f(r.perSecond, 0)} events/s (${r.events} in ${f(r.seconds, 1)} s, batches of ${r.batchSize}); checks ${ok ? 'pass' : 'FAIL'}: created ${c.created}, failed ${c.failed}, change-log rows ${c.rowChanges}, occurrences ${c.occurrencesOk ? 'right' : 'WRONG'}, term counts ${c.countsOk ? 'right' : 'WRONG'}`
}

/** The timed migrate-site's line (issue 33). */
export function migrateSiteLine(r: MigrateSiteResult): string {
  const failed = Object.values(r.counts).reduce((n, c) => n + c.failed, 0)
  const { phases: p, cpu: c, counts } = r
  const made = (k: string) => counts[k]?.created ?? 0
  return (
    `  ${r.targetEvents} of ${r.sourceEvents} events copied in ${f(r.seconds, 1)} s (${f(r.eventsPerSecond, 0)} events/s), ${failed} item(s) refused\n` +
    `  phases: terms ${f(p.terms, 1)} s (${made('categories')} categories, ${made('tags')} tags), venues ${f(p.venues, 1)} s (${made('venues')}), ` +
    `organizers ${f(p.organizers, 1)} s (${made('organizers')}), events ${f(p.events, 1)} s\n` +
    `  CPU ms per event: migrate-site ${f(c.migrate, 3)}, target PostgreSQL ${f(c.targetPostgres, 3)}, source server ${f(c.sourceServer, 3)}, source PostgreSQL ${f(c.sourcePostgres, 3)}`
  )
}

export function scenarioRow(r: ScenarioResult): string[] {
  const c = r.cpu
  return [
    r.title, f(r.rps, 0), f(r.p50, 1), f(r.p99, 1), f(r.sqlPerRequest, 2), mb(r.rssPeak), `${r.non2xx}/${r.errors}`,
    `${f(c.server, 2)}+${f(c.postgres, 2)}+${f(c.loadgen, 2)}`, `${f(c.busy * 100, 0)}%`,
  ]
}

/** A plain-text table, columns padded (first left-aligned, the rest right-aligned). */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')
}

/** The same table in Markdown. */
export function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n')
}

/** Sweep requests that count as slow in the summary line, in ms (single requests on an idle server). */
const SWEEP_SLOW_MS = 25

export const SWEEP_HEADER = ['request', 'status', 'total', 'first ms', 'warm ms', 'warm max ms']

export function sweepRows(rows: SweepResult[]): string[][] {
  return rows.map((x) => [x.path, String(x.status), x.total === undefined ? '–' : String(x.total), f(x.first), f(x.warm), f(x.warmMax)])
}

export function sweepSummary(rows: SweepResult[]): string {
  const slow = rows.filter((x) => x.warm > SWEEP_SLOW_MS)
  const worst = [...rows].sort((a, b) => b.warm - a.warm)[0]
  return `${slow.length} of ${rows.length} over ${SWEEP_SLOW_MS} ms warm; slowest ${worst ? `${f(worst.warm)} ms (${worst.path})` : '–'}`
}

/** The sweep as a plain-text table with a summary line. */
export function sweepTable(rows: SweepResult[]): string {
  return `${table(SWEEP_HEADER, sweepRows(rows))}\n${sweepSummary(rows)}`
}

const BESIDE_HEADER = ['default list', 'read-only req/s', 'p99 ms', 'with writes req/s', 'p99 ms', 'ratio', 'goal', 'writes/s (errors)']

/** The writes-beside pairs as a table (`table` or `markdownTable`). */
export function besideWritesTable(rows: BesideWrites[], as: (header: string[], rows: string[][]) => string = table): string {
  return as(
    BESIDE_HEADER,
    rows.map((w) => [w.title, f(w.readOnly.rps, 0), f(w.readOnly.p99), f(w.withWrites.rps, 0), f(w.withWrites.p99), f(w.ratio, 2), `>= ${w.goal}`, `${f(w.writer.perSecond)} (${w.writer.errors})`]),
  )
}

export function seedLine(events: number, migrate: number, t: SeedTimings): string {
  return (
    `seeded ${events.toLocaleString('en-US')} events in ${f(t.total)} s ` +
    `(base ${f(t.base)} s, load ${f(t.load)} s, indexes ${f(t.index)} s, counts+vacuum+analyze ${f(t.finish)} s; migrations ${f(migrate, 2)} s)`
  )
}

/** A share (0-1) in percent, at most two decimals (`0.05` → `5`). */
export const percent = (share: number) => String(Number((share * 100).toFixed(2)))

/** `per_page=1: 1, per_page=5: 1, …` */
export const probeText = (probe: Record<string, number>) => Object.entries(probe).map(([k, v]) => `${k}: ${v}`).join(', ')

const SERIES_HEADER = ['scenario', 'series req/s', 'plain req/s', 'ratio', 'series p99 ms', 'plain p99 ms', 'series SQL/req', 'CPU ms/req series', 'plain', 'CPU ratio']

/** Server + PostgreSQL CPU ms per request: the backends of the server's own database when measured, else every PostgreSQL process. */
export const serverCpu = (r: LoadResult) => r.cpu.server + (r.cpu.postgresOwn ?? r.cpu.postgres)

/** The series-vs-plain rounds as a table (`table` or `markdownTable`), with the median ratio of each scenario. */
export function seriesTable(s: SeriesVsPlain, as: (header: string[], rows: string[][]) => string = table): string {
  const rows: string[][] = []
  for (const x of s.scenarios) {
    x.ratios.forEach((ratio, i) => {
      const [a, b] = [x.series[i]!, x.plain[i]!]
      rows.push([`${x.name}, round ${i + 1}`, f(a.rps, 0), f(b.rps, 0), f(ratio, 2), f(a.p99), f(b.p99), f(a.sqlPerRequest, 2), f(serverCpu(a), 2), f(serverCpu(b), 2), f(x.cpuRatios[i], 2)])
    })
    rows.push([`${x.name}: median ratio`, '', '', f(x.ratio, 2), '', '', '', '', '', f(x.cpuRatio, 2)])
  }
  return as(SERIES_HEADER, rows)
}

/** Create req/s over create-series req/s, and the same of CPU ms per request (server + PostgreSQL), when both ran. */
export function seriesCreateCost(scenarios: readonly ScenarioResult[]): { rpsRatio: number; cpuRatio: number } | undefined {
  const one = scenarios.find((s) => s.name === 'create')
  const series = scenarios.find((s) => s.name === 'create-series')
  if (!one || !series) return undefined
  return { rpsRatio: one.rps / series.rps, cpuRatio: serverCpu(series) / serverCpu(one) }
}

/** The issue 18 scenarios (hot-read cache on) that are measured against the bare node:http ceiling, with their floors. */
const CACHE_GOALS: Record<string, number> = { 'hot-list': 0.25, conditional: 0.4 }

/** The cached scenarios' req/s as shares of the bare node:http ceiling of the same run. */
export function cacheShares(r: RunResults): { name: string; title: string; rps: number; bare: number; fraction: number; goal: number }[] {
  const bare = r.postgres?.ceilings?.bare.rps
  if (!bare) return []
  return (r.postgres?.scenarios ?? [])
    .filter((s) => CACHE_GOALS[s.name] !== undefined)
    .map((s) => ({ name: s.name, title: s.title, rps: s.rps, bare, fraction: s.rps / bare, goal: CACHE_GOALS[s.name]! }))
}

/** Evaluates the issue's targets against the results. */
export function targets(r: RunResults): Target[] {
  const out: Target[] = []
  const pgRun = r.postgres
  const list = pgRun?.scenarios.find((s) => s.name === 'list')
  if (pgRun?.ceilings) {
    const c = pgRun.ceilings
    const each = c.rounds.map((x) => `${f(x.fraction * 100, 0)}`).join('/')
    out.push({ name: 'default list vs lower ceiling (median of rounds)', goal: '>= 50%', value: `${f(c.fraction * 100, 0)}% (${each})`, met: c.fraction >= 0.5 })
  }
  for (const share of cacheShares(r)) out.push({ name: `${share.title} vs bare node:http`, goal: `>= ${share.goal * 100}%`, value: `${f(share.fraction * 100, 0)}% (${f(share.rps, 0)} / ${f(share.bare, 0)} req/s)`, met: share.fraction >= share.goal })
  const p99s = listP99s(r)
  if (list) {
    const p99 = median(p99s)
    const name = p99s.length > 1 ? `default list p99 (median of ${p99s.length} runs)` : 'default list p99'
    out.push({ name, goal: '<= 25 ms', value: `${f(p99)} ms${p99s.length > 1 ? ` (${p99s.map((x) => f(x, 0)).join('/')})` : ''}`, met: p99 <= 25 })
  }
  if (pgRun) {
    const lists = pgRun.scenarios.filter((s) => s.name.startsWith('list') || s.name === 'search')
    const perPage = Object.values(pgRun.statementsByPerPage)
    const worst = Math.max(...lists.map((s) => s.sqlPerRequest ?? 0), ...perPage)
    // Scenario figures are averages over thousands of requests; the probes are exact single requests.
    out.push({ name: 'SQL statements per list request (any per_page)', goal: '<= 3', value: f(worst, 2), met: worst <= 3.005 })
  }
  for (const x of r.steady?.scenarios ?? []) {
    out.push({ name: `steady state: ${x.name} after/before the history`, goal: `>= ${STEADY_GOAL}`, value: `${f(x.ratio, 2)} (${f(x.before.rps, 0)} -> ${f(x.after.rps, 0)} req/s)`, met: x.ratio >= STEADY_GOAL })
  }
  if (r.steady) {
    const c = r.steady.concurrency
    out.push({ name: `${c.clients} concurrent writers: 5xx / deadlocks / term counts off a recount`, goal: '0 / 0 / 0', value: `${c.status5xx} / ${c.deadlocks} / ${c.countMismatches}`, met: c.status5xx + c.deadlocks + c.countMismatches === 0 })
  }
  const sp = r.seriesVsPlain
  for (const x of sp?.scenarios ?? []) {
    out.push({
      name: `${x.name}: ${percent(sp!.seriesShare)}% series / plain, ${sp!.events.toLocaleString('en-US')} events (median of rounds)`,
      goal: `>= ${SERIES_GOAL * 100}%`,
      value: `${f(x.ratio * 100, 0)}% (${x.ratios.map((v) => f(v * 100, 0)).join('/')}); by CPU ms/req ${f(x.cpuRatio * 100, 0)}%`,
      met: x.ratio >= SERIES_GOAL,
    })
  }
  if (sp) {
    const lists = sp.scenarios.filter((x) => x.name.startsWith('list')).flatMap((x) => x.series)
    const worst = Math.max(...lists.map((x) => x.sqlPerRequest ?? 0), ...Object.values(sp.statements.series))
    out.push({ name: 'SQL statements per list request, series database', goal: '<= 3', value: f(worst, 2), met: worst <= 3.005 })
  }
  const cost = pgRun && seriesCreateCost(pgRun.scenarios)
  if (cost) {
    out.push({
      name: 'create-series cost: create req/s / create-series req/s',
      goal: `< ${SERIES_CREATE_GOAL}x`,
      value: Number.isFinite(cost.rpsRatio)
        ? `${times(cost.rpsRatio)} (CPU ms/req ratio ${times(cost.cpuRatio)})`
        : 'no create-series request finished in the measured seconds (raise --duration)',
      met: cost.rpsRatio < SERIES_CREATE_GOAL,
    })
  }
  const h = pgRun?.hostileBeside
  if (h) {
    const g = HOSTILE_GOALS
    out.push({ name: 'default list beside the hostile mix / alone', goal: `>= ${g.ratio}`, value: `${f(h.ratio, 2)} (${f(h.beside.rps, 0)} / ${f(h.alone.rps, 0)} req/s)`, met: h.ratio >= g.ratio })
    out.push({ name: '/healthz p99 beside the hostile mix', goal: `<= ${g.healthzP99Ms} ms`, value: `${f(h.probeBeside.p99)} ms`, met: h.probeBeside.p99 <= g.healthzP99Ms })
    out.push({ name: 'event loop max delay beside the hostile mix', goal: `<= ${g.loopMaxDelayMs} ms`, value: `${f(h.probeBeside.loopMaxDelayMs)} ms`, met: h.probeBeside.loopMaxDelayMs <= g.loopMaxDelayMs })
  }
  for (const w of pgRun?.besideWrites ?? []) {
    out.push({ name: `default list ${w.title} / read-only`, goal: `>= ${w.goal}`, value: `${f(w.ratio, 2)} (${f(w.withWrites.rps, 0)} / ${f(w.readOnly.rps, 0)} req/s)`, met: w.ratio >= w.goal })
  }
  for (const s of r.scaling?.scenarios ?? []) {
    const worst = Math.max(s.p50Ratio, s.p99Ratio)
    out.push({
      name: `${s.name} latency ${r.scaling!.large.toLocaleString('en-US')} / ${r.scaling!.small.toLocaleString('en-US')} events`,
      goal: '<= 1.5x',
      value: `p50 ${f(s.p50Ratio, 2)}x, p99 ${f(s.p99Ratio, 2)}x`,
      met: worst <= 1.5,
    })
  }
  if (pgRun) {
    const note = pgRun.events === 1_000_000 ? '' : ` (${pgRun.events.toLocaleString('en-US')} events)`
    out.push({ name: `seeding${note}`, goal: '<= 60 s for 1M', value: `${f(pgRun.seed.total)} s`, met: pgRun.events >= 1_000_000 ? pgRun.seed.total <= 60 : undefined })
    if (pgRun.feed) {
      const fr = pgRun.feed
      const n = fr.rounds[0]!.events
      out.push({ name: `feed of ${n.toLocaleString('en-US')} events: server RSS growth (first round)`, goal: '< 50 MB', value: `${mb(fr.rssGrowth)} MB`, met: fr.rssGrowth < 50 * 1024 * 1024 })
      out.push({ name: `feed of ${n.toLocaleString('en-US')} events: output (median of rounds)`, goal: '>= 2,000 events/s', value: `${f(fr.eventsPerSecond, 0)} events/s`, met: fr.eventsPerSecond >= 2000 })
    }
    if (pgRun.scenarios.length > 0) {
      const rss = Math.max(...pgRun.scenarios.map((s) => s.rssPeak))
      out.push({ name: 'server RSS under load (peak)', goal: '<= 200 MB', value: `${mb(rss)} MB`, met: rss <= 200 * 1024 * 1024 })
    }
  }
  // Issue 33: writes as cheap as reads, bulk import at database speed.
  for (const name of ['create', 'update']) {
    const w = pgRun?.scenarios.find((s) => s.name === name)
    if (!w || !list) continue
    const cpu = (x: LoadResult) => x.cpu.server + (x.cpu.postgresOwn ?? x.cpu.postgres)
    if (w.sqlPerRequest !== undefined) out.push({ name: `SQL statements per ${name} (HTTP, token check included)`, goal: '<= 6', value: f(w.sqlPerRequest, 2), met: w.sqlPerRequest <= 6.005 })
    out.push({ name: `${name}: server + PostgreSQL CPU per request vs the default list's`, goal: '<= 3x', value: `${f(cpu(w) / cpu(list), 2)}x (${f(cpu(w), 2)} / ${f(cpu(list), 2)} ms)`, met: cpu(w) <= 3 * cpu(list) })
    out.push({ name: `${name}: req/s vs the default list's`, goal: '>= 0.4', value: `${f(w.rps / list.rps, 2)} (${f(w.rps, 0)} / ${f(list.rps, 0)})`, met: w.rps >= 0.4 * list.rps })
  }
  if (pgRun?.bulkImport) {
    const b = pgRun.bulkImport
    out.push({ name: `bulk import into ${pgRun.events.toLocaleString('en-US')} events`, goal: '>= 5,000 events/s', value: `${f(b.perSecond, 0)} events/s`, met: b.perSecond >= 5000 })
  }
  return out
}

/** The feed rounds as lines: events, bytes, time, events/s, RSS before and peak. */
export function feedLines(r: FeedResult, render: (header: string[], rows: string[][]) => string = table): string {
  return render(
    ['round', 'events', 'MB', 'first byte ms', 'seconds', 'events/s', 'RSS before MB', 'RSS peak MB', 'growth MB'],
    r.rounds.map((x, i) => [String(i + 1), String(x.events), f(x.bytes / 1024 / 1024, 1), f(x.firstByteMs, 0), f(x.seconds, 2), f(x.eventsPerSecond, 0), mb(x.rssBefore), mb(x.rssPeak), mb(x.rssPeak - x.rssBefore)]),
  )
}

export function targetLines(ts: Target[]): string {
  return table(
    ['target', 'goal', 'measured', 'met'],
    ts.map((t) => [t.name, t.goal, t.value, t.met === undefined ? 'n/a' : t.met ? 'yes' : 'NO']),
  )
}
