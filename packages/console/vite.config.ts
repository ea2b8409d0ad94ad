import { defineConfig } from 'vite'

/**
 * The console is served by the service under /app (src/modules/console/console.routes.ts):
 * hashed assets under /app/assets (cached as immutable), no inline script or style, so the
 * page runs under `script-src 'self'`.
 */
export default defineConfig({
  base: '/app/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2023',
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
})
