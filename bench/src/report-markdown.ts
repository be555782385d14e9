// The run as Markdown, for BENCHMARKS.md, and the hostile-neighbour lines (the tables are report.ts').
import { HOSTILE_GOALS, type HostileBeside } from './hostile.js'
import { SCENARIO_HEADER, SWEEP_HEADER, besideWritesTable, f, feedLines, importLine, markdownTable, migrateSiteLine, percent, probeText, scenarioRow, seedLine, seriesTable, sweepRows, sweepSummary, table, type RunResults } from './report.js'
import { cpuOf, STEADY_GOAL, type SteadyResult } from './steady.js'

/** Markdown of a whole run, for BENCHMARKS.md. */
export function markdown(r: RunResults): string {
  const parts: string[] = []
  parts.push(`Run ${r.startedAt}, ${f(r.seconds / 60)} min: \`${r.command}\``)
  parts.push(`Machine: ${Object.entries(r.machine).map(([k, v]) => `${k} ${v}`).join(', ')}`)
  if (r.postgres) {
    const p = r.postgres
    parts.push(`### PostgreSQL, ${p.events.toLocaleString('en-US')} events\n\n${seedLine(p.events, p.migrate, p.seed)}`)
    parts.push(markdownTable(SCENARIO_HEADER, p.scenarios.map(scenarioRow)))
    parts.push(`Statements per list request by per_page: ${probeText(p.statementsByPerPage)}`)
    if (p.besideWrites) parts.push(`#### Writes beside the default list\n\n${besideWritesTable(p.besideWrites, markdownTable)}`)
    if (p.bulkImport) parts.push(`#### Bulk import (calendar.events.import)\n\n${importLine(p.bulkImport).trim()}`)
    if (p.hostileBeside) parts.push(`#### The default list beside the hostile mix\n\n${hostileLines(p.hostileBeside, markdownTable)}`)
    if (p.feed) parts.push(`#### iCalendar feed, one download at a time\n\n\`${p.feed.path}\`\n\n${feedLines(p.feed, markdownTable)}`)
    if (p.sweep) parts.push(`#### Sweep: single requests, one at a time\n\n${markdownTable(SWEEP_HEADER, sweepRows(p.sweep))}\n\n${sweepSummary(p.sweep)}.`)
    if (p.ceilings) {
      const c = p.ceilings
      const rows = [
        ['bare node:http, same bytes', f(c.bare.rps, 0), f(c.bare.p50), f(c.bare.p99)],
        [`list SQL via pg (${c.sql.statements} statement(s), as issued warm)`, f(c.sql.requestsPerSecond, 0), f(c.sql.p50), f(c.sql.p99)],
      ]
      if (c.sqlUncached) {
        rows.push([`list SQL via pg (${c.sqlUncached.statements} statement(s) as a first request, total counted every time)`, f(c.sqlUncached.requestsPerSecond, 0), f(c.sqlUncached.p50), f(c.sqlUncached.p99)])
      }
      parts.push(`#### Ceilings\n\n${markdownTable(['ceiling', 'req/s', 'p50 ms', 'p99 ms'], rows)}`)
      parts.push(
        `Rounds, each the default list then its SQL ceiling, back to back:\n\n` +
          markdownTable(
            ['round', 'list req/s', 'list p50 ms', 'list p99 ms', 'SQL ceiling req/s', 'share of the lower ceiling'],
            c.rounds.map((x, i) => [String(i + 1), f(x.list.rps, 0), f(x.list.p50), f(x.list.p99), f(x.sql.requestsPerSecond, 0), `${f(x.fraction * 100, 0)}%`]),
          ),
      )
      parts.push(`Default list: **${f(c.fraction * 100, 0)}%** of the lower ceiling (median of ${c.rounds.length} rounds).`)
    }
  }
  if (r.steady) parts.push(steadyMarkdown(r.steady))
  if (r.migrateSite) parts.push(`### migrate-site (a source served by the project)\n\n${migrateSiteLine(r.migrateSite).trim()}`)
  if (r.seriesVsPlain) {
    const s = r.seriesVsPlain
    parts.push(
      `### Series vs plain: ${s.events.toLocaleString('en-US')} events, ${percent(s.seriesShare)}% series, against as many plain events\n\n` +
        `Each round measures the series then the plain database, back to back; ratio = series req/s / plain req/s; ` +
        `CPU ratio = plain / series CPU ms per request of the server and its database's PostgreSQL backends.\n\n` +
        `Statements per list request, series: ${probeText(s.statements.series)}; plain: ${probeText(s.statements.plain)}\n\n` +
        seriesTable(s, markdownTable),
    )
  }
  if (r.scaling) {
    const s = r.scaling
    parts.push(
      `### Scaling: ${s.small.toLocaleString('en-US')} vs ${s.large.toLocaleString('en-US')} events\n\n` +
        `Medians of ${s.rounds} rounds, each measuring both databases back to back.\n\n` +
        markdownTable(
          ['scenario', `p50 ${s.small}`, `p50 ${s.large}`, 'p50 ratio', `p99 ${s.small}`, `p99 ${s.large}`, 'p99 ratio', `req/s ${s.small}`, `req/s ${s.large}`],
          s.scenarios.map((x) => [x.name, f(x.small.p50), f(x.large.p50), f(x.p50Ratio, 2), f(x.small.p99), f(x.large.p99), f(x.p99Ratio, 2), f(x.small.rps, 0), f(x.large.rps, 0)]),
        ),
    )
    if (s.interleaved) {
      parts.push(
        `One caller, requests alternating between the two servers (${s.interleaved[0]?.requests ?? 0} each side):\n\n` +
          markdownTable(
            ['scenario', `p50 ${s.small}`, `p50 ${s.large}`, 'p50 ratio', `p99 ${s.small}`, `p99 ${s.large}`, 'p99 ratio'],
            s.interleaved.map((x) => [x.name, f(x.small.p50), f(x.large.p50), f(x.p50Ratio, 2), f(x.small.p99), f(x.large.p99), f(x.p99Ratio, 2)]),
          ),
      )
    }
  }
  if (r.pglite) {
    const p = r.pglite
    parts.push(
      `### PGlite (embedded), ${p.events.toLocaleString('en-US')} events\n\n${seedLine(p.events, p.migrate, p.seed)}\n\n` +
        'PGlite runs inside the server process: its CPU is in the server figure, and its memory in the RSS.',
    )
    parts.push(markdownTable(SCENARIO_HEADER, p.scenarios.map(scenarioRow)))
  }
  parts.push(`### Targets\n\n${markdownTable(['target', 'goal', 'measured', 'met'], r.targets.map((t) => [t.name, t.goal, t.value, t.met === undefined ? 'n/a' : t.met ? 'yes' : '**no**']))}`)
  return parts.join('\n\n') + '\n'
}

