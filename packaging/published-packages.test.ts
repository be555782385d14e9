// The packages as a user gets them from the registry: build and `pnpm pack` both, lint the
// tarballs (publint, @arethetypeswrong/cli), then install them with npm into an app OUTSIDE the
// workspace and serve the calendar from there (ESM on embedded PGlite, with Express 5 and with
// Express 4; CommonJS on PostgreSQL), and type-check a TypeScript consumer against the published
// declarations.
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs'
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
const PACKAGES = [
  { name: '@cal-events/core', dir: join(ROOT, 'packages', 'core') },
  { name: '@cal-events/http-express', dir: join(ROOT, 'packages', 'http-express') },
] as const

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
  const deadline = Date.now() + 120_000
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      // A lock left by a killed run is stale after two minutes.
      const held = statSync(lock, { throwIfNoEntry: false })
      if (held && Date.now() - held.mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true })
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

const ESM_APP = `
import express from 'express'
import { createCalendar } from '@cal-events/core'
import { createCalendarRouter } from '@cal-events/http-express'

const calendar = await createCalendar({ database: { memory: true }, siteTimezone: 'Europe/Berlin' })
const { token } = await calendar.tokens.create({ role: 'administrator', login: 'admin' })
await calendar.events.create({ title: 'Packed and installed', start_date: '2030-05-01 18:00:00', end_date: '2030-05-01 20:00:00', origin_uid: 'outside-1' })

const app = express()
app.get('/', (_req, res) => res.send('host home'))
app.use(createCalendarRouter(calendar))
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
  const calendar = await core.createCalendar({ database: { url: process.env.DATABASE_URL } })
  const created = await calendar.events.create({ title: 'From CommonJS', start_date: '2030-06-01 10:00:00', end_date: '2030-06-01 11:00:00' })
  const response = await calendar.handle({ method: 'GET', path: '/cal/events/v1/events/' + created.id, query: '', headers: {} })
  const router = createCalendarRouter(calendar)
  express().use(router)
  console.log(JSON.stringify({
    exports: [typeof core.createCalendar, typeof core.CalendarError, core.NAMESPACE, typeof createCalendarRouter, typeof expressRequest],
    status: response.status,
    title: response.body.title,
    isError: new core.CalendarError('INVALID_PARAM', 'x') instanceof Error,
    router: typeof router,
  }))
  await calendar.close()
})().catch((err) => { console.error(err); process.exit(1) })
`

const TS_CONSUMER = `
import express, { type Router } from 'express'
import { createCalendar, CalendarError, type Calendar, type CalendarOptions, type EventResource, type Principal } from '@cal-events/core'
import { createCalendarRouter, expressRequest } from '@cal-events/http-express'

const options: CalendarOptions = {
  variant: 'A',
  siteTimezone: 'Europe/Berlin',
  database: { memory: true },
  authenticate: (request): Principal | null => (expressRequest(request)?.get('x-user') === 'ed' ? { id: 1, role: 'editor' } : null),
}

export async function main(): Promise<string> {
  const calendar: Calendar = await createCalendar(options)
  const router: Router = createCalendarRouter(calendar)
  express().use('/api', router)
  const event: EventResource = await calendar.events.create({ title: 'T', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' })
  const title: string = event.title
  const imported: EventResource | undefined = await calendar.events.getByOrigin('uid')
  // The declarations are real types, not any: these must be errors.
  // @ts-expect-error variant is 'A' or 'B'
  await createCalendar({ variant: 'C' })
  // @ts-expect-error getByOrigin takes a string
  await calendar.events.getByOrigin(42)
  const err = new CalendarError('INVALID_PARAM', 'x')
  await calendar.close()
  return [title, imported?.id ?? 0, err.code].join(' ')
}
`

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

