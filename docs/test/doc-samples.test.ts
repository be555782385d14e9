import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scratchDatabase } from '../../test-support/scratch-db.js'
import { commandsOf, documentedFiles, fencesOf, type Fence, type ShellCommand } from './fences.js'
import { keyParts, pnpmProblem } from './shell-keys.js'

// Docs that cannot drift (issue 29, item 10): every fenced block of README.md, the packages' and
// examples' READMEs and docs/*.md is compiled, parsed or run here, or names the test that runs it;
// the figures the docs give are computed here from the code and a real database.
//
// Conventions for doc writers (the info string is the rest of the opening fence's line):
//   ```ts                    a complete module: it must compile strict against the workspace packages
//   ```ts fragment=a,b       compiled after the named preludes below (`calendar`, `app`, …)
//   ```json                  must parse
//   ```text                  output or URLs shown to the reader; not run
//   ```sh run=<runner>       run by this file (runners below: curl-tour, migrate-site,
//                            backup-restore, first-start, commands)
//   ```sh                    every command carries `# [test: path/to/file.test.ts]` (that file must
//                            exist and mention the command's variables, subcommands and flags) or
//                            `# [by hand: why]` (only for what cannot run here)
//   ```<other>  [test: …] or [by hand: …] in the info string.

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const TSC = join(ROOT, 'node_modules/.bin/tsc')
const FENCES = fencesOf(ROOT, documentedFiles(ROOT))
const where = (fence: { file: string; line: number }) => `${fence.file}:${fence.line}`

/** What a `ts fragment=…` block may assume, by name. */
const PRELUDES: Record<string, string> = {
  calendar: `import type { Calendar } from '@cal-events/core'\ndeclare const calendar: Calendar`,
  app: `import type { Express } from 'express'\ndeclare const app: Express`,
  shuttingDown: `declare let shuttingDown: boolean`,
  importer: `import type { EventInput } from '@cal-events/core'\ndeclare const vevent: { uid: string }\ndeclare const input: EventInput`,
  handler: `import type { createFetchHandler } from '@cal-events/http-fetch'\ndeclare const handler: ReturnType<typeof createFetchHandler>`,
}

const KNOWN_LANGS = new Set(['ts', 'typescript', 'sh', 'bash', 'json', 'text'])
const TEST_TAG = /\[test: ([^\]]+)\]/
const BY_HAND_TAG = /\[by hand: [^\]]+\]/

function attr(fence: Fence, name: string): string | undefined {
  return new RegExp(`(?:^|\\s)${name}=(\\S+)`).exec(fence.attrs)?.[1]
}

