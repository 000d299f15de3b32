/**
 * Pure JavaScript npm packages of many small modules, compiled into the server's build
 * (scripts/build.mjs) and into the test bundles (scripts/test-bundles.mjs at the root): Node.js
 * loads a module at a time, and these come to about 700 (viem alone 358, typebox's ~700 more), a
 * second of CPU for every CLI command, service start and test file before any work.
 */
export const BUNDLED_PACKAGES = [
  'typebox',
  'kysely',
  'viem',
  'ox',
  'abitype',
  '@noble/curves',
  '@noble/hashes',
  '@scure/base',
  '@scure/bip32',
  '@scure/bip39',
  'jose',
  'libphonenumber-js',
];

/** Whether a bare import is compiled in: one of BUNDLED_PACKAGES or a file of one. */
export function isBundledPackage(path) {
  return BUNDLED_PACKAGES.some((name) => path === name || path.startsWith(`${name}/`));
}
