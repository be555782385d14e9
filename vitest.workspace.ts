import { configDefaults, defineConfig } from 'vitest/config'
import SlowFirstSequencer from './test-support/sequencer.js'

// Vitest 4 no longer reads workspace files; this is a normal config with `test.projects`,
// named for the design card. The root `pnpm test` points at it.
// The HTTP contract tests (packages/core/test/http) speak only HTTP, through test-support/http.ts,
// so they hold for any adapter: each runs once behind Express (project `http`) and once behind the
// fetch adapter (project `http-fetch`). The adapter packages' own test folders test only their
// translation (Express versions and ops routers; fetch parity and Hono).
const HTTP_CONTRACT = 'packages/core/test/http/**/*.test.ts'

// The contract files run again inside a multi-calendar app (project http-multi). Not response-cache:
// it compares bytes with a second calendar opened beside the set, whose links have no mount.
const MULTI_CALENDAR_FILES = [
  ...['events', 'venues', 'organizers', 'terms', 'wp-compat', 'samples', 'sync', 'idempotency', 'etag', 'discovery', 'visibility'],
  ...['token-expiry', 'ical', 'recurrence', 'basic-auth', 'cors'],
].map((f) => `packages/core/test/http/${f}.http.test.ts`)

// `pnpm test:fast` (CAL_TEST_FAST=1): the edit-test loop. Unit tests, the database tests on PGlite
// and the HTTP contract tests, without what costs minutes and checks no single change's logic:
// fuzzing, the boundary sweep, browsers, linting the document, database faults on private servers,
// child processes, and packing. `pnpm test` (CI) runs everything.
const FAST = process.env.CAL_TEST_FAST === '1'
const SLOW_FILES = [
  '**/fuzz.http.test.ts',
  '**/boundary-sweep.http.test.ts',
  '**/*.browser.test.ts',
  '**/openapi-lint.http.test.ts',
  '**/openapi-prism.http.test.ts',
  '**/commit-outcome.http.test.ts',
  '**/write-outcome.http.test.ts',
  '**/db-faults.http.test.ts',
  'examples/**',
]
// Not run through PgBouncer (project http-pgbouncer): minutes each, and no database session in them to speak of.
const POOLER_SKIPPED_FILES = [
  '**/fuzz.http.test.ts',
  '**/boundary-sweep.http.test.ts',
  '**/*.browser.test.ts',
  '**/openapi-lint.http.test.ts',
  '**/openapi-prism.http.test.ts',
]
const fastExclude = [...configDefaults.exclude, ...(FAST ? SLOW_FILES : [])]

export default defineConfig({
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    globalSetup: ['./test-support/global-setup.ts'],
    // Files run side by side, three at a time (Vitest's default on two cores is one: the files
    // mostly wait for PostgreSQL, timers and child processes). Each worker process has its own
    // database (test-support/test-db.ts, named by VITEST_POOL_ID) or PGlite instance, and keeps
    // it from file to file within its project (isolate: false); tests that measure time measure
    // CPU (test-support/cpu-clock.ts), so a busy neighbour does not fail them.
    maxWorkers: 3,
    // The files that take minutes start first, so none of them starts last (test-support/sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['packages/core/test/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'core-pg',
          include: ['packages/core/test/db/**/*.test.ts'],
          env: { CAL_TEST_BACKEND: 'postgres' },
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'core-pglite',
          include: ['packages/core/test/db/**/*.test.ts'],
          env: { CAL_TEST_BACKEND: 'pglite' },
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'http',
          include: [HTTP_CONTRACT, 'packages/http-express/test/**/*.test.ts', 'packages/cli/test/**/*.test.ts', 'examples/*/test/**/*.test.ts'],
          exclude: fastExclude,
          env: { CAL_TEST_BACKEND: 'postgres' },
          isolate: false,
        },
      },
      {
        // The HTTP suite again, its calendars connected through a private PgBouncer in transaction
        // pooling mode, keeping named statements (test-support/global-setup.ts starts it; test-db.ts
        // connects with `pooler: 'transaction', preparedStatements: true`). Without the files that cost minutes and exercise no database
        // session (fuzzing, the boundary sweep, browsers, the document's linters).
        extends: true,
        test: {
          name: 'http-pgbouncer',
          include: [HTTP_CONTRACT, 'packages/http-express/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...POOLER_SKIPPED_FILES],
          env: { CAL_TEST_BACKEND: 'postgres', CAL_TEST_POOLER: 'pgbouncer' },
          isolate: false,
        },
      },
      {
        // The HTTP contract suite again, through the fetch adapter (@cal-events/http-fetch) served
        // by Node's http via @hono/node-server: the same requests must get the same answers.
        extends: true,
        test: {
          name: 'http-fetch',
          include: [HTTP_CONTRACT, 'packages/http-fetch/test/**/*.test.ts'],
          exclude: fastExclude,
          // The sweep and fuzzing test the core's validation, which the Express run covers in full;
          // here they check the adapter's translation of hostile requests, at a third of the cost.
          env: { CAL_TEST_BACKEND: 'postgres', CAL_HTTP_ADAPTER: 'fetch', CAL_SWEEP_VARIANTS: 'A', CAL_FUZZ_RUNS: '3000' },
          isolate: false,
        },
      },
      {
        // A representative part of the HTTP contract suite again, each test's calendar the calendar
        // `main` of a calendar set (the worker's schema taken in), served through the Express
        // adapter's resolver under /calendars/main (test-support/test-db.ts, `CAL_TEST_MULTI`).
        extends: true,
        test: {
          name: 'http-multi',
          include: MULTI_CALENDAR_FILES,
          env: { CAL_TEST_BACKEND: 'postgres', CAL_TEST_MULTI: '1' },
          isolate: false,
        },
      },
      {
        // The many-instances harness (scripts/cluster/cluster.ts, `pnpm cluster`): HAProxy, 3 example
        // servers through PgBouncer, a primary and a lagging streaming replica, on loopback ports.
        // About a minute; not in test:fast.
        extends: true,
        test: { name: 'cluster', include: ['scripts/cluster/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 240_000 },
      },
      {
        // Docs that cannot drift: every sample of the READMEs and docs/ compiles, parses or runs
        // (docs/test/doc-samples.test.ts), against PostgreSQL.
        extends: true,
        test: { name: 'docs', include: ['docs/test/**/*.test.ts'], env: { CAL_TEST_BACKEND: 'postgres' }, testTimeout: 120_000, sequence: { concurrent: true } },
      },
      {
        // Builds and packs the published packages, lints the tarballs, compares their declarations
        // with packaging/api-report, installs them into two apps outside the workspace (npm;
        // Express 5 with PGlite, Express 4 on PostgreSQL) and compiles a strict consumer. About
        // 90 s on an idle two-core machine (three tsc runs and two npm installs are most of it).
        extends: true,
        test: { name: 'packaging', include: ['packaging/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 180_000 },
      },
    ],
  },
})
