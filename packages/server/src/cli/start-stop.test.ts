import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createPublicClient, http, type Address } from 'viem';
import { startTestChain, type TestChain } from '../testing/chain-node.ts';
import { startService, stopService, WALLET_SERVICE_BIN as BIN } from '../testing/service-process.ts';
import { runCli } from '../testing/cli-runner.ts';
import { nodesOf } from './testing/processes.ts';
import { signalProcess } from '../chain/managed-node.ts';

async function until(condition: () => boolean, what: string, limitMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + limitMs; !condition(); ) {
    if (Date.now() > deadline) assert.fail(`${what} did not happen within ${limitMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const dataDirs: string[] = [];
function newDataDir(): string {
  const directory = mkdtempSync(join(tmpdir(), 'wallet-start-'));
  dataDirs.push(directory);
  return directory;
}
after(() => {
  for (const directory of dataDirs) {
    for (const pid of nodesOf(directory)) signalProcess(pid, 'SIGKILL');
    rmSync(directory, { recursive: true, force: true });
  }
});

function baseEnv(dataDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, WALLET_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', ...extra };
  delete env.DATABASE_URL;
  return env;
}

/** Runs `wallet-service serve` expecting it to fail; a hang is cut off after 60 s and reported as one. */
function failedStart(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr: stderr.trim() });
    });
  });
}

// Never spawnSync while a service child runs: see testing/cli-runner.ts.
function cli(env: NodeJS.ProcessEnv, ...args: string[]) {
  return runCli(BIN, args, { env });
}

describe('a node never outlives its service', () => {
  test('kill -9 of the service ends its anvil nodes, which dump their state first', async () => {
    const dataDir = newDataDir();
    const env = baseEnv(dataDir, { WALLET_CHAIN_POLYGON: 'off', WALLET_SCRYPT_COST: '1024' });
    const { service, output } = await startService(env);
    // A start below the default scrypt cost says so (npm test's installations run at 2^10).
    assert.match(output, /custody\.scryptCost is 1024, below the default 32768: passwords and PINs set from now on are cheaper to guess/);
    const nodes = nodesOf(dataDir);
    assert.equal(nodes.length, 2, 'main and ethereum run');
    service.kill('SIGKILL');
    await until(() => nodesOf(dataDir).length === 0, 'the nodes ending');
    for (const chain of ['main', 'ethereum']) {
      JSON.parse(readFileSync(join(dataDir, 'chains', chain, 'state.json'), 'utf8'));
    }
    // The next start owns the data directory again: nothing of the killed service is in its way.
    const restarted = await startService({ ...env, WALLET_SCRYPT_COST: '' });
    assert.doesNotMatch(restarted.output, /scryptCost/);
    assert.equal(nodesOf(dataDir).length, 2);
    await stopService(restarted.service);
    assert.deepEqual(nodesOf(dataDir), []);
  });
});

describe('every start-up failure exits non-zero, says what is wrong and leaves no process behind', () => {
  let page: Server | undefined;
  let otherChain: TestChain | undefined;
  after(async () => {
    page?.close();
    await otherChain?.stop();
  });

  test('an invalid WALLET_TRUST_PROXY', async () => {
    const dataDir = newDataDir();
    const result = await failedStart(baseEnv(dataDir, { WALLET_TRUST_PROXY: '!!bad' }));
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /\/trustProxy \(WALLET_TRUST_PROXY\): invalid IP address: !!bad/);
    assert.deepEqual(nodesOf(dataDir), []);
  });

  test('an external chain that answers with an HTML page, beside embedded ones', async () => {
    page = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome</body></html>'));
    await new Promise<void>((resolve) => page!.listen(0, '127.0.0.1', resolve));
    const rpcUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    const dataDir = newDataDir();
    const result = await failedStart(baseEnv(dataDir, { WALLET_CHAIN_POLYGON_RPC_URL: rpcUrl, WALLET_CHAIN_POLYGON_CHAIN_ID: '137' }));
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, new RegExp(`chain polygon: ${rpcUrl} is not a JSON-RPC node: eth_chainId answered HTTP 200 \\(text/html\\)`));
    assert.equal(result.stderr.split('\n').filter((line) => line.startsWith('wallet-service:')).length, 1);
    assert.deepEqual(nodesOf(dataDir), [], 'the embedded main and ethereum nodes were stopped');
  });

  test('an external chain with another chain id', async () => {
    otherChain = await startTestChain({ chainId: 31337 });
    const dataDir = newDataDir();
    const result = await failedStart(
      baseEnv(dataDir, { WALLET_CHAIN_MAIN_RPC_URL: otherChain.rpcUrl, WALLET_CHAIN_MAIN_CHAIN_ID: '8217', WALLET_CHAIN_ETHEREUM: 'off', WALLET_CHAIN_POLYGON: 'off' }),
    );
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, new RegExp(`chain main: ${otherChain.rpcUrl} is the node of chain id 31337, not 8217`));
  });

  test('a second service on the data directory of a running one, with every chain external', async () => {
    otherChain ??= await startTestChain({ chainId: 31337 });
    const dataDir = newDataDir();
    const env = baseEnv(dataDir, { WALLET_CHAIN_MAIN_RPC_URL: otherChain.rpcUrl, WALLET_CHAIN_MAIN_CHAIN_ID: '31337', WALLET_CHAIN_ETHEREUM: 'off', WALLET_CHAIN_POLYGON: 'off' });
    const first = await startService(env);
    try {
      const second = await failedStart(env);
      assert.equal(second.code, 1, second.stderr);
      assert.match(second.stderr, new RegExp(`another wallet service \\(pid ${first.service.pid}, ${first.baseUrl}\\) runs on the data directory`));
      assert.equal((await fetch(`${first.baseUrl}/health`)).status, 200, 'the first service goes on');
    } finally {
      await stopService(first.service);
    }
  });
});

describe('PORT=0 and commands beside a running service', () => {
  let service: ChildProcess | undefined;
  after(() => stopService(service));

  test('the service prints its real port, and partner approve writes that URL into the card contract', async () => {
    const dataDir = newDataDir();
    const env = baseEnv(dataDir, { WALLET_CHAIN_ETHEREUM: 'off', WALLET_CHAIN_POLYGON: 'off' });
    const started = await startService(env);
    service = started.service;
    assert.match(started.baseUrl, /^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    assert.equal(JSON.parse(readFileSync(join(dataDir, 'service.json'), 'utf8')).publicUrl, started.baseUrl);

    const created = (await cli(env, 'partner', 'create', '--email', 'shop@example.com', '--password', 'Tall-Maple-Cloud-42', '--pin', '731946', '--name', 'Shop', '--phone', '+1 415 555 0100', '--service-name', 'Shop Cards'));
    assert.equal(created.code, 0, created.stderr);
    const approved = (await cli(env, 'partner', 'approve', '--email', 'shop@example.com', '--json'));
    assert.equal(approved.code, 0, approved.stderr);
    const { contract_address: contract, nft_id: nftId } = JSON.parse(approved.stdout);
    const rpcUrl = JSON.parse(readFileSync(join(dataDir, 'chains', 'main', 'node.json'), 'utf8')).rpcUrl;
    const chain = createPublicClient({ transport: http(rpcUrl) });
    const baseUri = await chain.readContract({
      address: contract as Address,
      abi: [{ type: 'function', name: 'baseURI', stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] }],
      functionName: 'baseURI',
    });
    assert.equal(baseUri, `${started.baseUrl}/v2/metadata/${nftId}/`);
  });

  test('the CLI refuses malformed options with one line each, before touching anything', async () => {
    const env = baseEnv(dataDirs.at(-1)!, { WALLET_CHAIN_ETHEREUM: 'off', WALLET_CHAIN_POLYGON: 'off' });
    const cases: Array<[string[], string]> = [
      [['partner', 'create', '--email', 'a@example.com', '--password', 'pw', '--pin', '12', '--name', 'A', '--phone', '+1 415 555 0101', '--service-name', 'A'], 'wallet-service: --pin must be 6 digits'],
      [['user', 'create', '--name', 'K', '--phone', '+1 415 555 0199', '--email', 'k@example.com', '--password', 'pw', '--pin', '1234567', '--birth', '1990-02-03'], 'wallet-service: --pin must be 6 digits'],
      [['partner', 'approve', '--email', 'shop@example.com', '--mint-limit', '2147483648'], 'wallet-service: --mint-limit must be at most 2,147,483,647'],
      [['faucet', '--to', '0x52908400098527886E0F7030069857D2E4169EE8', '--amount', '1'], 'wallet-service: error 6403: invalid to address: 0x52908400098527886E0F7030069857D2E4169EE8 is not an address, or its mixed-case checksum is wrong'],
      [['faucet', '--to', '0x52908400098527886e0f7030069857d2e4169ee7', '--amount', '0.0000000000000000001'], 'wallet-service: error 6404: invalid amount: amount must be a positive decimal number of coins'],
    ];
    for (const [args, expected] of cases) {
      const result = (await cli(env, ...args));
      assert.deepEqual({ code: result.code, stderr: result.stderr }, { code: 1, stderr: expected }, args.join(' '));
    }
    const unknown = (await cli(env, 'faucet', '--bogus'));
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^wallet-service: Unknown option '--bogus'\.[^\n]* Run wallet-service --help for usage\.$/);
  });
});
