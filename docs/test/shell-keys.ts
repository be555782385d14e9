import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { basename, join } from 'node:path'

/** Splits a command line into words as the shell would (quotes removed; no expansion). */
export function shellWords(text: string): string[] {
  const words: string[] = []
  let word = ''
  let quote = ''
  let started = false
  for (const ch of text.replace(/\\\n/g, ' ')) {
    if (quote) {
      if (ch === quote) quote = ''
      else word += ch
    } else if (ch === "'" || ch === '"') {
      quote = ch
      started = true
    } else if (/\s/.test(ch)) {
      if (started || word) words.push(word)
      word = ''
      started = false
    } else word += ch
  }
  if (started || word) words.push(word)
  return words
}

/** The simple commands of a line: split at `&&`, `||`, `;` and `|` outside quotes. */
export function simpleCommands(text: string): string[] {
  const parts: string[] = []
  let current = ''
  let quote = ''
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (quote) {
      if (ch === quote) quote = ''
      current += ch
    } else if (ch === "'" || ch === '"') {
      quote = ch
      current += ch
    } else if (ch === ';' || ch === '|' || (ch === '&' && text[i + 1] === '&')) {
      if (text[i + 1] === ch) i++
      parts.push(current)
      current = ''
    } else current += ch
  }
  parts.push(current)
  return parts.map((part) => part.trim()).filter(Boolean)
}

// Words that launch the command rather than name it, and flags that do not change what it does.
const LAUNCHERS = new Set(['pnpm', 'npx', 'node', 'tsx', 'exec', 'run', 'cd'])
const NEUTRAL_FLAGS = new Set(['-D', '--save-dev'])
const ENV_ASSIGNMENT = /^([A-Z_][A-Z0-9_]*)=/

/**
 * What a test that runs a command must mention: the variables it sets, the program (launchers
 * such as `pnpm` and `node` aside), its subcommand words and its flags, without their values.
 * `pnpm --filter @cal-events/example-server tokens create --role editor --name ci` gives
 * `tokens create --role --name`.
 */
export function keyParts(command: string): string[] {
  const keys: string[] = []
  for (const simple of simpleCommands(command)) {
    const words = shellWords(simple).map((w) => w.replace(/^\[|\]$/g, ''))
    while (words[0] && ENV_ASSIGNMENT.test(words[0])) keys.push(ENV_ASSIGNMENT.exec(words.shift()!)![1]!)
    let positional = true
    for (let i = 0; i < words.length; i++) {
      const word = words[i]!
      if (word === '--filter') {
        i++
        continue
      }
      if (word.startsWith('-')) {
        positional = false
        if (!NEUTRAL_FLAGS.has(word)) keys.push(word.split('=')[0]!)
        continue
      }
      if (!positional) continue
      if (LAUNCHERS.has(word)) continue
      // A subcommand or program name; paths, URLs, placeholders and values end the words that count.
      if (/^[a-z][\w.-]*$/i.test(word) && !/\.(tgz|ics|dump|js|ts)$/.test(word)) keys.push(basename(word))
      else positional = false
    }
  }
  return keys
}

/** The workspace's packages by name, with their directory and scripts. */
export function workspacePackages(root: string): Map<string, { dir: string; scripts: Record<string, string> }> {
  const packages = new Map<string, { dir: string; scripts: Record<string, string> }>()
  for (const group of ['packages', 'examples', 'bench', '.']) {
    const dirs = group === '.' || group === 'bench' ? [group] : readdirSync(join(root, group)).map((name) => join(group, name))
    for (const dir of dirs) {
      const manifest = join(root, dir, 'package.json')
      if (!existsSync(manifest)) continue
      const json = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; scripts?: Record<string, string> }
      packages.set(group === '.' ? '.' : json.name, { dir, scripts: json.scripts ?? {} })
    }
  }
  return packages
}

// pnpm's own commands that the docs use (everything else must be a script of the package).
const PNPM_BUILTINS = new Set(['install', 'pack', 'publish', 'exec', 'add', 'build', 'test', 'run'])

/**
 * Why a pnpm command would not run here (an unknown package, script or binary), or undefined.
 * Only the command's shape is checked; tests that run it are named in the doc.
 */
export function pnpmProblem(root: string, command: string): string | undefined {
  const packages = workspacePackages(root)
  for (const simple of simpleCommands(command)) {
    const words = shellWords(simple)
    while (words[0] && ENV_ASSIGNMENT.test(words[0])) words.shift()
    if (words[0] !== 'pnpm') continue
    let target = '.'
    let i = 1
    if (words[1] === '--filter') {
      target = words[2]!
      i = 3
    }
    const pkg = packages.get(target)
    if (!pkg) return `no workspace package ${target}`
    const script = words[i]
    if (!script) return 'no command'
    if (script === 'exec') {
      const bin = words[i + 1]!
      if (!existsSync(join(root, pkg.dir, 'node_modules/.bin', bin))) return `no binary ${bin} in ${pkg.dir}/node_modules/.bin`
      continue
    }
    if (!(script in pkg.scripts) && !PNPM_BUILTINS.has(script)) return `${target === '.' ? 'the root package' : target} has no script "${script}"`
  }
  return undefined
}
