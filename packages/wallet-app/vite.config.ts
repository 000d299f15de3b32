import { defineConfig } from 'vite';

/**
 * The build the service serves (packages/server/src/wallet-app/static-app.ts): index.html and
 * hashed files under /assets, with no inline script or style, so the page runs under
 * `script-src 'self'; style-src 'self'`. JSX is compiled for Preact from tsconfig.json's
 * jsxImportSource. `npm run dev` serves it with hot reload and sends the API to a running service.
 */
export default defineConfig({
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2020',
    // Small assets would become data: URLs inside the CSS or script; keep every file a file.
    assetsInlineLimit: 0,
    // The polyfill for <link rel=modulepreload> is not needed by the browsers that run ES2020 modules well.
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: { '/v2': process.env.WALLET_SERVICE_URL ?? 'http://127.0.0.1:3000' },
  },
});