describe('every sample in the docs is compiled, parsed or run', () => {
  it('every fenced block says what it is', () => {
    const untyped = FENCES.filter((f) => !KNOWN_LANGS.has(f.lang) && !TEST_TAG.test(f.attrs) && !BY_HAND_TAG.test(f.attrs))
    expect(untyped.map((f) => `${where(f)} \`\`\`${f.lang} ${f.attrs}`)).toEqual([])
    const fragments = FENCES.flatMap((f) => (attr(f, 'fragment') ?? '').split(',').filter(Boolean).filter((name) => !(name in PRELUDES)).map((name) => `${where(f)}: no prelude "${name}"`))
    expect(fragments).toEqual([])
  })

  it('JSON blocks parse', () => {
    const bad: string[] = []
    for (const fence of FENCES.filter((f) => f.lang === 'json')) {
      try {
        JSON.parse(fence.body)
      } catch (err) {
        bad.push(`${where(fence)}: ${(err as Error).message}`)
      }
    }
    expect(bad).toEqual([])
  })

  it('TypeScript blocks compile (strict, each its own module) against the workspace packages', async () => {
    const dir = join(ROOT, 'docs/test/.samples')
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    const origin = new Map<string, { fence: Fence; offset: number }>()
    for (const fence of FENCES.filter((f) => f.lang === 'ts' || f.lang === 'typescript')) {
      const prelude = (attr(fence, 'fragment') ?? '').split(',').filter(Boolean).map((name) => PRELUDES[name]).join('\n')
      const name = `${fence.file.replace(/[^a-z0-9]+/gi, '-')}-${fence.line}.ts`
      const head = prelude ? `${prelude}\n` : ''
      writeFileSync(join(dir, name), `${head}${fence.body}`)
      // Line n of the block is line fence.line + n of the Markdown file.
      origin.set(name, { fence, offset: fence.line - (head.split('\n').length - 1) })
    }
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: '../../../tsconfig.base.json',
        compilerOptions: {
          noEmit: true,
          declaration: false,
          sourceMap: false,
          moduleDetection: 'force',
          // Packages the samples import that only an example depends on.
          paths: {
            'express-session': ['../../../examples/express-host/node_modules/@types/express-session/index.d.ts'],
            hono: ['../../../packages/http-fetch/node_modules/hono/dist/types/index.d.ts'],
          },
        },
        include: ['*.ts'],
      }),
    )
    const result = await run(TSC, ['-p', join(dir, 'tsconfig.json')], { cwd: ROOT }).then(
      () => '',
      (err: { stdout: string; stderr: string }) => `${err.stdout}${err.stderr}`,
    )
    // tsc names the sample file; point at the Markdown line instead.
    const errors = result
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const m = /^(?:docs\/test\/\.samples\/)?([^(]+\.ts)\((\d+),(\d+)\): (.*)$/.exec(line)
        const source = m && origin.get(m[1]!)
        return source ? `${source.fence.file}:${source.offset + Number(m[2])}: ${m[4]}` : line
      })
    rmSync(dir, { recursive: true, force: true })
    expect(errors).toEqual([])
  }, 120_000)

  it('every shell command is run here, or names a test that runs it, or says why it is run by hand', () => {
    const problems: string[] = []
    for (const fence of FENCES.filter((f) => f.lang === 'sh' || f.lang === 'bash')) {
      const runner = attr(fence, 'run')
      if (runner) {
        if (!(runner in RUNNERS)) problems.push(`${where(fence)}: no runner "${runner}" in docs/test/doc-samples.test.ts`)
        continue
      }
      for (const command of commandsOf(fence)) {
        const problem = tagProblem(command)
        if (problem) problems.push(`${command.fence.file}:${command.line}: ${problem}`)
      }
    }
    expect(problems).toEqual([])
  })

  it('pnpm commands name packages, scripts and binaries that exist', () => {
    const problems: string[] = []
    for (const fence of FENCES.filter((f) => f.lang === 'sh' || f.lang === 'bash')) {
      for (const command of commandsOf(fence)) {
        const problem = pnpmProblem(ROOT, command.text)
        if (problem) problems.push(`${command.fence.file}:${command.line}: ${problem}`)
      }
    }
    expect(problems).toEqual([])
  })

  it('every runner of this file has its block', () => {
    const used = new Set(FENCES.map((f) => attr(f, 'run')).filter(Boolean))
    expect(Object.keys(RUNNERS).filter((name) => !used.has(name))).toEqual([])
  })
})

/** Why a command's tag does not hold, or undefined when it does. */
function tagProblem(command: ShellCommand): string | undefined {
  const tag = TEST_TAG.exec(command.comment) ?? TEST_TAG.exec(command.fence.attrs)
  if (!tag) {
    if (BY_HAND_TAG.test(command.comment) || BY_HAND_TAG.test(command.fence.attrs)) return undefined
    return `\`${command.text}\` is neither run by docs/test/doc-samples.test.ts (\`\`\`sh run=…) nor tagged # [test: path] or # [by hand: why]`
  }
  const paths = tag[1]!.split(',').map((p) => p.trim().replace(/^`|`$/g, ''))
  const missing = paths.filter((p) => !existsSync(join(ROOT, p)))
  if (missing.length) return `names ${missing.join(', ')}, which does not exist (give the path from the repository root)`
  const text = paths.map((p) => readFileSync(join(ROOT, p), 'utf8')).join('\n')
  const absent = keyParts(command.text).filter((key) => !text.includes(key))
  if (absent.length) return `\`${command.text}\`: ${paths.join(', ')} never mentions ${absent.map((k) => `"${k}"`).join(', ')}`
  return undefined
}

/** The blocks this file runs itself, by the `run=` name in their info string. */
const RUNNERS: Record<string, true> = { 'curl-tour': true, 'migrate-site': true, 'backup-restore': true, 'first-start': true, commands: true }

const fencesRun = (name: string) => FENCES.filter((f) => attr(f, 'run') === name)

