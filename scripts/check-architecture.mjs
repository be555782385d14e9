// Compares the floors table of docs/ARCHITECTURE.md with the import rules of .dependency-cruiser.cjs
// (run by `pnpm lint:deps`); `--write` rewrites the table from the rules instead.
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const rules = createRequire(import.meta.url)('../.dependency-cruiser.cjs')
const page = `${root}docs/ARCHITECTURE.md`
const BEGIN = '<!-- floors: generated from .dependency-cruiser.cjs by `node scripts/check-architecture.mjs --write` -->'
const END = '<!-- floors: end -->'

const name = (n) => (['errors', 'index', 'internal', 'create-calendar'].includes(n) ? `\`${n}.ts\`` : `\`${n}/\``)
const rows = rules.floors
  .map((names, i) => ({ floor: i + 1, names }))
  .reverse()
  .flatMap(({ floor, names }) =>
    names.map((n) => {
      const may = rules.mayImport[n]
      const face = rules.faces.includes(n) ? ' (others import only its `index.ts`)' : ''
      return `| ${floor} | ${name(n)}${face} | ${may.length > 0 ? may.map(name).join(', ') : '(nothing in core)'} |`
    }),
  )
const table = [BEGIN, '| floor | folder | may import |', '| ---: | --- | --- |', ...rows, END].join('\n')

const text = readFileSync(page, 'utf8')
const start = text.indexOf(BEGIN)
const end = text.indexOf(END)
if (start < 0 || end < start) {
  console.error(`docs/ARCHITECTURE.md: no floors table (between "${BEGIN}" and "${END}")`)
  process.exit(1)
}
const current = text.slice(start, end + END.length)
if (process.argv.includes('--write')) {
  writeFileSync(page, text.slice(0, start) + table + text.slice(end + END.length))
} else if (current !== table) {
  console.error('docs/ARCHITECTURE.md: the floors table differs from .dependency-cruiser.cjs; run `node scripts/check-architecture.mjs --write`')
  process.exit(1)
}
