/**
 * Lint rules, and the import boundaries of src/: `app` composes `features`, which build on
 * the shared `lib`, `components` and `config`. Shared code never imports a feature or the app;
 * a feature is used through its `index.ts` only; nothing but tests imports `src/test`.
 * Imports that leave their folder say `@/...` (never `../`), so the boundaries below can be
 * read off the import's text.
 */
import { readdirSync } from 'node:fs'
import js from '@eslint/js'
import { defineConfig } from 'eslint/config'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

const features = readdirSync(new URL('./src/features', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)

const noParentImports = { regex: '^\\.\\./', message: 'Import from another folder as @/... instead.' }
const noTestSupport = { regex: '^@/test(/|$)', message: 'src/test is for tests only.' }
const noApp = { regex: '^@/app(/|$)', message: 'Only main.tsx imports the app layer.' }
const noFeatures = { regex: '^@/features(/|$)', message: 'Shared code (lib, components, config) never imports a feature.' }

/** Another feature is reached through its index.ts only. */
function noFeatureInternals(except) {
  const others = except ? `(?!${except}/)` : ''
  return {
    regex: `^@/features/${others}[^/]+/`,
    message: "Import a feature from its public index (@/features/<name>), not from its files.",
  }
}

function restrictImports(...patterns) {
  return { 'no-restricted-imports': ['error', { patterns }] }
}

const tests = ['src/**/*.test.{ts,tsx}', 'src/test/**']

export default defineConfig(
  { ignores: ['dist/', 'node_modules/'] },
  js.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    extends: [tseslint.configs.recommended],
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat.recommended],
    languageOptions: { globals: globals.browser },
  },
  {
    files: ['e2e/**', 'scripts/**', 'vite.config.ts', 'eslint.config.js'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['e2e/**'],
    // The browser tests run page functions in Chromium.
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },

  // Boundaries (one `no-restricted-imports` applies per file: the last matching block wins).
  { files: ['src/**/*.{ts,tsx}'], rules: restrictImports(noParentImports) },
  { files: ['src/app/**'], rules: restrictImports(noParentImports, noTestSupport, noFeatureInternals()) },
  ...features.map((feature) => ({
    files: [`src/features/${feature}/**`],
    rules: restrictImports(noParentImports, noTestSupport, noApp, noFeatureInternals(feature)),
  })),
  {
    files: ['src/lib/**', 'src/components/**', 'src/config/**'],
    rules: restrictImports(noParentImports, noTestSupport, noApp, noFeatures),
  },
  // Tests render the whole app through src/test, wherever they sit.
  { files: tests, rules: restrictImports(noParentImports) },
)
