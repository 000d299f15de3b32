#!/usr/bin/env node
// Runs the TypeScript sources directly: no build step between a checkout and a running service.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
