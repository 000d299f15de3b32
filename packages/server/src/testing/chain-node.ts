import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { anvilBinaryPath, freePort, nodeIdentity, waitForRpc } from '../chain/managed-node.ts';

/** A throwaway anvil for one test or benchmark: in memory, loopback only, mining each transaction at once. */
export interface TestChain {
  rpcUrl: string;
  chainId: number;
  /** Process id of the node (tests that kill it on purpose). */
  pid: number;
  /** Ends the node (SIGTERM, then SIGKILL after 5 s); safe to call more than once. */
  stop(): Promise<void>;
}

export interface TestChainOptions {
  /** Defaults to 31337, the id of the embedded main chain. */
  chainId?: number;
}

/** Nodes still running, ended when this process exits however it exits. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

/**
 * Starts anvil on 127.0.0.1 on a free port and resolves once it answers eth_chainId. A port taken
 * between the probe and anvil's bind is retried on another port.
 */
export async function startTestChain(options: TestChainOptions = {}): Promise<TestChain> {
  const chainId = options.chainId ?? 31337;
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await spawnChain(chainId, await freePort());
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

async function spawnChain(chainId: number, port: number): Promise<TestChain> {
  installExitHook();
  const rpcUrl = `http://127.0.0.1:${port}`;
  // A private (0700) folder for the node's identity file, removed with the node.
  const identityDirectory = mkdtempSync(join(tmpdir(), 'wallet-test-chain-'));
  const identity = nodeIdentity(join(identityDirectory, 'node-identity.json'));
  const child = spawn(
    anvilBinaryPath(),
    ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId), '--silent', ...identity.args],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  running.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => rmSync(identityDirectory, { recursive: true, force: true }));
  void exited.then(() => running.delete(child));

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };

  const exitedEarly = exited.then(() => {
    throw new Error(`anvil exited during start (${child.signalCode ?? child.exitCode}): ${stderr.trim()}`);
  });
  exitedEarly.catch(() => {});
  try {
    await Promise.race([waitForRpc(rpcUrl, chainId, 20_000, identity), exitedEarly]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { rpcUrl, chainId, pid: child.pid!, stop };
}

