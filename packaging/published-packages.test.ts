// The packages as a user gets them from the registry: build and `pnpm pack` both, lint the
// tarballs (publint, @arethetypeswrong/cli), then install them with npm into an app OUTSIDE the
// workspace and serve the calendar from there (ESM on embedded PGlite, with Express 5 and with
// Express 4; CommonJS on PostgreSQL), and type-check a TypeScript consumer against the published
// declarations.
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { publint } from 'publint'
import { formatMessage } from 'publint/utils'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scratchDatabase } from '../test-support/scratch-db.js'

const run = promisify(execFile)
const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)))
const BIN = join(ROOT, 'node_modules', '.bin')
/** Where the committed API report lives: one declaration file per published entry point. */
const API_REPORT = join(ROOT, 'packaging', 'api-report')

interface Published {
  name: string
  version: string
  dir: string
  /** `@cal-events/core` -> `core`: the package's folder, and its API report's. */
  folder: string
}

/** Every package under packages/ that is not private: a new package joins these tests by itself. */
const PACKAGES: Published[] = readdirSync(join(ROOT, 'packages'))
  .filter((folder) => existsSync(join(ROOT, 'packages', folder, 'package.json')))
  .map((folder) => ({ folder, manifest: JSON.parse(readFileSync(join(ROOT, 'packages', folder, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => !manifest.private)
  .map(({ folder, manifest }) => ({ name: manifest.name, version: manifest.version, dir: join(ROOT, 'packages', folder), folder }))

/** The environment for npm: without the npm_* variables pnpm sets for its own scripts. */
function npmEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_registry', 'npm_config_cache', 'npm_config_userconfig'])
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm|pnpm)_/i.test(k) || keep.has(k)))
}

/**
 * `pnpm pack` rebuilds `dist/` in place (prepack: tsup, which cleans first); two test runs doing it
 * at once would read each other's half-written files. A lock directory serialises them.
 */
async function withPackLock<T>(fn: () => Promise<T>): Promise<T> {
  const lock = join(tmpdir(), 'cal-events-pack.lock')
  // Packing takes minutes on a loaded machine: a lock is stale only after ten.
  const deadline = Date.now() + 600_000
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      // A lock left by a killed run is stale after ten minutes.
      const held = statSync(lock, { throwIfNoEntry: false })
      if (held && Date.now() - held.mtimeMs > 600_000) rmSync(lock, { recursive: true, force: true })
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${lock}`, { cause: err })
      await new Promise((r) => setTimeout(r, 250))
    }
  }
  try {
    return await fn()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

async function tarEntries(tarball: string): Promise<string[]> {
  const { stdout } = await run('tar', ['-tzf', tarball])
  return stdout.split('\n').filter(Boolean).sort()
}

// Manifests are checked field by field; a loose type keeps the assertions short.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function tarManifest(tarball: string): Promise<Record<string, any>> {
  const { stdout } = await run('tar', ['-xzOf', tarball, 'package/package.json'])
  return JSON.parse(stdout)
}

/** publint on a tarball; returns its errors and warnings, formatted. */
async function lint(tarball: string): Promise<string[]> {
  const bytes = readFileSync(tarball)
  const { messages, pkg } = await publint({ pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) }, level: 'warning', strict: true })
  return messages.map((m) => `${m.type}: ${formatMessage(m, pkg, { color: false })}`)
}

/** @arethetypeswrong/cli on a tarball: exit code and the problems it reports. */
async function attw(tarball: string): Promise<{ ok: boolean; problems: unknown[] }> {
  try {
    const { stdout } = await run(join(BIN, 'attw'), [tarball, '--format', 'json', '--no-definitely-typed'], { maxBuffer: 64 << 20 })
    return { ok: true, problems: JSON.parse(stdout).analysis.problems }
  } catch (err) {
    const stdout = (err as { stdout?: string }).stdout ?? ''
    const parsed = stdout.trim().startsWith('{') ? JSON.parse(stdout) : { analysis: { problems: [String(err)] } }
    return { ok: false, problems: parsed.analysis?.problems ?? parsed.problems ?? [stdout] }
  }
}

// A host app mounting the calendar under /api, as the README shows. PostgreSQL when DATABASE_URL is
// set, else embedded PGlite (which the app must install: an optional peer of the core).
const ESM_APP = `
import express from 'express'
import { createCalendar } from '@cal-events/core'
import { createCalendarRouter } from '@cal-events/http-express'

const database = process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : { memory: true }
const calendar = await createCalendar({ database, siteTimezone: 'Europe/Berlin' })
const { token } = await calendar.tokens.create({ role: 'administrator', login: 'admin' })
await calendar.events.create({ title: 'Packed and installed', start_date: '2030-05-01 18:00:00', end_date: '2030-05-01 20:00:00', origin_uid: 'outside-1' })

const app = express()
app.get('/', (_req, res) => res.send('host home'))
app.use('/api', createCalendarRouter(calendar))
const server = app.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: server.address().port, token }))
})
process.on('SIGTERM', () => server.close(() => calendar.close().then(() => process.exit(0))))
`

// CommonJS, on PostgreSQL (the ESM app covers embedded PGlite).
const CJS_APP = `
const core = require('@cal-events/core')
const { createCalendarRouter, expressRequest } = require('@cal-events/http-express')
const express = require('express')

