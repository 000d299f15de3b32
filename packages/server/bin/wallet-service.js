#!/usr/bin/env node
// The compiled service and CLI (dist/, built by `npm install`; scripts/build.mjs).
// bin/wallet-service-tsx.js runs the TypeScript sources instead, as the tests do.
// Everything this process and its children (anvil) create is owner-only (docs/operations.md, "File modes").
process.umask(0o077);
let compiled;
try {
  compiled = await import('../dist/wallet-service.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/wallet-service.js')) throw error;
  console.error('wallet-service: not built yet: run npm install (or npm run build --workspace @wallet-service/server)');
  process.exit(1);
}
process.exitCode = await compiled.main(process.argv.slice(2));