describe('run=curl-tour: the README tour against the example server on a fresh database', () => {
  const database = scratchDatabase('doc_tour')
  let server: import('@cal-events/cli').CalendarServer
  beforeAll(async () => {
    await database.create()
    const { startServer, loadConfig } = await import('@cal-events/cli')
    server = await startServer(loadConfig({ DATABASE_URL: database.url, PORT: '0', CAL_DEMO: '1', CAL_LOG_LEVEL: 'silent' }))
  })
  afterAll(async () => {
    await server?.close()
    await database.drop()
  })

  it('the server prints the demo figures the README shows', () => {
    const d = server.demo!
    const line = `Seeded demo data: ${d.events} events, ${d.venues} venues, ${d.organizers} organizers, ${d.categories} categories, ${d.tags} tags.`
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    expect(readme).toContain(line)
    expect(readme).toContain(`(${d.events} events\nfrom yesterday to two months ahead, ${d.venues} venues, ${d.organizers} organizers`)
  })

  it('every curl command of the tour blocks answers 2xx', async () => {
    const fences = fencesRun('curl-tour')
    expect(fences.length).toBeGreaterThan(0)
    for (const fence of fences) {
      const dir = mkdtempSync(join(tmpdir(), 'cal-doc-'))
      const log = join(dir, 'curl.log')
      // B and TOKEN as the reader sets them: this server's URL and its first-start token.
      const body = fence.body.replace(/^(B|TOKEN)=.*$/gm, '')
      const script = [
        'set -euo pipefail',
        `B=${server.url}`,
        `TOKEN=${server.generatedAdminToken}`,
        `curl() { command curl -sS -o /dev/null -w '%{http_code} %{method} %{url_effective}\\n' "$@" >> '${log}'; }`,
        body,
      ].join('\n')
      await run('bash', ['-c', script], { cwd: dir })
      const answers = readFileSync(log, 'utf8').trim().split('\n')
      rmSync(dir, { recursive: true, force: true })
      const calls = commandsOf(fence).flatMap((c) => c.text.match(/(?:^|[;&|]\s*)curl\s/g) ?? [])
      expect(answers.length, `${where(fence)}: every curl ran`).toBe(calls.length)
      expect(answers.filter((a) => !/^2\d\d /.test(a)), where(fence)).toEqual([])
    }
  }, 60_000)

  it('run=migrate-site: the README migrate-site command copies this server’s calendar into another database', async () => {
    const [fence] = fencesRun('migrate-site')
    expect(fence).toBeDefined()
    const target = scratchDatabase('doc_migrated')
    await target.create()
    try {
      const { stdout } = await runBlock(
        fence!,
        [
          ['postgres://postgres@127.0.0.1:5432/calendar', target.url],
          ['https://old.example.org', server.url.replace(/\/cal\/events\/v1$/, '')],
          ['"abcd efgh ijkl mnop qrst uvwx"', server.generatedAdminToken!],
        ],
        { cwd: ROOT },
      )
      expect(stdout).toMatch(/created/)
      const [copied] = await sql<{ events: number }>(target.url, 'select count(*)::int as events from cal_events.events')
      // The demo's events and what the tour above added.
      expect(copied!.events).toBeGreaterThanOrEqual(server.demo!.events)
    } finally {
      await target.drop()
    }
  }, 120_000)
})

/** Runs a block's text with bash after the given replacements, each of which must apply (else the block changed: update the runner). */
async function runBlock(fence: Fence, replacements: [RegExp | string, string][], options: { cwd: string; env?: Record<string, string> }): Promise<{ stdout: string; stderr: string }> {
  let body = fence.body
  for (const [pattern, value] of replacements) {
    const next = body.replace(typeof pattern === 'string' ? new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g') : pattern, value)
    expect(next, `${where(fence)}: the runner replaces ${String(pattern)}`).not.toBe(body)
    body = next
  }
  return run('bash', ['-c', `set -euo pipefail\n${body}`], { cwd: options.cwd, env: { ...process.env, ...options.env }, timeout: 90_000 })
}

const ADMIN = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test')
const PG_ENV = { PGHOST: ADMIN.hostname, PGPORT: ADMIN.port || '5432', PGUSER: decodeURIComponent(ADMIN.username || 'postgres') }

async function sql<R>(url: string, text: string): Promise<R[]> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text)).rows as R[]
  } finally {
    await client.end()
  }
}

