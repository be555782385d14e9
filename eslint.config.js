// Flat config: typescript-eslint's recommended rules everywhere (syntax only), and its type-checked
// rules on shipped source (packages/*/src), where type information catches what syntax cannot
// (unsafe `any` flows, floating or misused promises, needless assertions). Type-checking costs
// time, so tests, bench and examples keep the syntax-only set.
import js from '@eslint/js'
import { defineConfig } from 'eslint/config'
import tseslint from 'typescript-eslint'

const SHIPPED = ['packages/*/src/**/*.ts']

export default defineConfig(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', '**/.data/**', 'scratch/**', 'examples/typed-client/client/generated/**', 'docs/test/.samples/**', 'packaging/api-report/**'],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // Everywhere, tests and tools included: a test states the shape it reads (a core type, a small
      // interface, `unknown` narrowed); a deliberately wrong input is typed as what it is.
      '@typescript-eslint/no-explicit-any': 'error',
      // Unused on purpose: `_`-prefixed names (interface-shaped stubs, ignored tuple items).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: SHIPPED,
    extends: [tseslint.configs.recommendedTypeCheckedOnly],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Operation handlers (`run`, `prepare`) and command actions are async by their interface:
      // a throw in one must become a rejection, which dropping `async` would turn into a
      // synchronous throw, so a body without `await` is no mistake there.
      '@typescript-eslint/require-await': 'off',
      // Off: the objects whose methods are passed around here are plain literals that never read
      // `this` (operations, the CLI's printers), and Kysely's expression builder is meant to be
      // destructured (`({ exists, selectFrom }) => …`, as its docs do); the rule would need
      // `this: void` written on every such interface to tell them apart.
      '@typescript-eslint/unbound-method': 'off',
      // A promise may pass on what it caught (`reject(err)`, typed unknown) without wrapping it.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
    },
  },
  {
    // Plain JavaScript here is configuration run by Node (this file); TypeScript files need no globals.
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
)