;(async () => {
  const calendar = await core.createCalendar({ database: { url: process.env.DATABASE_URL }, schema: 'cal_cjs' })
  const created = await calendar.events.create({ title: 'From CommonJS', start_date: '2030-06-01 10:00:00', end_date: '2030-06-01 11:00:00' })
  const response = await calendar.handle({ method: 'GET', path: '/cal/events/v1/events/' + created.id, query: '', headers: {} })
  // The feed's worker thread, started from the CommonJS build (dist/index.cjs beside dist/feed-worker.js).
  let warned = ''
  process.on('warning', (w) => (warned += w.code))
  const feed = await calendar.events.feed({ start_date: '2030-06-01', end_date: '2030-06-30' })
  const router = createCalendarRouter(calendar)
  express().use(router)
  console.log(JSON.stringify({
    exports: [typeof core.createCalendar, typeof core.CalendarError, core.NAMESPACE, typeof createCalendarRouter, typeof expressRequest],
    status: response.status,
    title: response.body.title,
    isError: new core.CalendarError('INVALID_PARAM', 'x') instanceof Error,
    router: typeof router,
    feed: feed.includes('SUMMARY:From CommonJS') && warned === '',
  }))
  await calendar.close()
})().catch((err) => { console.error(err); process.exit(1) })
`

// An app without @electric-sql/pglite asking for the embedded database.
const NO_PGLITE_APP = `
import { createCalendar } from '@cal-events/core'
try {
  await createCalendar({ database: { memory: true } })
  console.log('started')
} catch (err) {
  console.log(err.message)
}
`

// The README's embedding sample, on PostgreSQL: what a TypeScript host compiles.
const TS_CONSUMER = `
import express, { type Router } from 'express'
import { createCalendar, CalendarError, type Calendar, type CalendarOptions, type EventResource, type Principal, type VenueInput } from '@cal-events/core'
import { answerClientError, createCalendarRouter, createHealthRouter, expressRequest } from '@cal-events/http-express'

const options: CalendarOptions = {
  variant: 'A',
  siteTimezone: 'Europe/Berlin',
  database: { url: process.env.DATABASE_URL ?? 'postgres://localhost/app', poolSize: 4 },
  authenticate: (request): Principal | null => (expressRequest(request)?.get('x-user') === 'ed' ? { id: 1, role: 'editor' } : null),
}