describe('run=backup-restore: docs/production.md backs up and restores a calendar with its own commands', () => {
  const source = scratchDatabase('doc_backup')
  const restored = scratchDatabase('doc_restored')
  afterAll(async () => {
    await source.drop()
    await restored.drop()
  })

  it('restores the same rows and every index, as many as the guide says', async () => {
    const [fence] = fencesRun('backup-restore')
    expect(fence).toBeDefined()
    await source.create()
    const { createCalendar } = await import('@cal-events/core')
    const calendar = await createCalendar({ database: { url: source.url } })
    await calendar.events.create({ title: 'Backed up', start_date: '2027-01-05 10:00:00', end_date: '2027-01-05 11:00:00', categories: ['Kept'] })
    await calendar.close()
    await restored.drop()
    const dir = mkdtempSync(join(tmpdir(), 'cal-doc-'))
    await runBlock(fence!, [['calendar_restored', restored.name], ['postgres://…/', `${ADMIN.protocol}//${ADMIN.username || 'postgres'}@${ADMIN.host}/`]], {
      cwd: dir,
      env: { ...PG_ENV, DATABASE_URL: source.url },
    })
    rmSync(dir, { recursive: true, force: true })
    const count = (url: string) =>
      sql<{ events: number; terms: number; indexes: number }>(
        url,
        `select (select count(*) from cal_events.events)::int as events, (select count(*) from cal_events.terms)::int as terms,
                (select count(*) from pg_indexes where schemaname = 'cal_events')::int as indexes`,
      )
    const [before] = await count(source.url)
    const [after] = await count(restored.url)
    expect(after).toEqual(before)
    const guide = readFileSync(join(ROOT, 'docs/production.md'), 'utf8')
    expect(/all (\d+) indexes/.exec(guide)?.[1], 'the index count docs/production.md gives').toBe(String(after!.indexes))
  }, 90_000)
})

describe('run=first-start: docs/production.md: a database owner that is no superuser migrates a fresh database (pg_trgm is trusted)', () => {
  const database = scratchDatabase('doc_owner')
  const role = database.name.replace(/_doc_owner$/, '_role')
  afterAll(async () => {
    await database.drop()
    await sql(ADMIN.href, `drop role if exists "${role}"`)
  })

  it('runs the guide’s createdb and migrate commands as that role', async () => {
    const [fence] = fencesRun('first-start')
    expect(fence).toBeDefined()
    await database.drop()
    await sql(ADMIN.href, `drop role if exists "${role}"; create role "${role}" login nosuperuser nocreatedb nocreaterole`)
    const { stdout } = await runBlock(
      fence!,
      [
        [/--owner=cal\b/g, `--owner=${role}`],
        [/createdb (--owner=\S+ )?calendar\b/g, `createdb $1${database.name}`],
        ['postgres://cal@db.internal:5432/calendar', `${ADMIN.protocol}//${role}@${ADMIN.host}/${database.name}`],
      ],
      { cwd: ROOT, env: PG_ENV },
    )
    expect(stdout).toMatch(/migration/i)
    const [state] = await sql<{ super: boolean; owner: string; trgm: string }>(
      database.url,
      `select (select rolsuper from pg_roles where rolname = '${role}') as super,
              (select pg_get_userbyid(datdba) from pg_database where datname = current_database()) as owner,
              (select n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm') as trgm`,
    )
    expect(state).toEqual({ super: false, owner: role, trgm: 'cal_events' })
  }, 90_000)
})

describe('run=commands: blocks whose every command runs here, on a scratch database or in memory', () => {
  const database = scratchDatabase('doc_commands')
  beforeAll(() => database.create())
  afterAll(() => database.drop())

  it('every command exits 0', async () => {
    const fences = fencesRun('commands')
    expect(fences.length).toBeGreaterThan(0)
    const dir = mkdtempSync(join(tmpdir(), 'cal-doc-'))
    // Every command side by side (each its own data; most of the time is each process's start).
    const failures = await Promise.all(
      fences.flatMap(commandsOf).map(async (command) => {
        const text = command.text.replaceAll('postgres://…', database.url).replaceAll('/tmp/cal', join(dir, `data-${command.line}`))
        return run('bash', ['-c', `set -euo pipefail\n${text}`], { cwd: ROOT, timeout: 150_000 }).then(
          () => [],
          (err: { stderr: string; code: number }) => [`${command.fence.file}:${command.line}: exit ${err.code}: ${err.stderr.slice(-500)}`],
        )
      }),
    )
    rmSync(dir, { recursive: true, force: true })
    expect(failures.flat()).toEqual([])
  }, 180_000)
})

describe('figures and names in the docs match the code', () => {
  const text = (file: string) => readFileSync(join(ROOT, file), 'utf8')
  const DOCS = documentedFiles(ROOT)

  it('every migration a doc names exists', () => {
    const migrations = new Set(readdirSync(join(ROOT, 'packages/core/src/db/migrations')).map((f) => f.replace(/\.ts$/, '')))
    const unknown = DOCS.flatMap((file) => [...text(file).matchAll(/`(\d{4}-[a-z0-9-]+)`/g)].map((m) => m[1]!).filter((name) => !migrations.has(name)).map((name) => `${file}: ${name}`))
    expect(unknown).toEqual([])
  })

  it('the README counts and names the Vitest projects there are', async () => {
    const { default: config } = await import('../../vitest.workspace.js')
    const projects = (config.test?.projects ?? []).map((p) => (p as { test: { name: string } }).test.name)
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten']
    const readme = text('README.md')
    const claims = [...readme.matchAll(/\b(\w+) Vitest projects\b|\bwith the (\w+) projects\b/g)].map((m) => m[1] ?? m[2])
    expect(claims.length).toBeGreaterThan(0)
    expect(claims.filter((c) => c !== words[projects.length])).toEqual([])
    const tests = /`pnpm test` runs \w+ Vitest projects: ([^\n]+(?:\n[^\n]+)*?)\n\n/.exec(readme)?.[1] ?? ''
    expect(projects.filter((name) => !tests.includes(`\`${name}\``))).toEqual([])
  })
})