describe('published packages', () => {
  let work: string
  const tarballs: Record<string, string> = {}
  let app: string
  let installed: Promise<void>
  // A second outside app on Express 4, which the adapter's peer range also promises.
  let app4: string
  let installed4: Promise<void>

  // A database of this run for the CommonJS app; the global teardown drops it too.
  const database = scratchDatabase('packaging')
  const pgDatabase = new URL(database.url)

  beforeAll(async () => {
    await database.create()
    work = mkdtempSync(join(tmpdir(), 'cal-events-packaging-'))
    mkdirSync(join(work, 'tarballs'))
    // Exactly as the README tells users to install: the root `pnpm tarballs` script (scripts/pack.sh),
    // which packs both packages (prepack runs tsup, so each tarball holds a fresh build).
    await withPackLock(async () => {
      const { stdout } = await run('bash', [join(ROOT, 'scripts', 'pack.sh'), join(work, 'tarballs')], { cwd: ROOT, maxBuffer: 16 << 20 })
      const packed = stdout.trim().split('\n').map((line) => line.trim())
      for (const pkg of PACKAGES) tarballs[pkg.name] = packed.find((file) => file.includes(pkg.name.replace('@', '').replace('/', '-')))!
    })
    // The outside app: a directory under the system temp dir, nowhere near the workspace.
    app = join(work, 'outside-app')
    mkdirSync(app)
    expect(relative(realpathSync(ROOT), realpathSync(app)).startsWith('..')).toBe(true)
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'outside-app', private: true, type: 'module' }))
    // Started now, checked by the install tests; the lint tests run meanwhile.
    const install = (dir: string, express: string) => {
      const done = run(
        'npm',
        ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarballs['@cal-events/core']!, tarballs['@cal-events/http-express']!, express, '@types/express'],
        { cwd: dir, env: npmEnv(), maxBuffer: 16 << 20 },
      ).then(() => undefined)
      done.catch(() => {}) // reported by the tests that await it
      return done
    }
    installed = install(app, 'express')
    app4 = join(work, 'outside-app-express4')
    mkdirSync(app4)
    writeFileSync(join(app4, 'package.json'), JSON.stringify({ name: 'outside-app-express4', private: true, type: 'module' }))
    installed4 = install(app4, 'express@4')
  })

  afterAll(async () => {
    await installed?.catch(() => {})
    await installed4?.catch(() => {})
    if (work) rmSync(work, { recursive: true, force: true })
    await database.drop()
  })

  it('packs only the build, with an exports map (types first, ESM and CJS), engines and resolved workspace ranges', async () => {
    for (const pkg of PACKAGES) {
      const tarball = tarballs[pkg.name]!
      expect(await tarEntries(tarball)).toEqual(
        ['LICENSE', 'README.md', 'dist/index.cjs', 'dist/index.cjs.map', 'dist/index.d.cts', 'dist/index.d.ts', 'dist/index.js', 'dist/index.js.map', 'package.json'].map(
          (f) => `package/${f}`,
        ),
      )
      const manifest = await tarManifest(tarball)
      expect(manifest).toMatchObject({ name: pkg.name, type: 'module', engines: { node: expect.any(String) }, files: ['dist'] })
      // The workspace-only `source` condition (TypeScript sources) is not published.
      expect(manifest.exports).toEqual({
        '.': {
          import: { types: './dist/index.d.ts', default: './dist/index.js' },
          require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
        },
        './package.json': './package.json',
      })
      expect(JSON.stringify(manifest)).not.toContain('workspace:')
      expect(manifest.scripts?.prepack).toBeUndefined()
    }
    const adapter = await tarManifest(tarballs['@cal-events/http-express']!)
    expect(adapter.dependencies ?? {}).toEqual({})
    expect(adapter.peerDependencies).toMatchObject({ express: expect.stringContaining('^5'), '@cal-events/core': '^0.1.0' })
    expect(adapter.peerDependenciesMeta).toEqual({ '@types/express': { optional: true } })
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

  /** Runs ESM_APP in `dir` and checks it over HTTP; returns the Express major version it ran on. */
  async function serveFrom(dir: string): Promise<number> {
    writeFileSync(join(dir, 'app.mjs'), ESM_APP)
    const child = spawn(process.execPath, ['app.mjs'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
    try {
      const { port, token } = JSON.parse(await waitForLine(child, 60_000)) as { port: number; token: string }
      const base = `http://127.0.0.1:${port}/cal/events/v1`

      const list = await fetch(`${base}/events?start_date=2030-01-01&end_date=2030-12-31`)
      expect(list.status).toBe(200)
      expect(list.headers.get('x-cal-total')).toBe('1')
      const body = (await list.json()) as { total: number; events: { title: string; global_id_lineage: string[] }[] }
      expect(body.total).toBe(1)
      expect(body.events[0]).toMatchObject({ title: 'Packed and installed' })
      expect(body.events[0]!.global_id_lineage[1]).toBe('outside-1')

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
    }
  }

  it('installs outside the workspace with npm and serves the calendar from a plain ESM Express app', async () => {
    await installed
    expect(await serveFrom(app)).toBe(5)
  })

  it('serves the same from an Express 4 app', async () => {
    await installed4
    expect(await serveFrom(app4)).toBe(4)
  })

  it('require()s both packages from CommonJS and runs the calendar on PostgreSQL', async () => {
    await installed
    writeFileSync(join(app, 'app.cjs'), CJS_APP)
    const { stdout } = await run(process.execPath, ['app.cjs'], { cwd: app, timeout: 60_000, env: { ...process.env, DATABASE_URL: pgDatabase.href } })
    expect(JSON.parse(stdout)).toEqual({
      exports: ['function', 'function', 'cal/events/v1', 'function', 'function'],
      status: 200,
      title: 'From CommonJS',
      isError: true,
      router: 'function',
    })
  })

  it('type-checks a TypeScript consumer (NodeNext) against the published declarations', async () => {
    await installed
    writeFileSync(join(app, 'consumer.ts'), TS_CONSUMER)
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true },
        files: ['consumer.ts'],
      }),
    )
    // The workspace's compiler; module resolution happens in the outside app's node_modules.
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
    const result = await run(process.execPath, [tsc, '-p', join(app, 'tsconfig.json')], { cwd: app }).catch((err) => err)
    expect(`${result.stdout ?? ''}${result.stderr ?? ''}`).toBe('')
  })
})
