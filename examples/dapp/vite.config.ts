import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Served by the wallet service at /examples/dapp/ (packages/server/src/examples/routes.ts).
export default defineConfig({
  base: '/examples/dapp/',
  // JSX through esbuild, without a React plugin: the page needs no fast refresh.
  esbuild: { jsx: 'automatic' },
  resolve: {
    alias: {
      // The SDK from its sources, so this page builds at `npm install` whether or not the SDK's
      // dist/ was built before it; a dapp elsewhere imports the published package.
      '@wallet-service/sdk/wagmi': fileURLToPath(new URL('../../packages/sdk/src/wagmi/index.ts', import.meta.url)),
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 1024,
    rollupOptions: {
      // React libraries mark their modules "use client", which means nothing outside a server-rendering framework.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
