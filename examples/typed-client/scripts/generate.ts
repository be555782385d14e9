// Writes client/generated/schema.d.ts from the document of a calendar in memory (variant B, the superset).
import { mkdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createCalendar } from '@cal-events/core'
import { typesOf } from '../src/generate-types.js'

const calendar = await createCalendar({ variant: 'B', database: { memory: true } })
try {
  const target = fileURLToPath(new URL('../client/generated/schema.d.ts', import.meta.url))
  mkdirSync(fileURLToPath(new URL('../client/generated/', import.meta.url)), { recursive: true })
  writeFileSync(target, await typesOf(await calendar.discovery.openapi()))
  console.log(`wrote ${target}`)
} finally {
  await calendar.close()
}