/** The hostile-beside scenario: the list alone and beside, the /healthz probe, what each hostile kind got. */
export function hostileLines(h: HostileBeside, as: (header: string[], rows: string[][]) => string = table): string {
  const probeCells = (p: HostileBeside['probeAlone']) => [f(p.p50), f(p.p99), f(p.max), f(p.loopMaxDelayMs), f(p.loopP99DelayMs)]
  const phases = as(
    ['phase', 'list req/s', 'list p99 ms', '/healthz p50 ms', '/healthz p99 ms', '/healthz max ms', 'loop max delay ms', 'loop p99 delay ms'],
    [
      ['alone', f(h.alone.rps, 0), f(h.alone.p99), ...probeCells(h.probeAlone)],
      ['beside the mix', f(h.beside.rps, 0), f(h.beside.p99), ...probeCells(h.probeBeside)],
    ],
  )
  const kinds = as(
    ['hostile request', 'sent', 'answers', 'slowest ms'],
    h.kinds.map((k) => [k.name, String(k.sent), Object.entries(k.statuses).map(([s, n]) => `${s}: ${n}`).join(', '), f(k.maxMs, 0)]),
  )
  const g = HOSTILE_GOALS
  return `${phases}\n\n${kinds}\n\nlist beside / alone ${f(h.ratio, 2)} (goal >= ${g.ratio}); /healthz p99 ${f(h.probeBeside.p99)} ms (goal <= ${g.healthzP99Ms}); loop max delay ${f(h.probeBeside.loopMaxDelayMs)} ms (goal <= ${g.loopMaxDelayMs}). Feeds: ${h.feedPath} (a day earlier per request: no kept answer).`
}

/** The steady-state run as markdown: the history, each read before and after it, the concurrent writers. */
function steadyMarkdown(st: SteadyResult): string {
  const h = st.history
  const c = st.concurrency
  return [
    `### Steady state`,
    `History through the API: ${h.creates} creates, ${h.updates} updates, ${h.trashes} trashes in ${f(h.seconds, 0)} s (${f(h.perSecond, 0)}/s, ${h.failed} failed); afterwards the change log held ${h.logRows} rows and terms ${h.deadTerms} dead rows (no VACUUM).`,
    markdownTable(
      ['scenario', 'before req/s', 'p99 ms', 'after req/s', 'p99 ms', 'after/before', 'goal', 'CPU ms/req before', 'after', 'before/after by CPU'],
      st.scenarios.map((x) => [x.name, f(x.before.rps, 0), f(x.before.p99), f(x.after.rps, 0), f(x.after.p99), f(x.ratio, 2), `>= ${STEADY_GOAL}`, f(cpuOf(x.before), 2), f(cpuOf(x.after), 2), f(cpuOf(x.before) / cpuOf(x.after), 2)]),
    ),
    `${c.clients} clients updating, creating and trashing events with overlapping terms: ${c.operations} writes in ${f(c.seconds, 1)} s, ${c.status5xx} 5xx, ${c.deadlocks} deadlocks, ${c.countMismatches} term counts off a recount (${c.other4xx} other non-2xx).`,
  ].join('\n\n')
}
