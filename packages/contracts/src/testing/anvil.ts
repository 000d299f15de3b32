// A local anvil node for the contract tests, on a free port and a chain id of its own.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import {
  type Address,
  type Chain,
  type Hash,
  type PublicClient,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
  defineChain,
  getAddress,
  keccak256,
  toHex,
} from 'viem';
import { foundry } from 'viem/chains';

export const TEST_MNEMONIC = 'test test test test test test test test test test test junk';

export interface Anvil {
  process: ChildProcess;
  url: string;
  chain: Chain;
  stop(): Promise<void>;
}

function anvilBinary(): string {
  const packageJson = createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/package.json');
  return path.join(path.dirname(packageJson), 'bin', 'anvil');
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  server.close();
  await once(server, 'close');
  return address.port;
}

/**
 * Starts anvil and waits until it answers. A free port can be taken by another process's node
 * between the probe and anvil's bind, so the node gets a random chain id and the one that
 * answers must have it. `args` are passed on to anvil (e.g. a larger block gas limit).
 */
export async function startAnvil(options: { args?: readonly string[] } = {}): Promise<Anvil> {
  const chainId = 100_000 + Math.floor(Math.random() * 1_000_000_000);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId), '--silent', ...(options.args ?? [])];
  const child = spawn(anvilBinary(), args, {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));

  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`anvil exited with code ${child.exitCode}: ${stderr}`);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      const { result } = (await response.json()) as { result?: string };
      if (result !== undefined && Number(result) === chainId) {
        return { process: child, url, chain: defineChain({ ...foundry, id: chainId }), stop: () => stopAnvil(child) };
      }
      if (result !== undefined) {
        child.kill('SIGKILL');
        return startAnvil(options);
      }
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`anvil did not answer on ${url} within 10 s: ${stderr}`);
}

async function stopAnvil(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

/** Deterministic fresh addresses that hold nothing yet (like new custodial accounts). */
export function freshAddresses(count: number, salt: string): Address[] {
  return Array.from({ length: count }, (_, i) => getAddress(keccak256(toHex(`${salt}-${i}`)).slice(0, 42)));
}

/**
 * The receipt of a sent transaction, asked for until the node has it. viem's
 * waitForTransactionReceipt asks again only when a new block appears, so on an automining node a
 * receipt asked for in the moment between the block and its receipt was never found: the wait
 * hung until its timeout, as no later block came.
 */
export async function receiptOf(client: PublicClient, hash: Hash): Promise<TransactionReceipt> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const receipt = await client.getTransactionReceipt({ hash }).catch((error: unknown) => {
      if (error instanceof TransactionReceiptNotFoundError) return undefined;
      throw error;
    });
    if (receipt) return receipt;
    if (Date.now() > deadline) throw new Error(`transaction ${hash} has no receipt after 300 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
