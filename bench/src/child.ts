import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/**
 * Runs one of the bench's own modules (`./load-child.ts`, `./ceiling-child.ts`) in a fresh node
 * process with `job` as its one argument (JSON), with this process's loader flags (tsx), so the
 * child runs TypeScript too.
 */
export function spawnBenchChild(module: string, job: unknown, stdio: StdioOptions): ChildProcess {
  const path = fileURLToPath(new URL(module, import.meta.url))
  return spawn(process.execPath, [...process.execArgv, path, JSON.stringify(job)], { stdio })
}
