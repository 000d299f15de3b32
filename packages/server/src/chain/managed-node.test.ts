import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createPublicClient, createWalletClient, defineChain, http, parseEther, type Hash } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { anvilBinaryPath, ForeignNodeError, freePort, isAlive, ManagedNode, nodeIdentity, reservePort, signalProcess, waitForRpc } from './managed-node.ts';
import { startTestChain } from '../testing/chain-node.ts';
import { tornDumpReason } from './state-dump.ts';

const CHAIN_ID = 31_999;
const chain = defineChain({ id: CHAIN_ID, name: 'test', nativeCurrency: { name: 'Coin', symbol: 'C', decimals: 18 }, rpcUrls: { default: { http: [] } } });
const sender = privateKeyToAccount(generatePrivateKey());
const directory = mkdtempSync(join(tmpdir(), 'wallet-managed-node-'));
after(() => rmSync(directory, { recursive: true, force: true }));

function startNode(logged: string[]): ManagedNode {
  return new ManagedNode({
    name: 'main',
    directory,
    settings: { mode: 'managed', chainId: CHAIN_ID, messagePrefix: '', rpcPort: 0, blockTimeSeconds: 0, stateIntervalSeconds: 1 },
    log: (message) => logged.push(message),
  });
}

async function send(rpcUrl: string, count: number): Promise<Hash[]> {
  const wallet = createWalletClient({ account: sender, chain, transport: http(rpcUrl) });
  const reader = createPublicClient({ chain, transport: http(rpcUrl) });
  await reader.request({ method: 'anvil_setBalance' as never, params: [sender.address, '0x56BC75E2D63100000'] as never });
  const hashes: Hash[] = [];
  for (let index = 0; index < count; index++) {
    const hash = await wallet.sendTransaction({ to: '0x000000000000000000000000000000000000dEaD', value: parseEther('0.001') });
    await reader.waitForTransactionReceipt({ hash });
    hashes.push(hash);
  }
  return hashes;
}

interface Dump {
  best_block_number: string;
  blocks: Array<{ header?: { number?: string } }>;
  transactions: Array<{ info: { from: string; nonce: number }; block_number: number }>;
  accounts: Record<string, { nonce: number }>;
}

function readDump(path: string): Dump {
  return JSON.parse(readFileSync(path, 'utf8')) as Dump;
}

