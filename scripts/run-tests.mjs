#!/usr/bin/env node
// Runs every *.test.ts of the workspace with Node's test runner: once on the embedded SQLite
// store, and again on PostgreSQL (the store-backed tests) when TEST_DATABASE_URL is set.
// Usage: npm test [-- <path filter>...]
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);

function findTests(directory) {
  const found = [];
  for (const entry of readdirSync(directory)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (entry.endsWith('.test.ts')) found.push(relative(root, path));
  }
  return found;
}

const all = findTests(join(root, 'packages'))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (all.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// A test file that opens the store through the test helpers runs on both stores.
const storeBacked = all.filter((file) => {
  const source = readFileSync(join(root, file), 'utf8');
  // Files that loop over availableTestStoreKinds() cover PostgreSQL in the first pass already.
  return /test-services|WALLET_TEST_STORE/.test(source) && !source.includes('availableTestStoreKinds');
});

function run(label, files, env) {
  console.log(`\n# ${label}: ${files.length} test files`);
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
    { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } },
  );
  return result.status === 0;
}

let ok = run('SQLite store', all, { WALLET_TEST_STORE: 'sqlite' });
if (process.env.TEST_DATABASE_URL) {
  ok = run('PostgreSQL store', storeBacked, { WALLET_TEST_STORE: 'postgres' }) && ok;
} else {
  console.log('\n# PostgreSQL store: skipped (set TEST_DATABASE_URL to run the store-backed tests on PostgreSQL)');
}
process.exit(ok ? 0 : 1);