describe('option defaults in the READMEs are the ones createCalendar resolves', () => {
  /** A literal as the tables write it (`10`, `'A'`, `['en', 'es']`, `{ attempts: 10 }`), or undefined when it is prose. */
  function literal(text: string): unknown {
    const json = text.replace(/'/g, '"').replace(/([{,]\s*)([A-Za-z_]\w*)\s*:/g, '$1"$2":')
    try {
      return JSON.parse(json)
    } catch {
      return undefined
    }
  }

  it.each(['README.md', 'packages/core/README.md'])('%s', async (file) => {
    const { resolveOptions } = await import('../../packages/core/src/config/options.js')
    const resolved: Record<string, unknown> = { ...resolveOptions({ variant: 'B' }), variant: 'A' }
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n')
    const wrong: string[] = []
    let checked = 0
    let defaultColumn = -1
    for (const [index, line] of lines.entries()) {
      const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim())
      if (cells[0] === 'Option') defaultColumn = cells.indexOf('Default')
      if (defaultColumn < 0 || !line.startsWith('|')) {
        if (!line.startsWith('|')) defaultColumn = -1
        continue
      }
      const name = /^`(\w+)`$/.exec(cells[0] ?? '')?.[1]
      const cell = /^`([^`]+)`/.exec(cells[defaultColumn] ?? '')?.[1]
      if (!name || cell === undefined || !(name in resolved)) continue
      const documented = literal(cell)
      if (documented === undefined) continue
      checked++
      const actual = name === 'variant' ? 'A' : resolved[name]
      if (JSON.stringify(documented) !== JSON.stringify(actual)) wrong.push(`${file}:${index + 1}: ${name} is documented as ${cell}, resolves to ${JSON.stringify(actual)}`)
    }
    expect(checked).toBeGreaterThan(5)
    expect(wrong).toEqual([])
  })
})

describe('the [test: …] tags of the prose', () => {
  /** Every *.test.ts of the repository by file name (tags may give the name alone). */
  function testFiles(): Map<string, string[]> {
    const byName = new Map<string, string[]>()
    const walk = (dir: string) => {
      for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        if (entry.name === 'node_modules' || entry.name.startsWith('.') || entry.name === 'dist') continue
        const path = `${dir}/${entry.name}`
        if (entry.isDirectory()) walk(path)
        else if (entry.name.endsWith('.test.ts')) byName.set(entry.name, [...(byName.get(entry.name) ?? []), path])
      }
    }
    for (const dir of ['packages', 'examples', 'packaging', 'docs', 'bench']) if (existsSync(join(ROOT, dir))) walk(dir)
    return byName
  }

  it('name test files that exist, and the tests they quote are in them', () => {
    const byName = testFiles()
    const problems: string[] = []
    for (const file of documentedFiles(ROOT)) {
      const text = readFileSync(join(ROOT, file), 'utf8')
      let previous: string[] = []
      for (const tag of text.matchAll(/\[test: ([^\]]+)\]/g)) {
        const body = tag[1]!.replace(/\s+/g, ' ')
        const line = text.slice(0, tag.index).split('\n').length
        if (body === 'path') continue
        const named = [...body.matchAll(/[\w./-]+\.test\.ts/g)].map((m) => m[0])
        const paths = named.flatMap((name) => (existsSync(join(ROOT, name)) ? [name] : (byName.get(name.split('/').pop()!) ?? [])))
        for (const name of named) if (!existsSync(join(ROOT, name)) && !byName.has(name.split('/').pop()!)) problems.push(`${file}:${line}: no test file ${name}`)
        const files = named.length ? paths : previous
        previous = files
        const sources = files.map((p) => readFileSync(join(ROOT, p), 'utf8').replace(/\s+/g, ' ')).join('\n')
        for (const [, quoted] of body.matchAll(/"([^"]+)"/g)) if (!sources.includes(quoted!)) problems.push(`${file}:${line}: "${quoted}" is in none of ${files.join(', ') || '(no file named)'}`)
      }
    }
    expect(problems).toEqual([])
  })
})
