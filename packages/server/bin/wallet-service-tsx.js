#!/usr/bin/env node
// The service and CLI from the TypeScript sources through tsx, with no build step: what the tests
// start, and a way to run a change at once. bin/wallet-service.js runs the compiled build.
import { register } from 'tsx/esm/api';

// Everything this process and its children (anvil) create is owner-only (docs/operations.md, "File modes").
process.umask(0o077);

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
