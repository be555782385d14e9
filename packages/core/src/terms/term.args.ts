import { z } from 'zod'
import { arg, args, type ArgSpec } from '../api/arg-kinds.js'
import type { VariantConfig } from '../config/variants.js'
import type { Taxonomy } from './taxonomies.js'

/** `orderby` values of the term lists (CONTRACT 8); anything else is a 400 (O-25). */
export const TERM_ORDERBY = ['name', 'id', 'slug', 'count', 'description', 'term_group', 'include', 'include_slugs'] as const

/** A term list's sort key. */
export type TermOrderBy = (typeof TERM_ORDERBY)[number]

// `ASC` and `Name` are what a caller means by `asc` and `name`; only unknown words are refused.
function lowerEnum<const E extends readonly [string, ...string[]]>(values: E, extra: Omit<ArgSpec<E[number]>, 'schema' | 'doc'>) {
  const schema = z.string().transform((v) => v.trim().toLowerCase()).pipe(z.enum(values)) as unknown as z.ZodType<E[number]>
  return arg(schema, { type: 'string', enum: values }, extra)
}

/** A name: trimmed, and still non-empty after trimming. */
const nameArg = (required: boolean) =>
  arg(z.string().transform((v) => v.trim()).pipe(z.string().min(1)), { type: 'string' }, {
    required,
    description: 'The term name.',
  })

// A flat taxonomy (tags) declares no `parent`; the type still names it so both taxonomies share one handler.
type WithParent<T> = T & { parent: ArgSpec<number> }

/** Query parameters of `GET /categories` and `GET /tags` (SPEC, CONTRACT 8). */
export function termListArgs(taxonomy: Taxonomy, variant: VariantConfig) {
  const declared = {
    page: args.posint({ default: 1, description: 'Page of the collection.' }),
    per_page: args.posint({ default: variant.perPageDefault, description: 'Terms per page (at most 50).' }),
    search: args.nestr({ description: 'Terms whose name or slug contains this string.' }),
    // Empty is no filter here, as in the reference.
    exclude: args.posintList({ description: 'Leave out these term IDs.' }, { allowEmpty: true }),
    include: args.posintList({ description: 'Only these term IDs.' }, { allowEmpty: true }),
    order: lowerEnum(['asc', 'desc'], { default: 'asc', description: 'Sort direction.' }),
    orderby: lowerEnum(TERM_ORDERBY, { default: 'name', description: 'Term attribute to sort by.' }),
    hide_empty: args.bool({ default: true, description: 'Hide terms not assigned to any published event.' }),
    post: args.int({ description: 'Terms assigned to this event.' }),
    event: args.int({ description: 'Terms assigned to this event (wins over post).' }),
    slug: args.nestr({ description: 'The term with exactly this slug.' }),
  }
  if (!taxonomy.hierarchical) return declared as WithParent<typeof declared>
  return { ...declared, parent: args.int({ description: `Direct children of this ${taxonomy.doc.noun}; 0 for top level.` }) }
}

/** The path `id` of the by-id routes. */
export const termIdArg = args.int({ required: true, description: 'Unique identifier for the term.' })

/** Body fields of a term create (`required`) or update (SPEC, CONTRACT 12). */
export function termWriteArgs(taxonomy: Taxonomy, required: boolean) {
  const declared = {
    name: nameArg(required),
    description: args.nestr({ description: 'The term description.' }),
    slug: args.nestr({ description: 'An alphanumeric identifier for the term.' }),
  }
  if (!taxonomy.hierarchical) return declared as WithParent<typeof declared>
  return { ...declared, parent: args.int({ description: `The parent ${taxonomy.doc.noun} ID; 0 for top level.` }) }
}
