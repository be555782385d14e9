import { defineConfig } from 'tsup'

// Production build of the example server: `node dist/main.js`. Dependencies (the calendar
// packages, express, zod) stay external; Node resolves `@cal-events/*` to their built `dist`.
export default defineConfig({
  entry: ['src/main.ts'],
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
})
