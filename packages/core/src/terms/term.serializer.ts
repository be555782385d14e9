import type { Urls } from '../api/context.js'
import { taxonomyNamed } from './taxonomies.js'

/** A term row. */
export interface TermRow {
  id: number
  taxonomy: string
  name: string
  slug: string
  description: string
  parent_id: number | null
  count: number
  language?: string
}

function termUrls(row: TermRow, urls: Urls): Record<string, string> {
  const path = taxonomyNamed(row.taxonomy).plural
  const out: Record<string, string> = {
    self: `${urls.rest}/${path}/${row.id}`,
    collection: `${urls.rest}/${path}`,
  }
  if (row.parent_id) out.up = `${urls.rest}/${path}/${row.parent_id}`
  return out
}

/** The EmbeddedTerm shape inside an event's `categories`/`tags` (CONTRACT 4.6). */
export function serializeEmbeddedTerm(row: TermRow, urls: Urls): Record<string, unknown> {
  return {
    name: row.name,
    slug: row.slug,
    term_group: 0,
    term_taxonomy_id: row.id,
    taxonomy: taxonomyNamed(row.taxonomy).wire,
    description: row.description,
    parent: row.parent_id ?? 0,
    count: Number(row.count),
    filter: 'raw',
    id: row.id,
    urls: termUrls(row, urls),
  }
}

/** The Term shape of the `/categories` and `/tags` routes (CONTRACT 4.6). */
export function serializeTerm(row: TermRow, urls: Urls): Record<string, unknown> {
  const taxonomy = taxonomyNamed(row.taxonomy)
  const out: Record<string, unknown> = {
    id: row.id,
    count: Number(row.count),
    description: row.description,
    name: row.name,
    slug: row.slug,
    taxonomy: taxonomy.wire,
  }
  if (taxonomy.hierarchical) out.parent = row.parent_id ?? 0
  out.meta = []
  out.url = taxonomy.archiveUrl(urls.site, row.slug)
  out.urls = termUrls(row, urls)
  return out
}
