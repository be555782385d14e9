/** What differs between the two variants of the API; code asks this, never the variant's name. */
export interface VariantConfig {
  /** Variant name as configured (`A` base, `B` multilingual). */
  readonly name: 'A' | 'B'
  /** Default `per_page` of every list. */
  readonly perPageDefault: number
  /** Whether routes declare `ml_language`; the language list itself comes from the options. */
  readonly multilingual: boolean
  /** Extra `/events` list parameters (`starts_*`, `ends_*`, `strict_dates`, `ticketed`). */
  readonly boundsFilters: boolean
  /** Whether `password` is declared on the event by-id routes. */
  readonly passwordParam: boolean
}

/** The two variant descriptors of SPEC.md. */
export const VARIANTS = {
  A: { name: 'A', perPageDefault: 5, multilingual: false, boundsFilters: false, passwordParam: false },
  B: { name: 'B', perPageDefault: 10, multilingual: true, boundsFilters: true, passwordParam: true },
} as const satisfies Record<'A' | 'B', VariantConfig>
