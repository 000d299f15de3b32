import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { findChromium, planBrowserSuites, type BrowserHost } from './browser.ts';

/** A machine made of a list of executable files, an environment and whether it can install Debian's package. */
function fakeHost(options: {
  executables?: string[];
  env?: Record<string, string>;
  platform?: NodeJS.Platform;
  debianRoot?: boolean;
}): BrowserHost {
  const executables = new Set(options.executables ?? []);
  return {
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', ...options.env },
    platform: options.platform ?? 'linux',
    home: '/home/me',
    isExecutable: (path) => executables.has(path),
    list(directory) {
      const names = new Set<string>();
      for (let path of executables) {
        while (dirname(path) !== path) {
          if (dirname(path) === directory) names.add(path.slice(directory.length + 1));
          path = dirname(path);
        }
      }
      return [...names];
    },
    canInstallDebianPackage: () => options.debianRoot ?? false,
  };
}

describe('finding a Chromium', () => {
  test('CHROMIUM_PATH wins over everything else', () => {
    const host = fakeHost({ executables: ['/opt/chrome/chrome', '/usr/bin/chromium'], env: { CHROMIUM_PATH: '/opt/chrome/chrome' } });
    assert.deepEqual(findChromium(host), { found: '/opt/chrome/chrome' });
  });

  test('a CHROMIUM_PATH that is no executable is reported, not passed over, and fails the suites even outside CI', () => {
    const host = fakeHost({ executables: ['/usr/bin/chromium'], env: { CHROMIUM_PATH: '/opt/missing/chrome' }, debianRoot: true });
    assert.deepEqual(findChromium(host), { missing: 'CHROMIUM_PATH=/opt/missing/chrome is not an executable file' });
    const plan = planBrowserSuites(host);
    assert.equal(plan.action, 'fail');
    assert.match((plan as { message: string }).message, /^CHROMIUM_PATH=\/opt\/missing\/chrome is not an executable file: .*set CHROMIUM_PATH/);
  });

  test('on PATH: chromium, then chromium-browser, then google-chrome, each in PATH order', () => {
    const env = { PATH: '/first:/second' };
    assert.deepEqual(findChromium(fakeHost({ env, executables: ['/second/chromium', '/first/google-chrome'] })), { found: '/second/chromium' });
    assert.deepEqual(findChromium(fakeHost({ env, executables: ['/second/chromium', '/first/chromium'] })), { found: '/first/chromium' });
    assert.deepEqual(findChromium(fakeHost({ env, executables: ['/second/chromium-browser', '/first/google-chrome'] })), { found: '/second/chromium-browser' });
    assert.deepEqual(findChromium(fakeHost({ env, executables: ['/second/google-chrome'] })), { found: '/second/google-chrome' });
    assert.ok('missing' in findChromium(fakeHost({ env, executables: ['/usr/bin/chromium'] })), 'directories off PATH are not searched');
  });

  test("Playwright's cache: the newest chromium revision, before any headless shell", () => {
    const cache = '/home/me/.cache/ms-playwright';
    const host = fakeHost({
      env: { PATH: '/bin' },
      executables: [
        `${cache}/chromium-1099/chrome-linux/chrome`,
        `${cache}/chromium-1200/chrome-linux64/chrome`,
        `${cache}/chromium-980/chrome-linux64/chrome`,
        `${cache}/chromium_headless_shell-1300/chrome-headless-shell-linux64/chrome-headless-shell`,
      ],
    });
    assert.deepEqual(findChromium(host), { found: `${cache}/chromium-1200/chrome-linux64/chrome` });
    const shellOnly = fakeHost({ executables: [`${cache}/chromium_headless_shell-1300/chrome-headless-shell-linux64/chrome-headless-shell`] });
    assert.deepEqual(findChromium(shellOnly), { found: `${cache}/chromium_headless_shell-1300/chrome-headless-shell-linux64/chrome-headless-shell` });
  });

  test("Playwright's cache where PLAYWRIGHT_BROWSERS_PATH, XDG_CACHE_HOME or macOS put it", () => {
    const chrome = 'chromium-1200/chrome-linux64/chrome';
    const configured = fakeHost({ env: { PLAYWRIGHT_BROWSERS_PATH: '/srv/browsers' }, executables: [`/srv/browsers/${chrome}`] });
    assert.deepEqual(findChromium(configured), { found: `/srv/browsers/${chrome}` });
    const xdg = fakeHost({ env: { XDG_CACHE_HOME: '/var/cache/me' }, executables: [`/var/cache/me/ms-playwright/${chrome}`] });
    assert.deepEqual(findChromium(xdg), { found: `/var/cache/me/ms-playwright/${chrome}` });
    const mac = 'chromium-1200/chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing';
    const macos = fakeHost({ platform: 'darwin', executables: [`/home/me/Library/Caches/ms-playwright/${mac}`] });
    assert.deepEqual(findChromium(macos), { found: `/home/me/Library/Caches/ms-playwright/${mac}` });
  });
});

