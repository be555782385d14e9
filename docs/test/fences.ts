import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

/** One fenced block of a Markdown file. */
export interface Fence {
  /** Repository-relative path of the Markdown file. */
  file: string
  /** 1-based line of the opening fence. */
  line: number
  /** The info string's first word (`ts`, `sh`, `json`, …); `''` when there is none. */
  lang: string
  /** The rest of the info string: `fragment=calendar,app`, `run=curl-tour`, `[test: path]`, … */
  attrs: string
  /** The block's text, without the fences, ending in a newline. */
  body: string
}

/** The Markdown files whose samples must run or compile: README.md, the packages' and examples' READMEs, docs/*.md. */
export function documentedFiles(root: string): string[] {
  const files = ['README.md']
  for (const dir of ['packages', 'examples']) {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue
      if (readdirSync(join(root, dir, entry.name)).includes('README.md')) files.push(`${dir}/${entry.name}/README.md`)
    }
  }
  for (const name of readdirSync(join(root, 'docs'))) if (name.endsWith('.md')) files.push(`docs/${name}`)
  return files
}

/** Every fenced block (``` or ~~~, CommonMark's rules for the closing fence) of the given files. */
export function fencesOf(root: string, files: string[]): Fence[] {
  const fences: Fence[] = []
  for (const file of files) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n')
    for (let i = 0; i < lines.length; i++) {
      const open = /^( {0,3})(`{3,}|~{3,})\s*(.*)$/.exec(lines[i]!)
      if (!open) continue
      const [, , marker, info] = open
      const close = new RegExp(`^ {0,3}${marker![0] === '`' ? '`' : '~'}{${marker!.length},}\\s*$`)
      let end = i + 1
      while (end < lines.length && !close.test(lines[end]!)) end++
      const [lang = '', ...rest] = info!.trim().split(/\s+/)
      fences.push({ file: relative(root, join(root, file)), line: i + 1, lang, attrs: rest.join(' '), body: lines.slice(i + 1, end).join('\n') + '\n' })
      i = end
    }
  }
  return fences
}

/** A shell command as it reads in the doc: continuation lines joined, its trailing comment apart. */
export interface ShellCommand {
  fence: Fence
  /** 1-based line in the Markdown file where the command starts. */
  line: number
  /** The command without its comment. */
  text: string
  /** The comment after the command (or on its own line right before it is not counted). */
  comment: string
}

/** Splits a sh/bash block into commands: `\`-continued and open-quote lines are joined; blank and comment-only lines dropped. */
export function commandsOf(fence: Fence): ShellCommand[] {
  const lines = fence.body.replace(/\n$/, '').split('\n')
  const commands: ShellCommand[] = []
  for (let i = 0; i < lines.length; i++) {
    const start = i
    let text = lines[i]!
    while ((/\\\s*$/.test(stripComment(text).code) || openQuote(text)) && i + 1 < lines.length) text = `${text}\n${lines[++i]}`
    const { code, comment } = stripComment(text)
    if (code.trim() === '') continue
    commands.push({ fence, line: fence.line + 1 + start, text: code.trim(), comment: comment.trim() })
  }
  return commands
}

/** Whether a single or double quote is left open at the end of the text (a quoted argument goes on). */
function openQuote(text: string): boolean {
  let quote = ''
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = ''
    } else if (ch === "'" || ch === '"') quote = ch
    else if (ch === '#') return false
  }
  return quote !== ''
}

/** Splits off a `#` comment that is outside quotes and starts a word. */
export function stripComment(text: string): { code: string; comment: string } {
  let quote = ''
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (quote) {
      if (ch === quote) quote = ''
    } else if (ch === "'" || ch === '"') quote = ch
    else if (ch === '#' && (i === 0 || /\s/.test(text[i - 1]!))) return { code: text.slice(0, i), comment: text.slice(i + 1) }
  }
  return { code: text, comment: '' }
}
