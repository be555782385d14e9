import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** True when the module at `moduleUrl` is the script node was started with (not imported by a test). */
export function isEntryPoint(moduleUrl: string): boolean {
  try {
    // realpath on both sides: pnpm and npx start scripts through symlinks.
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(moduleUrl))
  } catch {
    return false
  }
}
