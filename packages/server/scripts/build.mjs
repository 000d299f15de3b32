#!/usr/bin/env node
// Compiles the server to JavaScript (runs on `npm install` as `prepare`): dist/wallet-service.js,
// the CLI's entry, and dist/chunks/ with the code its commands load when they run (the service's
// among them), with source maps. `bin/wallet-service.js` runs it.
//
// One bundle rather than tsc's file-per-file output: the workspace packages the server imports
// (@wallet-service/contracts) export their TypeScript sources, which Node.js cannot load, so they
// are compiled into the bundle. Every other package stays an import resolved from node_modules at
// run time, where native addons, anvil's binary and the files packages serve themselves are.
//
// `--outdir DIR` builds elsewhere (the build's own test does, so as not to replace the dist/ other
// tests are running).
import { renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { isBundledPackage } from './bundled-packages.mjs';

const root = new URL('..', import.meta.url).pathname;
const { values: options } = parseArgs({ options: { outdir: { type: 'string' } } });
const outdir = options.outdir ? resolve(options.outdir) : join(root, 'dist');
const staging = `${outdir}.building-${process.pid}`;

const bundled = (path) => path.startsWith('@wallet-service/') || isBundledPackage(path);

/** Bare imports stay imports, except the workspace's own packages and those of bundled-packages.mjs. */
const npmPackagesExternal = {
  name: 'npm-packages-external',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) => (bundled(args.path) ? undefined : { path: args.path, external: true }));
  },
};

rmSync(staging, { recursive: true, force: true });
try {
  await build({
    entryPoints: { 'wallet-service': join(root, 'src/cli/main.ts') },
    outdir: staging,
    bundle: true,
    platform: 'node',
    format: 'esm',
    // The CLI imports each command's code when it runs (`await import()`): those become chunks
    // beside the entry, so `--help` loads only the entry and the command table.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    target: 'node20.10',
    sourcemap: true,
    // Stack traces name the TypeScript files (node --enable-source-maps).
    sourcesContent: false,
    plugins: [npmPackagesExternal],
    logLevel: 'warning',
  });
  rmSync(outdir, { recursive: true, force: true });
  renameSync(staging, outdir);
  console.log(`@wallet-service/server: built ${join(outdir, 'wallet-service.js')}`);
} catch (error) {
  rmSync(staging, { recursive: true, force: true });
  console.error(`@wallet-service/server: build failed: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
}
