#!/usr/bin/env node
// Runs every *.test.ts of the workspace with Node's test runner: once on the embedded SQLite
// store, and again on PostgreSQL (the store-backed tests) when TEST_DATABASE_URL is set, both in
// one pool of test processes.
// The browser suites run on the Chromium packages/server/src/testing/browser.ts finds; see
// planBrowserSuites there for when it is installed, and when a missing one fails or skips them
// (WALLET_TEST_BROWSER=off leaves them out).
// Usage: npm test [-- <path filter>...]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { bundleTests, needsLoader } from './test-bundles.mjs';

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
const BROWSER_SUPPORT = /testing\/(browser|wallet-app-harness)(\.ts)?['"]/;
const browserSuites = all.filter((file) => BROWSER_SUPPORT.test(sourceOf(file)));
const browserEnv = {};
let browserReady = true;
let browserSkipped;
if (browserSuites.length > 0 && process.env.WALLET_TEST_BROWSER === 'off') {
  // .ci/run's passes on the other Node.js lines: the app in the browser is the same on each.
  all = all.filter((file) => !browserSuites.includes(file));
  browserSkipped = `# browser suites: ${browserSuites.length} test files skipped (WALLET_TEST_BROWSER=off)`;
} else if (browserSuites.length > 0) {
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
// The randomised soaks (the chaos runs, the differential test of the card contract) drive code
// every other file covers too; .ci/run runs them once, on the machine's Node.js, and leaves them
// out on the other lines (WALLET_TEST_SOAK=off).
const SOAKS = /(^|\/)(chaos\/chaos|differential)\.test\.ts$/;
let soaksSkipped;
if (process.env.WALLET_TEST_SOAK === 'off') {
  const soaks = all.filter((file) => SOAKS.test(file));
  all = all.filter((file) => !soaks.includes(file));
  if (soaks.length > 0) soaksSkipped = `# soaks: ${soaks.length} test files skipped (WALLET_TEST_SOAK=off): ${soaks.join(', ')}`;
}
// One share of the files, k of n (WALLET_TEST_SHARD=k/n): every n-th file of the path order from
// the k-th. .ci/run gives each of the two other Node.js lines one half (see the README).
let shardNote;
if (process.env.WALLET_TEST_SHARD) {
  const match = /^(\d+)\/(\d+)$/.exec(process.env.WALLET_TEST_SHARD);
  const [k, n] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
  if (!(n >= 1 && k >= 1 && k <= n)) {
    console.error(`WALLET_TEST_SHARD must be k/n with 1 <= k <= n, not ${process.env.WALLET_TEST_SHARD}`);
    process.exit(1);
  }
  const before = all.length;
  all = all.filter((_, index) => index % n === k - 1);
  shardNote = `# shard ${k} of ${n}: ${all.length} of ${before} test files`;
}
if (all.length === 0) {
  for (const skipped of [browserSkipped, soaksSkipped, shardNote]) if (skipped) console.log(skipped);
  process.exit(0);
}
// The long files first (browser suites, then those that start services as child processes), so
// that the last minutes of a pass are not one long file on one core while the other idles.
const weight = (file) => {
  const source = sourceOf(file);
  return BROWSER_SUPPORT.test(source) ? 0 : /service-process|chaos\/|differential/.test(source + file) ? 1 : 2;
};
// Within a kind, the longer source first: a rough measure of a file's time that needs no record.
all = all
  .map((file) => [weight(file), sourceOf(file).length, file])
  .sort(([a, x, p], [b, y, q]) => a - b || y - x || p.localeCompare(q))
  .map(([, , file]) => file);

// A test file that opens the store through the test helpers runs on both stores, but for the
// browser suites: their pages are the same whatever store serves them, and the routes behind them
// run on PostgreSQL in their own files.
const storeBacked = all.filter((file) => {
  if (browserSuites.includes(file)) return false;
  const source = sourceOf(file);
  // Files that loop over availableTestStoreKinds() cover PostgreSQL in the first pass already.
  return /test-services|WALLET_TEST_STORE/.test(source) && !source.includes('availableTestStoreKinds');
});

// Tests that start the service or the CLI as a child process run the compiled build, built here
// from the sources under test: a child then starts in a tenth of the time it takes through tsx
// (packages/server/src/testing/service-process.ts).
// Not again in a run started by a test of this one (browser.test.ts runs npm test on a machine
// without Chromium): the enclosing run built it from the same sources, and the services its other
// files start load it meanwhile. A build replaces dist/ whole, and a service starting then found
// chunks missing.
const serverBuild = join(root, 'packages/server/dist');
if (process.env.WALLET_TEST_SERVER_BUILT !== serverBuild) {
  const built = spawnSync(process.execPath, [join(root, 'packages/server/scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) {
    console.error('npm test: the server build failed (above); the tests need it');
    process.exit(1);
  }
  process.env.WALLET_TEST_SERVER_BUILT = serverBuild;
}
process.env.WALLET_TEST_COMPILED = '1';
// Passwords and PINs set up by the tests, and by the services and CLI commands they start, are
// hashed with scrypt at N = 2^10 instead of the default 2^15 (config custody.scryptCost): 2 ms of CPU
// each instead of 200, about 2,000 times a run. Each hash and PIN key records its N, and the
// custody tests run the default's (custody/*.test.ts).
process.env.WALLET_SCRYPT_COST ??= String(2 ** 10);

// Each pass also writes every test's duration here, for the slowest-tests report at the end.
const timesDir = mkdtempSync(join(tmpdir(), 'wallet-test-times-'));
const timedPasses = [];
const started = Date.now();

// The test files run as bundles (scripts/test-bundles.mjs): a test process then loads in half the
// CPU time it takes through tsx. Those that only a loader can run go through tsx.
const throughLoader = all.filter((file) => needsLoader(sourceOf(file)));
// The outbox crash tests' load driver runs as a child process, several times a file: bundled with
// them it starts without tsx's loader too (testing/outbox-load-driver.ts reads its path).
const LOAD_DRIVER = 'packages/server/src/testing/outbox-load-driver.ts';
const drivesLoad = all.some((file) => sourceOf(file).includes('outbox-load-driver'));
const bundles = await bundleTests(root, [...all.filter((file) => !throughLoader.includes(file)), ...(drivesLoad ? [LOAD_DRIVER] : [])]);
process.on('exit', bundles.remove);
if (drivesLoad) process.env.WALLET_TEST_LOAD_DRIVER = bundles.bundleOf.get(LOAD_DRIVER);

// Files at once: WALLET_TEST_CONCURRENCY, else two more than the cores (files wait on their nodes,
// browsers and timers; on two cores, four at once took 10.1 minutes against 11.0 for three:
// docs/performance.md, "npm test's time").
const concurrency = Number(process.env.WALLET_TEST_CONCURRENCY ?? availableParallelism() + 2);

// Both stores' files run in one pool, the longest first whatever their store, so that neither pass
// ends on one long file on one core while the other idles. A bundle's PostgreSQL run is a copy of it
// beside it whose first import sets WALLET_TEST_STORE=postgres in its process, before any other
// module is evaluated. The few files only tsx can load run once per store.
const SET_POSTGRES = `import 'data:text/javascript,process.env.WALLET_TEST_STORE=%22postgres%22';`;
/** A PostgreSQL copy, or a test file as its source map names it in the copy: `x.test.ts.postgres`. */
const POSTGRES_RUN = /\.postgres(?=\.mjs$|$)/;
function postgresCopy(file, bundle) {
  const copy = bundle.replace(/\.mjs$/, '.postgres.mjs');
  const map = JSON.parse(readFileSync(`${bundle}.map`, 'utf8'));
  // Its source map names the test file `<file>.postgres`, so that its tests' times (and its stack
  // traces) say which store they ran on.
  const own = pathToFileURL(join(root, file)).href;
  map.sources = map.sources.map((source) => (new URL(source, pathToFileURL(bundle)).href === own ? `${source}.postgres` : source));
  writeFileSync(`${copy}.map`, JSON.stringify(map));
  // On the bundle's first line, so that its source map still holds for every line after it.
  const code = readFileSync(bundle, 'utf8').replace(/\/\/# sourceMappingURL=\S+\s*$/, `//# sourceMappingURL=${copy.split('/').pop()}.map\n`);
  writeFileSync(copy, SET_POSTGRES + code);
  return copy;
}
/** The test file a run's entry (a bundle, its PostgreSQL copy, a source) stands for. */
const sourceOfEntry = (path) => bundles.sourceOf(path.replace(POSTGRES_RUN, ''));

/** Runs `runs` ({ file, store }, in order): the bundles in one pool, then the files only tsx loads, per store. */
function run(runs) {
  // Every test process answers a repeated scrypt from memory (scripts/test-scrypt-memo.mjs).
  const scryptMemo = ['--import', pathToFileURL(join(root, 'scripts/test-scrypt-memo.mjs')).href];
  const bundled = runs.filter(({ file }) => bundles.bundleOf.has(file));
  const loaded = runs.filter(({ file }) => !bundles.bundleOf.has(file));
  const pools = [
    { flags: ['--enable-source-maps', ...scryptMemo], entries: bundled.map(({ file, store }) => (store === 'postgres' ? postgresCopy(file, bundles.bundleOf.get(file)) : bundles.bundleOf.get(file))) },
    ...['sqlite', 'postgres'].map((store) => ({
      flags: ['--import', 'tsx', ...scryptMemo],
      store,
      entries: loaded.filter((entry) => entry.store === store).map(({ file }) => join(root, file)),
    })),
  ];
  let ok = true;
  for (const { flags, store = 'sqlite', entries } of pools) {
    // Given no files, node --test would look for tests everywhere.
    if (entries.length === 0) continue;
    const times = join(timesDir, `${timedPasses.length}.jsonl`);
    timedPasses.push({ times, store });
    const result = spawnSync(
      process.execPath,
      [
        ...flags, '--test', `--test-concurrency=${concurrency}`,
        '--test-reporter=spec', '--test-reporter-destination=stdout',
        `--test-reporter=${join(root, 'scripts/test-times-reporter.mjs')}`, `--test-reporter-destination=${times}`,
        ...entries,
      ],
      { cwd: root, stdio: 'inherit', env: { ...process.env, ...browserEnv, WALLET_TEST_STORE: store } },
    );
    ok = result.status === 0 && ok;
  }
  return ok;
}

/** The slowest tests of every pass, so that the next slow test is seen when it lands. */
function printSlowestTests(count) {
  const tests = [];
  const files = [];
  for (const { times, store } of timedPasses) {
    let lines = [];
    try {
      lines = readFileSync(times, 'utf8').split('\n').filter(Boolean);
    } catch {
      continue; // the pass ended before writing any line
    }
    for (const line of lines) {
      const entry = JSON.parse(line);
      entry.label = store === 'postgres' || POSTGRES_RUN.test(entry.file ?? '') ? 'PostgreSQL store' : 'SQLite store';
      if (entry.file) entry.file = sourceOfEntry(entry.file);
      (entry.fileMs === undefined ? tests : files).push(entry);
    }
  }
  rmSync(timesDir, { recursive: true, force: true });
  if (tests.length === 0) return;
  // Every time, for a closer look: WALLET_TEST_TIMES_FILE=times.json npm test
  if (process.env.WALLET_TEST_TIMES_FILE) writeFileSync(process.env.WALLET_TEST_TIMES_FILE, JSON.stringify({ tests, files }, null, 1));
  tests.sort((a, b) => b.ms - a.ms);
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`.padStart(8);
  console.log(`\n# slowest ${Math.min(count, tests.length)} of ${tests.length} tests (whole run ${seconds(Date.now() - started).trim()}):`);
  for (const test of tests.slice(0, count)) {
    const file = test.file ? relative(root, test.file) : '?';
    console.log(`#  ${seconds(test.ms)}  ${test.name}  (${file}, ${test.label})`);
  }
  files.sort((a, b) => b.fileMs - a.fileMs);
  console.log(`\n# slowest ${Math.min(count, files.length)} test files (first test or suite started to last ended):`);
  for (const file of files.slice(0, count)) console.log(`#  ${seconds(file.fileMs)}  ${relative(root, file.file)}  (${file.label})`);
  const counted = (outcome) => tests.filter((test) => test.outcome === outcome).length;
  console.log(`\ntests: ${counted('passed')} passed, ${counted('failed')} failed, ${counted('skipped')} skipped`);
}

const onPostgres = process.env.TEST_DATABASE_URL ? storeBacked : [];
console.log(`\n# SQLite store: ${all.length} test files`);
if (process.env.TEST_DATABASE_URL) console.log(`# PostgreSQL store: ${onPostgres.length} test files`);
else console.log('# PostgreSQL store: skipped (set TEST_DATABASE_URL to run the store-backed tests on PostgreSQL)');
// `all` is in the order files should start in; a file's PostgreSQL run follows its SQLite one.
const runs = all.flatMap((file) => [{ file, store: 'sqlite' }, ...(onPostgres.includes(file) ? [{ file, store: 'postgres' }] : [])]);
const ok = run(runs) && browserReady;
if (browserSkipped) console.log(browserSkipped);
if (soaksSkipped) console.log(soaksSkipped);
if (shardNote) console.log(shardNote);
printSlowestTests(10);
process.exit(ok ? 0 : 1);
