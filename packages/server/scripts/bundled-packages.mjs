/**
 * Pure JavaScript npm packages of many small modules, compiled into the server's build
 * (scripts/build.mjs) and into the test bundles (scripts/test-bundles.mjs at the root): Node.js
 * loads a module at a time, and a CLI command loaded about 700 of them from these (viem alone 358)
 * besides typebox's own 700: more than a second of CPU before any work, in every CLI command,
 * service start and test process.
 */
const BUNDLED_PACKAGES = [
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
