import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Calendar } from '@cal-events/core'
import { BACKEND, freshCalendar, querySql } from '../../../../test-support/test-db.js'
import { TAXONOMIES, taxonomyNamed } from '../../src/terms/taxonomies.js'

// Categories and tags are data (terms/taxonomies.ts). The stored names are also fixed by the
// `terms.taxonomy` check constraint: a descriptor without its migration (or a migration without its
// descriptor) would answer 500s on the first write or read, so the two must name the same set.
describe(`taxonomy descriptors (${BACKEND})`, () => {
  let calendar: Calendar
  beforeAll(async () => {
    calendar = await freshCalendar()
  })
  afterAll(() => calendar.close())

  it('name exactly the taxonomies the terms table admits', async () => {
    const [check] = await querySql<{ def: string }>(
      `select pg_get_constraintdef(c.oid) as def from pg_constraint c join pg_class t on t.oid = c.conrelid
       where t.relname = 'terms' and c.contype = 'c' and pg_get_constraintdef(c.oid) like '%taxonomy%'`,
    )
    const admitted = [...check!.def.matchAll(/'([^']+)'/g)].map((m) => m[1]).sort()
    expect(admitted).toEqual(TAXONOMIES.map((t) => t.name).sort())
  })

  it('keep their names, routes and wire names apart', () => {
    for (const key of ['name', 'plural', 'wire', 'slugNamespace'] as const) {
      expect(new Set(TAXONOMIES.map((t) => t[key])).size).toBe(TAXONOMIES.length)
    }
    for (const t of TAXONOMIES) expect(taxonomyNamed(t.name)).toBe(t)
    expect(() => taxonomyNamed('post_tag')).toThrow()
  })

  it('route every taxonomy, with its script API', () => {
    for (const t of TAXONOMIES) {
      expect(calendar.routes.some((r) => r.path.endsWith(`/${t.plural}`))).toBe(true)
      expect(typeof (calendar as unknown as Record<string, { list?: unknown }>)[t.plural]?.list).toBe('function')
    }
  })
})
