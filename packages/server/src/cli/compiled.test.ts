/**
 * The production build: scripts/build.mjs compiles the service into dist/ (as `npm install` does),
 * and bin/wallet-service.js, what `npm start` and the installed command run, starts from it with
 * no TypeScript loader: health, the files it serves by path, and a card contract deployed from the
 * artifacts compiled into the bundle.
 */
import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createPublicClient, http, type Address } from 'viem';
import { startService, stopService, WALLET_SERVICE_COMPILED_BIN as BIN } from '../testing/service-process.ts';

const serverRoot = new URL('../../', import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), 'wallet-compiled-'));
let service: ChildProcess | undefined;
after(async () => {
  await stopService(service);
  rmSync(dataDir, { recursive: true, force: true });
});

function cli(env: NodeJS.ProcessEnv, ...args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', timeout: 120_000 });
  return { code: result.status, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
}

describe('the compiled service', () => {
  test('the build writes one JavaScript bundle that imports no TypeScript and no loader', () => {
    const built = spawnSync(process.execPath, [join(serverRoot, 'scripts/build.mjs')], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(built.status, 0, built.stderr);
    const bundle = readFileSync(join(serverRoot, 'dist/wallet-service.js'), 'utf8');
    assert.doesNotMatch(bundle, /from "[^"]*\.ts"|import\("[^"]*\.ts"\)/);
    for (const code of [bundle, readFileSync(BIN, 'utf8')]) assert.doesNotMatch(code, /from ["']tsx|import\(["']tsx/);
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

    const created = cli(env, 'partner', 'create', '--email', 'shop@example.com', '--password', 'pw', '--pin', '123456', '--name', 'Shop', '--phone', '+1 415 555 0100', '--service-name', 'Shop Cards');
    assert.equal(created.code, 0, created.stderr);
    const approved = cli(env, 'partner', 'approve', '--email', 'shop@example.com', '--json');
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
});
