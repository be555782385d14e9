import { BaseSequencer, type TestSpecification } from 'vitest/node'

// Files that take minutes, in the order they should start (seconds each, measured on a loaded
// two-core machine, `pnpm test` with the JSON reporter). Vitest orders by its results cache, which
// a clean clone (CI) has not got: there it ordered by project name and file size, and a file of
// several minutes that started last set the run's length alone.
const SLOW_FIRST: readonly RegExp[] = [
  /boundary-sweep\.http\.test\.ts$/, // 350 s behind Express
  /fuzz\.http\.test\.ts$/, // 180-195 s
  /published-packages\.test\.ts$/, // 150 s
  /doc-samples\.test\.ts$/, // 120 s
  /cli\/test\/cal-events\.test\.ts$/, // 95 s
  /schema-isolation\.test\.ts$/, // 25-77 s
  /openapi-conformance\.http\.test\.ts$/, // 35-55 s
  /cluster\.test\.ts$/, // 25-60 s
]

function rank(spec: TestSpecification): number {
  const i = SLOW_FIRST.findIndex((pattern) => pattern.test(spec.moduleId))
  return i === -1 ? SLOW_FIRST.length : i
}

/** Starts the files known to take minutes first, then Vitest's own order (its cache, then size). */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files)
    // Array.prototype.sort is stable: within a rank the base order holds.
    return base.map((spec, i) => ({ spec, i, rank: rank(spec) })).sort((a, b) => a.rank - b.rank || a.i - b.i).map(({ spec }) => spec)
  }
}
