import { fileURLToPath } from 'node:url'
import tailwindcss from '@tailwindcss/vite'
import { defineConfig } from 'vitest/config'

// Where `vite dev` proxies `/config.json` to, so the dev server picks up the
// same runtime configuration the Rust gateway serves in production.
const gatewayUrl = process.env.CIELO_GATEWAY_URL ?? 'http://localhost:54321'

export default defineConfig({
  plugins: [tailwindcss()],
  // `@/x` is `src/x` (the same mapping as `paths` in tsconfig.app.json); vitest reads it from here too.
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  // No @vitejs/plugin-react: esbuild compiles JSX with the automatic runtime.
  esbuild: {
    jsx: 'automatic',
  },
  server: {
    proxy: {
      '/config.json': { target: gatewayUrl, changeOrigin: true },
    },
  },
  build: {
    target: 'es2022',
    // Read by scripts/check-bundle-size.mjs (the initial-route budget).
    manifest: true,
    rollupOptions: {
      onwarn(warning, warn) {
        // Radix ships "use client" directives for server components; irrelevant here.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return
        warn(warning)
      },
      treeshake: {
        // A feature's index.ts only re-exports: a page that uses part of a feature does not
        // download the rest (the planner's list pages without its editor).
        moduleSideEffects: (id) => !/\/src\/features\/[^/]+\/index\.ts$/.test(id),
      },
      output: {
        // Split the big, rarely-changing vendors so app-only deploys keep the
        // browser cache for them.
        manualChunks(id) {
          if (id.includes('node_modules/@supabase/')) return 'supabase'
          if (/node_modules\/(react|react-dom|scheduler|react-router)\//.test(id)) return 'react'
          return undefined
        },
      },
    },
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    restoreMocks: true,
    unstubEnvs: true,
    unstubGlobals: true,
  },
})