export async function main(): Promise<string> {
  const calendar: Calendar = await createCalendar(options)
  const router: Router = createCalendarRouter(calendar)
  const app = express()
  app.use('/api', router)
  app.use(createHealthRouter(calendar))
  app.listen(0).on('clientError', answerClientError)
  const venue: VenueInput = { venue: 'Hall', city: 'Berlin', zip: '10115' }
  const hall = await calendar.venues.create(venue)
  await calendar.organizers.create({ organizer: 'Ada', email: 'ada@example.org' })
  await calendar.venues.update(hall.id, { zip: '10117' })
  const event: EventResource = await calendar.events.create({
    title: 'T', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00', venue: { venue: 'Annex', city: 'Berlin' },
  })
  const title: string = event.title
  const imported: EventResource | undefined = await calendar.events.getByOrigin('uid')
  const err = new CalendarError('INVALID_PARAM', 'x')
  await calendar.close()
  return [title, imported?.id ?? 0, err.code].join(' ')
}
`

/**
 * Calls that must not compile, one a line, each with the error TypeScript must report there: a
 * misspelt field is caught by the installed declarations as by the workspace's sources.
 */
const PROBES: { code: string; error: string }[] = [
  { code: `await calendar.venues.create({ venue: 'Hall', citty: 'Berlin' })`, error: 'TS2561' },
  { code: `await calendar.organizers.create({ organizer: 'Ada', emial: 'ada@example.org' })`, error: 'TS2561' },
  { code: `await calendar.venues.update(1, { zipp: '10115' })`, error: 'TS2561' },
  { code: `await calendar.events.create({ title: 'T', venue: { venue: 'Annex', citty: 'Berlin' } })`, error: 'TS2353' },
  { code: `await calendar.events.create({ title: 'T', organizer: [{ organizer: 'Ada', emial: 'ada@example.org' }] })`, error: 'TS2353' },
  { code: `await calendar.events.update(1, { titel: 'T' })`, error: 'TS2561' },
  { code: `await calendar.events.list({ per_pag: 5 })`, error: 'TS2561' },
  { code: `await calendar.categories.create({ nmae: 'Music' })`, error: 'TS2353' },
  { code: `await createCalendar({ variant: 'C' })`, error: 'TS2322' },
  { code: `await calendar.events.getByOrigin(42)`, error: 'TS2345' },
]
const PROBES_HEAD = [
  `import { createCalendar } from '@cal-events/core'`,
  `const calendar = await createCalendar({ database: { url: 'postgres://localhost/app' } })`,
]
const PROBES_FILE = [...PROBES_HEAD, ...PROBES.map((p) => p.code), 'export {}', ''].join('\n')

/** The strictest consumer settings, with Node's own resolution and with a bundler's. */
const TSCONFIGS = {
  nodenext: { module: 'NodeNext', moduleResolution: 'NodeNext' },
  bundler: { module: 'ESNext', moduleResolution: 'Bundler' },
} as const

/** Compiles `files` in `dir` with the workspace's tsc under one of TSCONFIGS; returns its diagnostics, one a line. */
async function typeCheck(dir: string, resolution: keyof typeof TSCONFIGS, files: string[]): Promise<string[]> {
  const config = join(dir, `tsconfig.${resolution}.json`)
  writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: { ...TSCONFIGS[resolution], target: 'ES2022', strict: true, noEmit: true, skipLibCheck: false },
      files,
    }),
  )
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  const result = await run(process.execPath, [tsc, '-p', config, '--pretty', 'false'], { cwd: dir, maxBuffer: 16 << 20 }).catch((err) => err)
  return `${result.stdout ?? ''}${result.stderr ?? ''}`.split('\n').filter((line) => /error TS\d+/.test(line))
}

function waitForLine(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    let out = ''
    let err = ''
    const timer = setTimeout(() => reject(new Error(`no output within ${timeoutMs} ms; stderr: ${err}`)), timeoutMs)
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const newline = out.indexOf('\n')
      if (newline !== -1) {
        clearTimeout(timer)
        resolvePromise(out.slice(0, newline))
      }
    })
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`app exited with ${code} before it was ready; stderr: ${err}`))
    })
  })
}

/** The ESM/CJS declaration files of a tarball, by path inside the package (`dist/index.d.ts`). */
async function declarations(tarball: string): Promise<Map<string, string>> {
  const files = (await tarEntries(tarball)).filter((f) => /\.d\.(ts|mts)$/.test(f)).map((f) => f.replace(/^package\//, ''))
  const texts = await Promise.all(files.map(async (f) => (await run('tar', ['-xzOf', tarball, `package/${f}`], { maxBuffer: 64 << 20 })).stdout))
  return new Map(files.map((f, i) => [f, texts[i]!]))
}

/** Every `default`/`types` file an exports map names. */
function exportTargets(exports: unknown): string[] {
  if (typeof exports === 'string') return [exports]
  if (exports && typeof exports === 'object') return Object.values(exports).flatMap(exportTargets)
  return []
}

describe('published packages', () => {
  let work: string
  const tarballs: Record<string, string> = {}
  /** npm's output of each install (warnings, EBADENGINE): must be empty. */
  const installLogs: Record<string, string> = {}
  // Express 5 with embedded PGlite; Express 4 on PostgreSQL only, without PGlite installed.
  let app5: string
  let installed5: Promise<void>
  let app4: string
  let installed4: Promise<void>

  // Databases of this run (the CommonJS app; the Express 4 app); the global teardown drops them too.
  const database = scratchDatabase('packaging')
  const database4 = scratchDatabase('packaging4')

  beforeAll(async () => {
    await Promise.all([database.create(), database4.create()])
    work = mkdtempSync(join(tmpdir(), 'cal-events-packaging-'))
    mkdirSync(join(work, 'tarballs'))
    // Exactly as the README tells users to install: the root `pnpm tarballs` script (scripts/pack.sh),
    // which packs every published package (prepack runs tsup, so each tarball holds a fresh build).
    await withPackLock(async () => {
      const { stdout } = await run('bash', [join(ROOT, 'scripts', 'pack.sh'), join(work, 'tarballs')], { cwd: ROOT, maxBuffer: 16 << 20 })
      const packed = stdout.trim().split('\n').map((line) => line.trim())
      for (const pkg of PACKAGES) tarballs[pkg.name] = packed.find((file) => file.endsWith(`/${pkg.name.replace('@', '').replace('/', '-')}-${pkg.version}.tgz`))!
    })
    // The outside apps: directories under the system temp dir, nowhere near the workspace.
    const install = (name: string, extra: string[], packages = PACKAGES) => {
      const dir = join(work, name)
      mkdirSync(dir)
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }))
      // Started now, checked by the tests that await them; the lint tests run meanwhile.
      const done = run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=warn', ...packages.map((p) => tarballs[p.name]!), ...extra], {
        cwd: dir,
        env: npmEnv(),
        maxBuffer: 16 << 20,
      }).then(({ stdout, stderr }) => {
        installLogs[name] = `${stdout}${stderr}`
      })
      done.catch(() => {}) // reported by the tests that await it
      return { dir, done }
    }
    ;({ dir: app5, done: installed5 } = install('outside-app', ['express@5', '@types/express@5', '@electric-sql/pglite']))
    // The libraries only: the cal-events command brings embedded PGlite with it (its default database).
    const libraries = PACKAGES.filter((p) => p.name !== '@cal-events/cli')
    ;({ dir: app4, done: installed4 } = install('outside-app-express4', ['express@4', '@types/express@4'], libraries))
    expect(relative(realpathSync(ROOT), realpathSync(app5)).startsWith('..')).toBe(true)
    // Three builds (tsup with declarations) take a minute idle, several on a loaded machine.
  }, 900_000)

  afterAll(async () => {
    await installed5?.catch(() => {})
    await installed4?.catch(() => {})
    if (work) rmSync(work, { recursive: true, force: true })
    await Promise.all([database.drop(), database4.drop()])
  })

  it('packs every package under packages/ that is not private', () => {
    expect(PACKAGES.map((p) => p.name)).toEqual(expect.arrayContaining(['@cal-events/core', '@cal-events/http-express']))
    for (const pkg of PACKAGES) expect(tarballs[pkg.name], pkg.name).toMatch(/\.tgz$/)
  })

  it('packs only the build, with an exports map (types first), engines and resolved workspace ranges', async () => {
    const rootEngines = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines
    for (const pkg of PACKAGES) {
      const tarball = tarballs[pkg.name]!
      const entries = (await tarEntries(tarball)).map((f) => f.replace(/^package\//, ''))
      // The build and the package's papers; never sources, tests or configs.
      expect(entries.filter((f) => !f.startsWith('dist/') && !['LICENSE', 'README.md', 'package.json'].includes(f)), pkg.name).toEqual([])
      expect(entries.filter((f) => f.startsWith('dist/') && /\.ts$/.test(f) && !/\.d\.c?ts$/.test(f)), pkg.name).toEqual([])
      const manifest = await tarManifest(tarball)
      expect(manifest, pkg.name).toMatchObject({ name: pkg.name, type: 'module', engines: rootEngines, files: ['dist'] })
      // The workspace-only `source` condition (TypeScript sources) is not published; what the
      // exports map and `bin` name is in the tarball.
      expect(JSON.stringify(manifest.exports), pkg.name).not.toContain('source')
      const named = [...exportTargets(manifest.exports), ...exportTargets(manifest.bin ?? {})].map((f) => f.replace(/^\.\//, ''))
      expect(named.filter((f) => !entries.includes(f)), pkg.name).toEqual([])
      expect(JSON.stringify(manifest)).not.toContain('workspace:')
      expect(manifest.scripts?.prepack).toBeUndefined()
    }
    const core = await tarManifest(tarballs['@cal-events/core']!)
    expect(core.exports['.']).toEqual({
      import: { types: './dist/index.d.ts', default: './dist/index.js' },
      require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
    })
    // PGlite is an optional peer (an app on PostgreSQL installs none of it); pg's types are part of
    // the core's declarations, so they come with it.
    expect(core.dependencies).not.toHaveProperty('@electric-sql/pglite')
    expect(core.peerDependenciesMeta).toMatchObject({ '@electric-sql/pglite': { optional: true } })
    expect(core.dependencies).toHaveProperty('@types/pg')
    const adapter = await tarManifest(tarballs['@cal-events/http-express']!)
    expect(adapter.dependencies ?? {}).toEqual({})
    expect(adapter.peerDependencies).toMatchObject({ express: expect.stringMatching(/\^4.*\^5/), '@cal-events/core': '^0.1.0' })
    expect(adapter.peerDependenciesMeta).toMatchObject({ '@types/express': { optional: true } })
  })

  it('passes publint (strict) and @arethetypeswrong/cli for node10, node16 CJS/ESM and bundlers', async () => {
    const results = await Promise.all(
      PACKAGES.map(async (pkg) => ({ name: pkg.name, publint: await lint(tarballs[pkg.name]!), attw: await attw(tarballs[pkg.name]!) })),
    )
    for (const result of results) {
      expect(result.publint, `publint ${result.name}`).toEqual([])
      expect(result.attw, `attw ${result.name}`).toEqual({ ok: true, problems: [] })
    }
  })

  it('catches a broken export: both checks fail on a tarball whose CommonJS build is missing', async () => {
    const broken = join(work, 'broken')
    mkdirSync(broken)
    await run('tar', ['-xzf', tarballs['@cal-events/http-express']!, '-C', broken])
    rmSync(join(broken, 'package', 'dist', 'index.cjs'))
    rmSync(join(broken, 'package', 'dist', 'index.d.cts'))
    const tarball = join(work, 'broken.tgz')
    await run('tar', ['-czf', tarball, '-C', broken, 'package'])
    const problems = (await lint(tarball)).join('\n')
    expect(problems).toMatch(/error: .*index\.cjs.*does not exist/i)
    expect(problems).toMatch(/error: .*index\.d\.cts.*does not exist/i)
    const types = await attw(tarball)
    expect(types.ok).toBe(false)
    expect(types.problems.length).toBeGreaterThan(0)
  })

  // The public API as declared: a change to it shows as a diff of packaging/api-report/ in review.
  // After an intended change: UPDATE_API_REPORT=1 pnpm exec vitest run --config vitest.workspace.ts --project packaging
  it('declares the public API committed in packaging/api-report', async () => {
    const stale: string[] = []
    for (const pkg of PACKAGES) {
      const dir = join(API_REPORT, pkg.folder)
      const declared = await declarations(tarballs[pkg.name]!)
      const committed = existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')) : []
      for (const [file, text] of declared) {
        const report = join(dir, file.replace(/^dist\//, ''))
        if (process.env.UPDATE_API_REPORT) {
          mkdirSync(resolve(report, '..'), { recursive: true })
          writeFileSync(report, text)
        } else if (!existsSync(report) || readFileSync(report, 'utf8') !== text) stale.push(`${pkg.name}: ${file}`)
      }
      const published = new Set([...declared.keys()].map((f) => f.replace(/^dist\//, '')))
      for (const file of committed) if (!published.has(file)) stale.push(`${pkg.name}: ${file} is in the report but no longer published`)
    }
    expect(stale, 'declarations differ from packaging/api-report: review the change, then rerun with UPDATE_API_REPORT=1 and commit').toEqual([])
  })

  it('installs with npm on this Node (the lowest supported) without a warning: no EBADENGINE', async () => {
    const engines: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node
    // CI runs the lowest major the packages declare, so a dependency needing more shows here.
    expect(engines).toMatch(/^>=\d+\.\d+$/)
    expect(process.versions.node.split('.')[0]).toBe(engines.slice(2).split('.')[0])
    await Promise.all([installed5, installed4])
    // npm's closing summary ("added 133 packages in 9s") is all it may say.
    const said = Object.fromEntries(Object.entries(installLogs).map(([app, log]) => [app, log.split('\n').filter((line) => line.trim() && !/^added \d+ packages? in /.test(line))]))
    expect(said).toEqual({ 'outside-app': [], 'outside-app-express4': [] })
  })

  /** Runs ESM_APP in `dir` and checks it over HTTP; returns the Express major version it ran on. */
  async function serveFrom(dir: string, env: NodeJS.ProcessEnv = {}): Promise<number> {
    writeFileSync(join(dir, 'app.mjs'), ESM_APP)
    const child = spawn(process.execPath, ['app.mjs'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    try {
      const { port, token } = JSON.parse(await waitForLine(child, 60_000)) as { port: number; token: string }
      const base = `http://127.0.0.1:${port}/api/cal/events/v1`

      const list = await fetch(`${base}/events?start_date=2030-01-01&end_date=2030-12-31`)
      expect(list.status).toBe(200)
      expect(list.headers.get('x-cal-total')).toBe('1')
      const body = (await list.json()) as { total: number; rest_url: string; events: { title: string; global_id_lineage: string[] }[] }
      expect(body.total).toBe(1)
      expect(body.events[0]).toMatchObject({ title: 'Packed and installed' })
      expect(body.events[0]!.global_id_lineage[1]).toBe('outside-1')
      // Links keep the port and the mount path, whichever Express runs.
      expect(body.rest_url.split('?')[0]).toBe(`${base}/events/`)

      const created = await fetch(`${base}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Over HTTP', start_date: '2030-05-02 18:00:00', end_date: '2030-05-02 19:00:00' }),
      })
      expect(created.status).toBe(201)
      const anonymous = await fetch(`${base}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Anonymous', start_date: '2030-05-03 18:00:00', end_date: '2030-05-03 19:00:00' }),
      })
      expect(anonymous.status).toBe(401)
      // Errors raised by Express's own body reader come back in the calendar's error shape.
      const broken = await fetch(`${base}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"title": ',
      })
      expect(broken.status).toBe(400)
      expect(await broken.json()).toMatchObject({ code: expect.any(String), message: expect.any(String) })
      const tooLarge = await fetch(`${base}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'x'.repeat(2 << 20) }),
      })
      expect(tooLarge.status).toBe(413)
      expect(await tooLarge.json()).toMatchObject({ code: expect.any(String) })
      // A feed's text is built in a worker thread started from the installed dist/feed-worker.js;
      // without it the calendar warns (CAL_FEED_WORKER) and builds on the event loop.
      const feed = await fetch(`${base}/events/ical?start_date=2030-01-01&end_date=2030-12-31`)
      expect(feed.status).toBe(200)
      expect(await feed.text()).toContain('SUMMARY:Packed and installed')
      expect(stderr).not.toContain('CAL_FEED_WORKER')
      const missing = await fetch(`${base}/events/999999`)
      expect(missing.status).toBe(404)

      const doc = (await (await fetch(`${base}/doc`)).json()) as { openapi: string }
      expect(doc.openapi).toMatch(/^3\.1/)
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('host home')
      const pkg = JSON.parse(readFileSync(join(dir, 'node_modules', 'express', 'package.json'), 'utf8')) as { version: string }
      return Number(pkg.version.split('.')[0])
    } finally {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
      // Express 4 prints a deprecation notice for req.host; nothing may be printed at all.
      expect(stderr).toBe('')
    }
  }

  it('installs outside the workspace with npm and serves the calendar from an Express 5 app on embedded PGlite', async () => {
    await installed5
    expect(await serveFrom(app5)).toBe(5)
  })

  it('serves the same from an Express 4 app on PostgreSQL, without PGlite installed', async () => {
    await installed4
    expect(existsSync(join(app4, 'node_modules', '@electric-sql', 'pglite'))).toBe(false)
    expect(await serveFrom(app4, { DATABASE_URL: database4.url })).toBe(4)
  })

  it('runs the cal-events command from the tarballs: npx cal-events --help, then serve on embedded PGlite over HTTP', async () => {
    await installed5
    const help = await run('npx', ['--no-install', 'cal-events', '--help'], { cwd: app5, env: npmEnv() })
    expect(help.stdout).toMatch(/\n\s+serve\s+serve the REST API/)
    // Its own process group: npx does not pass SIGTERM on to the server it starts, so the group is
    // signalled, or the server outlives the test (seen: one still serving 44 min after a run).
    const child = spawn('npx', ['--no-install', 'cal-events', 'serve', '--port', '0'], {
      cwd: app5,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...npmEnv(), CAL_DATA_DIR: join(work, 'cli-data'), CAL_LOG_LEVEL: 'silent' },
    })
    try {
      let out = ''
      const url = await new Promise<string>((resolvePromise, reject) => {
        const timer = setTimeout(() => reject(new Error(`cal-events serve printed no URL: ${out}`)), 240_000)
        child.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString()
          const found = /listening at (http:\/\/\S+)/.exec(out)
          if (found) {
            clearTimeout(timer)
            resolvePromise(found[1]!)
          }
        })
        child.once('exit', (code) => reject(new Error(`cal-events serve exited with ${code}: ${out}`)))
      })
      const res = await fetch(`${url}/events`)
      expect(res.status).toBe(200)
      expect(((await res.json()) as { events: unknown[] }).events.length).toBeGreaterThan(0)
    } finally {
      const exited = new Promise((resolvePromise) => child.once('exit', resolvePromise))
      process.kill(-child.pid!, 'SIGTERM')
      await exited
    }
  }, 300_000)

  it('without PGlite installed, asking for the embedded database is a clear error naming the package', async () => {
    await installed4
    writeFileSync(join(app4, 'no-pglite.mjs'), NO_PGLITE_APP)
    const { stdout } = await run(process.execPath, ['no-pglite.mjs'], { cwd: app4, timeout: 60_000 })
    expect(stdout.trim()).toMatch(/^The embedded database \(PGlite\) needs the optional peer dependency @electric-sql\/pglite: npm install @electric-sql\/pglite/)
  })

  it('require()s both packages from CommonJS and runs the calendar on PostgreSQL', async () => {
    await installed5
    writeFileSync(join(app5, 'app.cjs'), CJS_APP)
    const { stdout } = await run(process.execPath, ['app.cjs'], { cwd: app5, timeout: 60_000, env: { ...process.env, DATABASE_URL: database.url } })
    expect(JSON.parse(stdout)).toEqual({
      exports: ['function', 'function', 'cal/events/v1', 'function', 'function'],
      status: 200,
      title: 'From CommonJS',
      isError: true,
      router: 'function',
      feed: true,
    })
  })

  // The strictest consumer: strict, skipLibCheck false (the packages' own declarations are checked
  // too), NodeNext resolution against Express 4's and Express 5's types, Bundler resolution too.
  it('type-checks a strict TypeScript consumer with skipLibCheck false, where misspelt fields fail', async () => {
    await Promise.all([installed5, installed4])
    // Every published entry point with declarations is imported, so each one's are checked too.
    const entryPoints: string[] = []
    for (const pkg of PACKAGES) {
      const { exports } = await tarManifest(tarballs[pkg.name]!)
      for (const [subpath, target] of Object.entries(exports ?? {})) {
        if (exportTargets(target).some((f) => /\.d\.c?ts$/.test(f))) entryPoints.push(`${pkg.name}${subpath.slice(1)}`)
      }
    }
    expect(entryPoints).toEqual(expect.arrayContaining(['@cal-events/core', '@cal-events/http-express']))
    const entries = (names: string[]) => names.map((name, i) => `export * as entry${i} from '${name}'`).join('\n') + '\n'
    for (const dir of [app5, app4]) {
      writeFileSync(join(dir, 'consumer.ts'), TS_CONSUMER)
      writeFileSync(join(dir, 'probes.ts'), PROBES_FILE)
      // The Express 4 app installs the libraries only, not the cal-events command.
      writeFileSync(join(dir, 'entry-points.ts'), entries(dir === app4 ? entryPoints.filter((e) => !e.startsWith('@cal-events/cli')) : entryPoints))
    }
    const runs = [
      { name: 'Express 5, PGlite installed, NodeNext', dir: app5, resolution: 'nodenext' },
      { name: 'Express 5, PGlite installed, Bundler', dir: app5, resolution: 'bundler' },
      { name: 'Express 4, PostgreSQL only, NodeNext', dir: app4, resolution: 'nodenext' },
    ] as const
    const results = await Promise.all(runs.map(async (r) => ({ name: r.name, errors: await typeCheck(r.dir, r.resolution, ['consumer.ts', 'probes.ts', 'entry-points.ts']) })))
    // Each probe fails on its own line with its own error, and nothing else fails (consumer.ts, or
    // a declaration file of the packages or of what they reference).
    const expected = PROBES.map((p, i) => `probes.ts:${i + 1}: ${p.error}`)
    for (const { name, errors } of results) {
      const found = errors.map((line) => {
        const m = /^probes\.ts\((\d+),\d+\): error (TS\d+)/.exec(line)
        return m ? `probes.ts:${Number(m[1]) - PROBES_HEAD.length}: ${m[2]}` : line
      })
      expect(found, name).toEqual(expected)
    }
    // Three compilations of the packages' full declarations (about 15 s of CPU each).
  }, 300_000)
})
