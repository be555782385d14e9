import { defineConfig } from 'tsup'

// The library (`src/index.ts`, ESM and CJS with declarations) and the `cal-events` command
// (`dist/bin.js`, its hashbang kept; the CJS copy is unused).
export default defineConfig({
  entry: ['src/index.ts', 'src/bin.ts'],
  format: ['esm', 'cjs'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  sourcemap: true,
  target: 'node20',
})
