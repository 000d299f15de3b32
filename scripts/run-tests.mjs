#!/usr/bin/env node
// Runs every *.test.ts of the workspace with Node's test runner: once on the embedded SQLite
// store, and again on PostgreSQL (the store-backed tests) when TEST_DATABASE_URL is set.
// The browser suites run on the Chromium packages/server/src/testing/browser.ts finds; see
// planBrowserSuites there for when it is installed, and when a missing one fails or skips them.
// Usage: npm test [-- <path filter>...]
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tsImport } from 'tsx/esm/api';

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

let all = findTests(join(root, 'packages'))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (all.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const sourceOf = (file) => readFileSync(join(root, file), 'utf8');

// A test file that launches a browser through the shared test support is a browser suite.
const browserSuites = all.filter((file) => /testing\/browser(\.ts)?['"]/.test(sourceOf(file)));
const browserEnv = {};
let browserReady = true;
let browserSkipped;
if (browserSuites.length > 0) {
  const browser = await tsImport('../packages/server/src/testing/browser.ts', import.meta.url);
  const host = browser.localBrowserHost();
  let plan = browser.planBrowserSuites(host);
  if (plan.action === 'install') {
    console.log('# browser suites: no Chromium found; installing Debian\'s chromium package');
    plan = browser.planBrowserSuites(host, { installed: browser.installDebianChromium() });
  }
  if (plan.action === 'run') {
    browserEnv.CHROMIUM_PATH = plan.executablePath;
    console.log(`# browser suites: ${browserSuites.length} test files on ${plan.executablePath}`);
  } else if (plan.action === 'skip') {
    all = all.filter((file) => !browserSuites.includes(file));
    browserSkipped = `# browser suites: ${browserSuites.length} test files skipped: ${plan.message}`;
  } else {
    // They still run, and fail saying the same.
    browserReady = false;
    console.error(`# browser suites: failed: ${plan.message}`);
  }
}
if (all.length === 0) {
  console.log(browserSkipped);
  process.exit(0);
}
// A test file that opens the store through the test helpers runs on both stores.
const storeBacked = all.filter((file) => {
  const source = sourceOf(file);
  // Files that loop over availableTestStoreKinds() cover PostgreSQL in the first pass already.
  return /test-services|WALLET_TEST_STORE/.test(source) && !source.includes('availableTestStoreKinds');
});

function run(label, files, env) {
  console.log(`\n# ${label}: ${files.length} test files`);
  // Given no files, node --test would look for tests everywhere.
  if (files.length === 0) return true;
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
    { cwd: root, stdio: 'inherit', env: { ...process.env, ...browserEnv, ...env } },
  );
  return result.status === 0;
}

let ok = run('SQLite store', all, { WALLET_TEST_STORE: 'sqlite' }) && browserReady;
if (process.env.TEST_DATABASE_URL) {
  ok = run('PostgreSQL store', storeBacked, { WALLET_TEST_STORE: 'postgres' }) && ok;
} else {
  console.log('\n# PostgreSQL store: skipped (set TEST_DATABASE_URL to run the store-backed tests on PostgreSQL)');
}
if (browserSkipped) console.log(browserSkipped);
process.exit(ok ? 0 : 1);
