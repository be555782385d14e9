import { args, type ArgSpec } from './arg-kinds.js'
import type { ResolvedOptions } from '../config/options.js'

function listWords(values: readonly string[]): string {
  return values.length <= 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} and ${values[values.length - 1]}`
}

/** The `ml_language` parameter every route declares in variant B (CONTRACT 15.1); none in A. */
export function languageArgs(options: ResolvedOptions): Record<string, ArgSpec> {
  if (!options.variant.multilingual) return {}
  const languages = options.languages as [string, ...string[]]
  return {
    ml_language: args.enumOf(languages, {
      description: 'Language of the request.',
      reason: `ml_language is not one of ${listWords(languages)}.`,
    }),
  }
}
