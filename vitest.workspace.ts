import { defineConfig } from 'vitest/config'

// Vitest 4 no longer reads workspace files; this is a normal config with `test.projects`,
// named for the design card. The root `pnpm test` points at it.
export default defineConfig({
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    globalSetup: ['./test-support/global-setup.ts'],
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
          include: ['packages/http-express/test/**/*.test.ts', 'examples/*/test/**/*.test.ts'],
          env: { CAL_TEST_BACKEND: 'postgres' },
          isolate: false,
        },
      },
      {
        // Builds and packs the published packages, lints the tarballs and installs them into an
        // app outside the workspace (npm; PGlite in memory and PostgreSQL). About 30 s.
        extends: true,
        test: { name: 'packaging', include: ['packaging/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 180_000 },
      },
    ],
  },
})
