import type { CallContext } from '../api/context.js'
import { authorString, globalId, postDates, postUrl, serializeImage, type ImageRow, type PostRow } from '../posts/post-fields.js'
import { renderHtml, stripTags } from '../shared/text.js'
import type { LinkedKind } from './kinds.js'

/** A venue or organizer row with its image, as the repository returns it. */
export interface LinkedRow extends PostRow {
  language: string
  image: ImageRow | null
  [field: string]: unknown
}

// Empty values are omitted from venue/organizer objects (CONTRACT 4.4), except these keys and flags.
const ALWAYS_KEPT = new Set(['global_id', 'global_id_lineage'])

function isEmpty(value: unknown): boolean {
  return value === '' || value === '0' || value === false || value === null || value === undefined ||
    (Array.isArray(value) && value.length === 0)
}

/** Row → Venue/Organizer shape; `jsonLd` only on single reads (CONTRACT 4.4, 4.5, 4.7). */
export function serializeLinked(kind: LinkedKind, row: LinkedRow, ctx: CallContext, jsonLd: boolean): Record<string, unknown> {
  const url = postUrl(ctx.urls, kind.type, row)
  const gid = globalId(ctx.urls, row.id)
  const full: Record<string, unknown> = {
    id: row.id,
    author: authorString(row.author_id),
    status: row.status,
    ...postDates(row, ctx.options.siteTimezone),
    url,
    [kind.nameField]: row.title,
    description: renderHtml(row.description),
    excerpt: renderHtml(row.excerpt),
    slug: row.slug,
    image: serializeImage(row.image),
  }
  for (const field of kind.textFields) full[field] = row[field]
  if (kind.coordinates && row.geo_lat !== null && row.geo_lat !== undefined) {
    full.geo_lat = Number(row.geo_lat)
    full.geo_lng = Number(row.geo_lng)
  }
  if (jsonLd) full.json_ld = linkedJsonLd(kind, row, url)
  for (const flag of kind.flags) full[flag] = Boolean(row[flag])
  full.global_id = gid
  full.global_id_lineage = [gid]
  // Deleting keeps the insertion order and skips building a second object (a list page serialises
  // one of these per venue and organizer).
  for (const key in full) {
    if (isEmpty(full[key]) && !ALWAYS_KEPT.has(key) && !kind.flags.includes(key)) delete full[key]
  }
  return full
}

function compact(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== '' && v !== undefined && v !== null))
}

/** schema.org Place / Person for a venue / organizer (CONTRACT 4.7). */
export function linkedJsonLd(kind: LinkedKind, row: LinkedRow, url: string): Record<string, unknown> {
  const description = stripTags(renderHtml(row.excerpt || row.description))
  const image = row.image?.url
  if (kind.jsonLdType === 'Place') {
    const address = compact({
      '@type': 'PostalAddress',
      streetAddress: row.address,
      addressLocality: row.city,
      addressRegion: row.stateprovince || row.state || row.province,
      postalCode: row.zip,
      addressCountry: row.country,
    })
    const geo =
      row.geo_lat !== null && row.geo_lat !== undefined
        ? { '@type': 'GeoCoordinates', latitude: Number(row.geo_lat), longitude: Number(row.geo_lng) }
        : undefined
    return compact({
      '@context': 'http://schema.org',
      '@type': 'Place',
      name: row.title,
      description,
      image,
      url,
      address: Object.keys(address).length > 1 ? address : undefined,
      geo,
      telephone: row.phone,
      sameAs: row.website,
    })
  }
  return compact({
    '@context': 'http://schema.org',
    '@type': 'Person',
    name: row.title,
    description,
    image,
    url: row.website,
    telephone: row.phone,
    email: row.email,
    sameAs: row.website,
  })
}
