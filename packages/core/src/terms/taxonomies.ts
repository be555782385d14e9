import type { Role } from '../auth/principal.js'
import type { CalendarErrorCode } from '../errors.js'

/**
 * Categories and tags are the same kind of record (terms) with different rules. The descriptor
 * carries everything that differs, so the code serving them never asks which taxonomy it is: a
 * new taxonomy is one more descriptor (and a migration admitting its name in `terms.taxonomy`'s check).
 */
export interface TaxonomyDescriptor<N extends string = string, P extends string = string, W extends string = string> {
  /** The value of `terms.taxonomy`. */
  readonly name: N
  /** `taxonomy` in Term and EmbeddedTerm objects (CONTRACT 4.6). */
  readonly wire: W
  /**
   * The collection segment (`/categories`), the list envelope's key, and the event's field of the
   * same name: on events, in event writes (CONTRACT 10.5) and as an event list filter (CONTRACT 6.1).
   */
  readonly plural: P
  /** Whether terms nest (`parent`, children moving up on delete, filters matching descendants). */
  readonly hierarchical: boolean
  /** The lowest role that may create, update and delete terms (CONTRACT 3.1). */
  readonly manageRole: Role
  /** The public archive page of a term (`url` of the Term object). */
  archiveUrl(site: string, slug: string): string
  /** Whether the event's terms of this taxonomy become its iCalendar CATEGORIES (tags do not). */
  readonly categorizes: boolean
  /** Where a term's slug must be unique (with the language); also its advisory-lock scope. */
  readonly slugNamespace: string
  /** Names in the OpenAPI document. */
  readonly doc: { readonly tag: string; readonly one: string; readonly many: string; readonly noun: string; readonly about: string }
  /** Domain errors a write can answer, beside the ones every term write shares. */
  readonly writeErrors: readonly CalendarErrorCode[]
}

/** Event categories: hierarchical, managed by authors (CONTRACT 3.1, 12). */
export const CATEGORY: TaxonomyDescriptor<'category', 'categories', 'cal_events_cat'> = {
  name: 'category',
  wire: 'cal_events_cat',
  plural: 'categories',
  hierarchical: true,
  manageRole: 'author',
  archiveUrl: (site, slug) => `${site}/events/category/${slug}/`,
  categorizes: true,
  slugNamespace: 'terms:category',
  doc: { tag: 'Categories', one: 'Category', many: 'Categories', noun: 'category', about: 'Hierarchical event categories (deleted for good).' },
  writeErrors: [],
}

/** Tags: flat, managed by editors; `parent` is refused (CONTRACT 3.1, 12). */
export const TAG: TaxonomyDescriptor<'tag', 'tags', 'post_tag'> = {
  name: 'tag',
  wire: 'post_tag',
  plural: 'tags',
  hierarchical: false,
  manageRole: 'editor',
  archiveUrl: (site, slug) => `${site}/tag/${slug}/`,
  categorizes: false,
  slugNamespace: 'terms:tag',
  doc: { tag: 'Tags', one: 'Tag', many: 'Tags', noun: 'tag', about: 'Flat tags (deleted for good).' },
  writeErrors: ['TAXONOMY_NOT_HIERARCHICAL'],
}

/** Every taxonomy, in route registration order (CONTRACT 14.1). */
export const TAXONOMIES = [CATEGORY, TAG] as const

/** A taxonomy descriptor. */
export type Taxonomy = (typeof TAXONOMIES)[number]

/** The descriptor of a stored `terms.taxonomy` value. */
export function taxonomyNamed(name: string): Taxonomy {
  const found = TAXONOMIES.find((t) => t.name === name)
  // The column's check constraint admits only the descriptors' names.
  if (!found) throw new Error(`Unknown taxonomy ${JSON.stringify(name)}.`)
  return found
}

/** The descriptor whose collection segment is `plural`, if any. */
export function taxonomyAt(plural: string): Taxonomy | undefined {
  return TAXONOMIES.find((t) => t.plural === plural)
}