/** Drops the dump's last block and the sender's last transaction, keeping the accounts as they are. */
function tearLastBlock(statePath: string): void {
  const dump = readDump(statePath);
  const last = dump.accounts[sender.address.toLowerCase()]!.nonce - 1;
  dump.blocks.pop();
  dump.transactions = dump.transactions.filter((transaction) => transaction.info.nonce !== last);
  dump.best_block_number = `0x${(BigInt(dump.best_block_number) - 1n).toString(16)}`;
  assert.match(tornDumpReason(dump) ?? '', /ahead of the dump's transactions/);
  writeFileSync(statePath, JSON.stringify(dump));
}

describe('the managed node restarts from a whole state dump', () => {
  test('a dump whose accounts are ahead of its blocks (taken while a block was mined) is set aside for the previous copy', { timeout: 90_000 }, async () => {
    const logged: string[] = [];
    // First run: one transaction, dumped on a graceful stop.
    let node = startNode(logged);
    const [first] = await send(await node.start(), 1);
    await node.stop();
    // Second run: the whole dump is kept as the previous copy; two more transactions.
    node = startNode(logged);
    await send(await node.start(), 2);
    await node.stop();

    // Tear the dump the way anvil does when a block is mined during it: the last block and its
    // transaction are missing while the accounts already hold its effects.
    const statePath = join(directory, 'state.json');
    const dump = readDump(statePath);
    assert.equal(tornDumpReason(dump), undefined, 'a dump written on a graceful stop is whole');
    assert.equal(dump.accounts[sender.address.toLowerCase()]?.nonce, 3);
    tearLastBlock(statePath);
    const copied = readDump(`${statePath}.previous`).accounts[sender.address.toLowerCase()]!.nonce;
    assert.ok(copied >= 1 && copied < 3, `the copy holds a whole dump before the torn one (nonce ${copied})`);

    node = startNode(logged);
    const rpcUrl = await node.start();
    try {
      const reader = createPublicClient({ chain, transport: http(rpcUrl) });
      // The copy: the first transaction with its receipt, and nothing after the copy, so the
      // transactions it lacks can be sent again (the outbox replays them) instead of being lost.
      assert.equal(await reader.getTransactionCount({ address: sender.address }), copied);
      assert.equal((await reader.getTransactionReceipt({ hash: first! })).status, 'success');
      assert.ok(logged.some((line) => /taken while a block was mined.*previous copy/.test(line)), logged.join('\n'));
      await send(rpcUrl, 1);
      assert.equal(await reader.getTransactionCount({ address: sender.address }), copied + 1);
    } finally {
      await node.stop();
    }
  });

  test('while the node runs its whole dumps are kept, so a torn one costs seconds of blocks, not the run', { timeout: 90_000 }, async () => {
    const logged: string[] = [];
    const statePath = join(directory, 'state.json');
    let node = startNode(logged);
    const rpcUrl = await node.start();
    const reader = createPublicClient({ chain, transport: http(rpcUrl) });
    const atStart = await reader.getTransactionCount({ address: sender.address });
    await send(rpcUrl, 2);
    // The copy follows the node's dumps while it runs.
    const deadline = Date.now() + 20_000;
    while (readDump(`${statePath}.previous`).accounts[sender.address.toLowerCase()]?.nonce !== atStart + 2) {
      assert.ok(Date.now() < deadline, "the running node's whole dump was never copied");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await send(rpcUrl, 1);
    await node.stop();
    tearLastBlock(statePath);

    node = startNode(logged);
    try {
      const restarted = createPublicClient({ chain, transport: http(await node.start()) });
      assert.equal(await restarted.getTransactionCount({ address: sender.address }), atStart + 2, 'back to the copy made while running, not to the start');
    } finally {
      await node.stop();
    }
  });

  test('a dump holding a transaction without its block (mined between the two reads) is torn too', () => {
    const dump = readDump(join(directory, 'state.json'));
    assert.equal(tornDumpReason(dump), undefined);
    const last = Math.max(...dump.transactions.map((transaction) => transaction.block_number));
    dump.blocks = dump.blocks.filter((block) => BigInt(block.header!.number!) !== BigInt(last));
    dump.best_block_number = `0x${(BigInt(last) - 1n).toString(16)}`;
    assert.equal(tornDumpReason(dump), `it holds a transaction of block ${last} without the block`);
  });

  test('a dump of a node restarted from a dump counts the transactions of both', () => {
    // The check reads every transaction a dump holds, including those loaded from an earlier one.
    const dump = readDump(join(directory, 'state.json'));
    assert.equal(tornDumpReason(dump), undefined);
    const sent = dump.transactions.filter((transaction) => transaction.info.from === sender.address.toLowerCase());
    assert.equal(sent.length, dump.accounts[sender.address.toLowerCase()]!.nonce);
  });
});

describe("the node's dev accounts stay off its command line", () => {
  /** Twelve or more words of the BIP-39 list in a row, or a 32-byte hex value: a mnemonic or a key. */
  const secretLike = /(?:\b[a-z]{3,8}\b[\s\0]+){11,}\b[a-z]{3,8}\b|(?:0x)?[0-9a-f]{64}/i;

  test('the running node\'s argv and environment hold no mnemonic or key; its identity file is gone once read', { timeout: 90_000, skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
    const own = mkdtempSync(join(tmpdir(), 'wallet-managed-node-argv-'));
    const node = new ManagedNode({
      name: 'main',
      directory: own,
      settings: { mode: 'managed', chainId: CHAIN_ID, messagePrefix: '', rpcPort: 0, blockTimeSeconds: 0, stateIntervalSeconds: 1 },
    });
    try {
      await node.start();
      const argv = readFileSync(`/proc/${node.pid}/cmdline`, 'utf8').split('\0');
      assert.ok(argv.some((arg) => arg.endsWith('anvil')), `the node's own process: ${argv.join(' ')}`);
      assert.ok(!argv.includes('--mnemonic') && !argv.includes('--mnemonic-seed-unsafe'), argv.join(' '));
      assert.doesNotMatch(argv.join(' '), secretLike);
      assert.doesNotMatch(readFileSync(`/proc/${node.pid}/environ`, 'utf8'), secretLike);
      assert.ok(!existsSync(join(own, 'node-identity.json')), 'no identity file left');
    } finally {
      await node.stop();
      rmSync(own, { recursive: true, force: true });
    }
  });

  test('a node on the port that is not the one we started is refused (ForeignNodeError)', { timeout: 90_000 }, async () => {
    const foreign = await startTestChain({ chainId: CHAIN_ID });
    const own = mkdtempSync(join(tmpdir(), 'wallet-managed-node-identity-'));
    const port = await freePort();
    const identity = nodeIdentity(join(own, 'node-identity.json'));
    const ours = spawn(anvilBinaryPath(), ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(CHAIN_ID), '--silent', ...identity.args], { stdio: 'ignore' });
    try {
      await waitForRpc(`http://127.0.0.1:${port}`, CHAIN_ID, 30_000, identity);
      await assert.rejects(waitForRpc(foreign.rpcUrl, CHAIN_ID, 30_000, identity), ForeignNodeError);
      assert.ok(!existsSync(join(own, 'node-identity.json')), 'the identity file is removed once read');
    } finally {
      ours.kill('SIGKILL');
      await foreign.stop();
      rmSync(own, { recursive: true, force: true });
    }
  });
});

describe('a node left behind by a stopped process', () => {
  // Its watchdog ends it too once its owner is gone, so it may exit between the look and the signal:
  // a start over it must not fail on that (kill ESRCH stopped a restart after a crash once).
  test('a process gone between a look and the signal is no error; a live one is signalled', { timeout: 30_000 }, async () => {
    const gone = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((resolve) => gone.once('exit', resolve));
    assert.equal(isAlive(gone.pid!), false);
    assert.equal(signalProcess(gone.pid!, 'SIGTERM'), false);

    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30_000)'], { stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => live.once('exit', (_code, signal) => resolve(signal)));
    await new Promise((resolve) => live.once('spawn', resolve));
    assert.equal(signalProcess(live.pid!, 'SIGTERM'), true);
    assert.equal(await exited, 'SIGTERM');
  });
});

test('a reserved port is given to nothing else until it is released, and can be listened on then (serve with PORT=0)', async () => {
  const listenOn = (port: number) =>
    new Promise<() => void>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve(() => server.close()));
    });
  const reserved = await reservePort();
  await assert.rejects(listenOn(reserved.port), { code: 'EADDRINUSE' });
  const probed = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  assert.ok(!probed.includes(reserved.port), 'a port probed meanwhile is another one');
  await reserved.release();
  await reserved.release(); // a second release is the same one
  const close = await listenOn(reserved.port);
  close();
});
