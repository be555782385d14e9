import { defineConfig } from 'tsup'

// The library (ESM and CJS with declarations), its internal subpath, and the feed-text worker
// thread (dist/feed-worker.js, ESM, started by either build from beside it:
// `ical/feed-workers.ts`). `shims` gives the CJS build an `import.meta.url` to find it by.
export default defineConfig({
  entry: { index: 'src/index.ts', internal: 'src/internal.ts', 'feed-worker': 'src/ical/feed-worker.ts' },
  format: ['esm', 'cjs'],
  dts: { entry: { index: 'src/index.ts', internal: 'src/internal.ts' } },
  clean: true,
  sourcemap: true,
  shims: true,
  target: 'node20',
})