describe('what npm test does with the browser suites', () => {
  test('a Chromium found runs them on it', () => {
    assert.deepEqual(planBrowserSuites(fakeHost({ executables: ['/usr/bin/chromium'], env: { CI: 'true' } })), {
      action: 'run',
      executablePath: '/usr/bin/chromium',
    });
  });

  test('none found outside CI: skipped, saying how to run them', () => {
    const plan = planBrowserSuites(fakeHost({}));
    assert.equal(plan.action, 'skip');
    assert.equal(
      (plan as { message: string }).message,
      "no Chromium on PATH (chromium, chromium-browser, google-chrome, google-chrome-stable) or in Playwright's cache; " +
        'to run them, install Chromium (apt-get install chromium, or npx playwright install chromium) or set CHROMIUM_PATH',
    );
    assert.equal(planBrowserSuites(fakeHost({ env: { CI: 'false' } })).action, 'skip');
  });

  test('none found under CI=true: a failure, never a skip', () => {
    const plan = planBrowserSuites(fakeHost({ env: { CI: 'true' } }));
    assert.equal(plan.action, 'fail');
    assert.match((plan as { message: string }).message, /^no Chromium on PATH .*; under CI the browser suites must run: install Chromium/);
  });

  test("as root on Debian: Debian's package is installed once, then the suites run, fail or skip as above", () => {
    assert.deepEqual(planBrowserSuites(fakeHost({ debianRoot: true })), { action: 'install' });
    assert.deepEqual(planBrowserSuites(fakeHost({ debianRoot: true, env: { CI: 'true' } })), { action: 'install' });
    assert.deepEqual(planBrowserSuites(fakeHost({ debianRoot: true, executables: ['/usr/bin/chromium'] }), { installed: true }), {
      action: 'run',
      executablePath: '/usr/bin/chromium',
    });
    const failed = planBrowserSuites(fakeHost({ debianRoot: true, env: { CI: 'true' } }), { installed: false });
    assert.equal(failed.action, 'fail');
    assert.match((failed as { message: string }).message, /and installing Debian's chromium package failed; under CI/);
    const skipped = planBrowserSuites(fakeHost({ debianRoot: true }), { installed: false });
    assert.equal(skipped.action, 'skip');
    assert.match((skipped as { message: string }).message, /and installing Debian's chromium package failed; to run them/);
  });

  test('TEST_INSTALL_CHROMIUM=0 keeps it from installing anything', () => {
    assert.equal(planBrowserSuites(fakeHost({ debianRoot: true, env: { TEST_INSTALL_CHROMIUM: '0' } })).action, 'skip');
    assert.equal(planBrowserSuites(fakeHost({ debianRoot: true, env: { TEST_INSTALL_CHROMIUM: '0', CI: 'true' } })).action, 'fail');
  });
});

describe('npm test on a machine without Chromium', () => {
  const root = new URL('../../../../', import.meta.url).pathname;
  const claimPage = 'packages/server/src/escrow/claim-page.e2e.test.ts';
  const home = mkdtempSync(join(tmpdir(), 'wallet-no-browser-'));
  after(() => rmSync(home, { recursive: true, force: true }));

  /** The test runner on one browser suite (and `others`), with an empty PATH and home: no Chromium anywhere it looks. */
  function runTests(env: Record<string, string>, others: string[] = []) {
    const inherited = { ...process.env };
    // NODE_TEST_CONTEXT would make the inner test runner report to this one instead of its output;
    // WALLET_TEST_TIMES_FILE would have the inner run overwrite the outer run's figures, and the
    // outer run's share of the files (WALLET_TEST_SHARD) is not the inner run's.
    for (const name of ['CHROMIUM_PATH', 'CI', 'PLAYWRIGHT_BROWSERS_PATH', 'XDG_CACHE_HOME', 'TEST_DATABASE_URL', 'NODE_TEST_CONTEXT', 'WALLET_TEST_BROWSER', 'WALLET_TEST_TIMES_FILE', 'WALLET_TEST_SHARD', 'WALLET_TEST_SOAK']) delete inherited[name];
    return spawnSync(process.execPath, ['scripts/run-tests.mjs', claimPage, ...others], {
      cwd: root,
      encoding: 'utf8',
      env: { ...inherited, PATH: home, HOME: home, TEST_INSTALL_CHROMIUM: '0', ...env },
    });
  }

  test('skips the browser suites with one line and passes', () => {
    const result = runTests({});
    assert.equal(result.status, 0, result.stderr);
    assert.equal(
      result.stdout.trim(),
      "# browser suites: 1 test files skipped: no Chromium on PATH (chromium, chromium-browser, google-chrome, google-chrome-stable) or in Playwright's cache; " +
        'to run them, install Chromium (apt-get install chromium, or npx playwright install chromium) or set CHROMIUM_PATH',
    );
  });

  test('WALLET_TEST_BROWSER=off leaves them out with one line, even under CI=true', () => {
    const result = runTests({ WALLET_TEST_BROWSER: 'off', CI: 'true' });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim(), '# browser suites: 1 test files skipped (WALLET_TEST_BROWSER=off)');
  });

  test('WALLET_TEST_SHARD=k/n runs every n-th file of the path order from the k-th, and says so; a bad share is refused', () => {
    const files = ['packages/server/src/lib/keyed-queue.test.ts', 'packages/server/src/chain/batched-http.test.ts'];
    const second = runTests({ WALLET_TEST_SHARD: '2/2' }, files);
    assert.equal(second.status, 0, second.stdout);
    assert.match(second.stdout, /# SQLite store: 1 test files/);
    assert.match(second.stdout, /# shard 2 of 2: 1 of 2 test files/);
    assert.match(second.stdout, /keyed-queue/);
    assert.doesNotMatch(second.stdout, /batched-http/, 'the first file of the path order is the first share');
    const refused = runTests({ WALLET_TEST_SHARD: '3/2' }, files);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /WALLET_TEST_SHARD must be k\/n with 1 <= k <= n, not 3\/2/);
  });

  test('with TEST_DATABASE_URL set, a PostgreSQL pass left with no files passes', () => {
    // keyed-queue.test.ts does not use the store: nothing is left for the PostgreSQL pass, which
    // then makes no connection.
    const result = runTests({ TEST_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, ['packages/server/src/lib/keyed-queue.test.ts']);
    assert.equal(result.status, 0, result.stdout);
    assert.match(result.stdout, /# SQLite store: 1 test files\n# PostgreSQL store: 0 test files\n[\s\S]*ℹ fail 0\n[\s\S]*# browser suites: 1 test files skipped: /);
  });

  test("a store-backed file's PostgreSQL run runs on PostgreSQL, in the same pool, and is reported as such", () => {
    // An unreachable PostgreSQL: the file passes on SQLite, and fails on it only where it runs on PostgreSQL.
    const file = 'packages/server/src/custody/master-key-store.test.ts';
    const result = runTests({ TEST_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', WALLET_TEST_BROWSER: 'off' }, [file]);
    assert.equal(result.status, 1, result.stdout);
    assert.match(result.stdout, /# SQLite store: 1 test files\n# PostgreSQL store: 1 test files\n/);
    assert.match(result.stdout, /test at packages\/server\/src\/custody\/master-key-store\.test\.ts\.postgres:\d+:\d+\n✖ [^\n]*\n\s+Error: connect ECONNREFUSED 127\.0\.0\.1:1/);
    assert.match(result.stdout, /\(packages\/server\/src\/custody\/master-key-store\.test\.ts, SQLite store\)/);
    assert.match(result.stdout, /\(packages\/server\/src\/custody\/master-key-store\.test\.ts, PostgreSQL store\)/);
    assert.match(result.stdout, /tests: 1 passed, 1 failed, 0 skipped/);
  });

  test('under CI=true fails them instead', () => {
    const result = runTests({ CI: 'true' });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /# browser suites: failed: no Chromium on PATH .*; under CI the browser suites must run/);
    assert.match(result.stdout, /# SQLite store: 1 test files/);
    assert.match(result.stdout, /no Chromium on PATH .*: install Chromium/, 'the suite itself fails saying why');
  });
});
