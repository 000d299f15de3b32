#!/usr/bin/env node
// Builds the publishable outputs of the SDK into dist/ (runs on `npm install` as `prepare`):
//   dist/esm/      ES modules and type declarations (tsc)
//   dist/cjs/      one CommonJS file, with the same declarations typed as CommonJS (esbuild)
//   dist/browser/  wallet-a2a.js, one minified file that defines the global `WalletA2A`, and
//                  wallet-a2a-provider.js, the EIP-1193 provider as the global `WalletA2AProvider` (esbuild)
// The subpaths `/provider` and `/wagmi` are built beside the root the same way (wagmi's own
// packages stay imports: they are the dapp's, as peer dependencies).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const { name, version, license } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const staging = join(root, `dist.building-${process.pid}`);
const entry = join(root, 'src/index.ts');
const subpaths = ['provider', 'wagmi'];
const banner = `/*! ${name} ${version} | ${license} */`;

rmSync(staging, { recursive: true, force: true });
try {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', join(staging, 'esm')], {
    stdio: 'inherit',
  });
  if (compiled.status !== 0) throw new Error('tsc failed');

  const cjs = join(staging, 'cjs');
  mkdirSync(cjs, { recursive: true });
  // Recursive: the generated wire types sit in esm/generated/.
  for (const file of readdirSync(join(staging, 'esm'), { recursive: true })) {
    if (!file.endsWith('.d.ts')) continue;
    mkdirSync(dirname(join(cjs, file)), { recursive: true });
    copyFileSync(join(staging, 'esm', file), join(cjs, file));
  }
  writeFileSync(join(cjs, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
  const shared = { entryPoints: [entry], bundle: true, platform: 'neutral', legalComments: 'none', banner: { js: banner }, logLevel: 'warning' };
  await build({ ...shared, format: 'cjs', target: 'es2020', outfile: join(cjs, 'index.cjs') });
  for (const subpath of subpaths) {
    await build({
      ...shared,
      entryPoints: [join(root, 'src', subpath, 'index.ts')],
      external: ['@wagmi/core', 'viem'],
      format: 'cjs',
      target: 'es2020',
      outfile: join(cjs, `${subpath}.cjs`),
    });
  }
  const browser = { ...shared, format: 'iife', target: 'es2020', minify: true };
  await build({ ...browser, globalName: 'WalletA2A', outfile: join(staging, 'browser', 'wallet-a2a.js') });
  await build({
    ...browser,
    entryPoints: [join(root, 'src/provider/index.ts')],
    globalName: 'WalletA2AProvider',
    outfile: join(staging, 'browser', 'wallet-a2a-provider.js'),
  });

  rmSync(join(root, 'dist'), { recursive: true, force: true });
  renameSync(staging, join(root, 'dist'));
  console.log(`${name}: built dist/esm, dist/cjs (index, provider, wagmi) and dist/browser (wallet-a2a.js, wallet-a2a-provider.js)`);
} catch (error) {
  rmSync(staging, { recursive: true, force: true });
  console.error(`${name}: build failed: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
}
