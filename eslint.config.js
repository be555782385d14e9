// Flat config: typescript-eslint's recommended rules, syntax only (no type information needed).
import js from '@eslint/js'
import { defineConfig } from 'eslint/config'
import tseslint from 'typescript-eslint'

export default defineConfig(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', '**/.data/**', 'scratch/**', 'examples/typed-client/client/generated/**', 'docs/test/.samples/**', 'packaging/api-report/**'],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // The script API returns loosely typed JSON (`Record<string, any>`) by design; flag, don't fail.
      '@typescript-eslint/no-explicit-any': 'warn',
      // Unused on purpose: `_`-prefixed names (interface-shaped stubs, ignored tuple items).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Plain JavaScript here is configuration run by Node (this file); TypeScript files need no globals.
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
)
