import type { Urls } from '../api/context.js'
import { utcToWall, wallFromDb } from '../time/wall-time.js'

/** Post types as the public URLs name them. */
export type PostType = 'event' | 'venue' | 'organizer'

/** Columns every post type has. */
export interface PostRow {
  id: number
  author_id: number | null
  status: string
  title: string
  description: string
  excerpt: string
  slug: string
  date_utc: string
  date_floating: boolean
  modified_utc: string
}

const PUBLIC_URL_STATUSES = new Set(['publish', 'private'])

/** `url` of a post: its pretty link once public, else the plain link (CONTRACT 4.1). */
export function postUrl(urls: Urls, type: PostType, row: Pick<PostRow, 'id' | 'status' | 'slug'>): string {
  if (PUBLIC_URL_STATUSES.has(row.status) && row.slug !== '') return `${urls.site}/${type}/${row.slug}/`
  return `${urls.site}/?post_type=${type}&p=${row.id}`
}

/** `global_id` of an item (CONTRACT 4.8). */
export function globalId(urls: Urls, id: number): string {
  return `${urls.globalIdBase}?id=${id}`
}

/** The `date`, `date_utc`, `modified`, `modified_utc` quartet. */
export function postDates(row: PostRow, siteTimezone: string) {
  const dateUtc = wallFromDb(row.date_utc)
  const modifiedUtc = wallFromDb(row.modified_utc)
  return {
    date: utcToWall(dateUtc, siteTimezone),
    // Undated drafts show the reference's zero date (O-19).
    date_utc: row.date_floating ? '0000-00-00 00:00:00' : dateUtc,
    modified: utcToWall(modifiedUtc, siteTimezone),
    modified_utc: modifiedUtc,
  }
}

/** Author id on the wire: a decimal string, `"0"` when none. */
export function authorString(authorId: number | null): string {
  return String(authorId ?? 0)
}

/** An image record as stored. */
export interface ImageRow {
  id: number
  url: string
  extension: string
  width: number | null
  height: number | null
}

/** The Image shape (CONTRACT 4.3), keys with empty values omitted; `false` when none. */
export function serializeImage(image: ImageRow | null | undefined): Record<string, unknown> | false {
  if (!image) return false
  const out: Record<string, unknown> = { url: image.url, id: image.id }
  if (image.extension) out.extension = image.extension
  if (image.width) out.width = image.width
  if (image.height) out.height = image.height
  return out
}
