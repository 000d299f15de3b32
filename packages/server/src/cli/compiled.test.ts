/**
 * The production build: scripts/build.mjs compiles the service into dist/ (as `npm install` does),
 * and bin/wallet-service.js, what `npm start` and the installed command run, starts from it with
 * no TypeScript loader: health, the files it serves by path, and a card contract deployed from the
 * artifacts compiled into the bundle.
 */
import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, http, type Address } from 'viem';
import { startService, stopService, WALLET_SERVICE_COMPILED_BIN as BIN } from '../testing/service-process.ts';
import { runCli } from '../testing/cli-runner.ts';
import { nodesOf } from './testing/processes.ts';

const serverRoot = new URL('../../', import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), 'wallet-compiled-'));
let service: ChildProcess | undefined;
after(async () => {
  await stopService(service);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(dirname(outdir), { recursive: true, force: true });
});

// Never spawnSync while a service child runs: see testing/cli-runner.ts.
function cli(env: NodeJS.ProcessEnv, ...args: string[]) {
  return runCli(BIN, args, { env });
}

// The build is checked in a directory of its own: other test files may be running the dist/ that
// npm test built before them (WALLET_TEST_COMPILED). Run on its own, this file builds dist/ first.
const outdir = join(mkdtempSync(join(tmpdir(), 'wallet-build-')), 'dist');
before(() => {
  if (process.env.WALLET_TEST_COMPILED === '1') return;
  const built = spawnSync(process.execPath, [join(serverRoot, 'scripts/build.mjs')], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(built.status, 0, built.stderr);
});

describe('the compiled service', () => {
  test('the build writes JavaScript (the entry and the chunks its commands load) that imports no TypeScript and no loader', () => {
    const built = spawnSync(process.execPath, [join(serverRoot, 'scripts/build.mjs'), '--outdir', outdir], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(built.status, 0, built.stderr);
    const files = ['wallet-service.js', ...readdirSync(join(outdir, 'chunks')).filter((name) => name.endsWith('.js')).map((name) => `chunks/${name}`)];
    assert.ok(files.length > 2, `the build holds the entry and its chunks: ${files.join(', ')}`);
    for (const file of files) {
      const code = readFileSync(join(outdir, file), 'utf8');
      assert.doesNotMatch(code, /from "[^"]*\.ts"|import\("[^"]*\.ts"\)/, file);
      assert.doesNotMatch(code, /from ["']tsx|import\(["']tsx/, file);
    }
    assert.doesNotMatch(readFileSync(BIN, 'utf8'), /from ["']tsx|import\(["']tsx/);
  });

  test('the compiled entry loads no package before a command runs: only Node.js built-ins, statically', () => {
    // Everything `--help` (or a mistyped command) loads is the entry's static import graph.
    const packages = new Set<string>();
    const seen = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const [, from, bare] of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s[^;]*?from\s*"([^"]+)"|^import\s*"([^"]+)"/gms)) {
        const specifier = (from ?? bare)!;
        if (specifier.startsWith('.')) walk(join(dirname(file), specifier));
        else if (!specifier.startsWith('node:')) packages.add(specifier);
      }
    };
    walk(join(outdir, 'wallet-service.js'));
    assert.deepEqual([...packages], [], `loaded before any command: ${[...seen].join(', ')}`);
    assert.ok(seen.size <= 6, `the entry's static graph stays small: ${[...seen].join(', ')}`);
  });

  test('npm start\'s command serves /health, the files found by path, and deploys a card contract', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, WALLET_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', WALLET_CHAIN_ETHEREUM: 'off', WALLET_CHAIN_POLYGON: 'off' };
    delete env.DATABASE_URL;
    delete env.NODE_OPTIONS;
    const started = await startService(env, { bin: BIN });
    service = started.service;

    const health = await fetch(`${started.baseUrl}/health`);
    assert.equal(health.status, 200);
    assert.equal((await health.json()).status, 'ok');
    // Each of these is read from a file at run time, located from the bundle's place.
    for (const [path, type] of [
      ['/', 'text/html'],
      ['/examples/bapp/', 'text/html'],
      ['/examples/bapp/wallet-a2a.js', 'text/javascript'],
      ['/docs/', 'text/html'],
      ['/openapi.json', 'application/json'],
    ] as const) {
      const response = await fetch(`${started.baseUrl}${path}`);
      assert.equal(response.status, 200, `${path}: ${await response.clone().text()}`);
      assert.match(response.headers.get('content-type') ?? '', new RegExp(`^${type}`), path);
    }

    const created = (await cli(env, 'partner', 'create', '--email', 'shop@example.com', '--password', 'Tall-Maple-Cloud-42', '--pin', '731946', '--name', 'Shop', '--phone', '+1 415 555 0100', '--service-name', 'Shop Cards'));
    assert.equal(created.code, 0, created.stderr);
    const approved = (await cli(env, 'partner', 'approve', '--email', 'shop@example.com', '--json'));
    assert.equal(approved.code, 0, approved.stderr);
    const { contract_address: contract } = JSON.parse(approved.stdout);
    const rpcUrl = JSON.parse(readFileSync(join(dataDir, 'chains', 'main', 'node.json'), 'utf8')).rpcUrl;
    const code = await createPublicClient({ transport: http(rpcUrl) }).getCode({ address: contract as Address });
    assert.ok(code && code.length > 2, 'the card contract has code on the chain');

    // The whole-dump copier runs in a worker thread from the bundle's own source: its copy of the
    // node's state comes to hold the contract deployed just now.
    const copy = join(dataDir, 'chains', 'main', 'state.json.previous');
    const deadline = Date.now() + 30_000;
    const holdsContract = () => {
      try {
        return readFileSync(copy, 'utf8').toLowerCase().includes(contract.slice(2).toLowerCase());
      } catch {
        return false;
      }
    };
    while (!holdsContract()) {
      assert.ok(Date.now() < deadline, 'the copy of the last whole state dump holds the new contract within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });

  test('SIGTERM to the compiled entry run directly (as the systemd unit of docs/operations.md does) stops the service and its anvil node, exit 0', async () => {
    assert.ok(service && service.exitCode === null, 'the service of the test before runs');
    const nodes = nodesOf(dataDir);
    assert.ok(nodes.length > 0, 'its embedded node runs');
    // The process a supervisor sees is node running bin/wallet-service.js itself: no npm, no shell.
    const command = readFileSync(`/proc/${service.pid}/cmdline`, 'utf8').split('\0');
    assert.deepEqual(command.slice(1, 3), [BIN, 'serve']);
    const exited = new Promise<number | null>((resolve) => service!.once('exit', resolve));
    service.kill('SIGTERM');
    assert.equal(await exited, 0);
    for (const deadline = Date.now() + 30_000; nodesOf(dataDir).length > 0; ) {
      assert.ok(Date.now() < deadline, `anvil nodes ${nodesOf(dataDir).join(', ')} still run 30 s after the service exited`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});
