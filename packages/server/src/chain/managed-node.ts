import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { mnemonicToAccount } from 'viem/accounts';
import type { ManagedChainSettings } from '../config/config.ts';

const require = createRequire(import.meta.url);

/** Path of the anvil binary shipped by the platform package of `@foundry-rs/anvil`. */
export function anvilBinaryPath(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const platform = process.platform === 'win32' ? 'win32' : process.platform;
  const packageJson = require.resolve(`@foundry-rs/anvil-${platform}-${arch}/package.json`);
  return join(packageJson, '..', 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
}

/** What a running node writes to its folder so the CLI and later starts can find it. */
interface NodeRecord {
  nodePid: number;
  ownerPid: number;
  rpcUrl: string;
  chainId: number;
}

export interface ManagedNodeOptions {
  name: string;
  settings: ManagedChainSettings;
  /** Folder of this node's state (`<dataDir>/chains/<name>`). */
  directory: string;
  log?: (message: string) => void;
}

/**
 * Supervises one anvil process: loopback only, state in the data directory (dumped every
 * `stateIntervalSeconds` and on exit), restarted when it dies. Emits `restarted` after an
 * unplanned restart so the outbox can replay what the node lost.
 */
export class ManagedNode extends EventEmitter {
  readonly name: string;
  private readonly settings: ManagedChainSettings;
  private readonly directory: string;
  private readonly log: (message: string) => void;
  private child: ChildProcess | undefined;
  private port = 0;
  private stopping = false;

  constructor(options: ManagedNodeOptions) {
    super();
    this.name = options.name;
    this.settings = options.settings;
    this.directory = options.directory;
    this.log = options.log ?? (() => {});
  }

  get rpcUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  private get recordPath(): string {
    return join(this.directory, 'node.json');
  }

  private get statePath(): string {
    return join(this.directory, 'state.json');
  }

  /** Starts the node, first ending a node left behind by a process that died. */
  async start(): Promise<string> {
    mkdirSync(this.directory, { recursive: true });
    await this.endOrphan();
    this.port = this.settings.rpcPort || (await freePort());
    await this.spawnNode();
    return this.rpcUrl;
  }

  /** Stops the node gracefully so that it dumps its state. */
  async stop(): Promise<void> {
    this.stopping = true;
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.recordPath, { force: true });
  }

  /**
   * `restart`: the node died under a running service, whose clients keep this node's URL, so the
   * port must stay; only a first start may move to another free port.
   */
  private async spawnNode(attempt = 0, restart = false): Promise<void> {
    this.backUpState();
    const identity = nodeIdentity();
    const args = [
      '--host', '127.0.0.1',
      '--port', String(this.port),
      '--chain-id', String(this.settings.chainId),
      '--state', this.statePath,
      '--state-interval', String(this.settings.stateIntervalSeconds),
      '--silent',
      ...identity.args,
    ];
    if (this.settings.blockTimeSeconds > 0) args.push('--block-time', String(this.settings.blockTimeSeconds));
    let stderr = '';
    const child = spawn(anvilBinaryPath(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    this.child = child;
    const exitedEarly = new Promise<never>((_, reject) =>
      child.once('exit', (code, signal) =>
        reject(new Error(`chain ${this.name}: node exited during start (${signal ?? code}): ${stderr.trim()}`)),
      ),
    );
    exitedEarly.catch(() => {});
    try {
      await Promise.race([waitForRpc(this.rpcUrl, this.settings.chainId, 30_000, identity.account), exitedEarly]);
    } catch (error) {
      const portTaken = error instanceof ForeignNodeError || /address already in use|os error 98/i.test(stderr);
      if (portTaken && attempt < 5 && (restart || !this.settings.rpcPort)) {
        child.kill('SIGKILL');
        if (restart) await sleep(200); // the dead node's port is usually free again a moment later
        else this.port = await freePort();
        return this.spawnNode(attempt + 1, restart);
      }
      child.kill('SIGKILL');
      if (existsSync(this.statePath) && /state/i.test(stderr)) {
        // A state file cut off by a hard kill: start from the last good copy; the outbox replays the rest.
        this.log(`chain ${this.name}: state file unreadable, restoring the previous copy`);
        this.restoreStateBackup();
        return this.spawnNode(attempt + 1, restart);
      }
      throw error;
    }
    writeJsonAtomically(this.recordPath, {
      nodePid: child.pid!,
      ownerPid: process.pid,
      rpcUrl: this.rpcUrl,
      chainId: this.settings.chainId,
    } satisfies NodeRecord);
    child.once('exit', (code, signal) => {
      if (this.stopping || this.child !== child) return;
      this.log(`chain ${this.name}: node exited (${signal ?? code}); restarting`);
      this.spawnNode(0, true).then(
        () => this.emit('restarted'),
        (error: Error) => this.emit('error', error),
      );
    });
  }

  /** A node whose owner process is gone is ended with SIGTERM, so it dumps its state first. */
  private async endOrphan(): Promise<void> {
    const record = readNodeRecord(this.directory);
    if (!record) return;
    if (record.ownerPid !== process.pid && isAlive(record.ownerPid) && isAlive(record.nodePid)) {
      throw new Error(
        `chain ${this.name}: another process (pid ${record.ownerPid}) already runs the node of this data directory`,
      );
    }
    if (isAlive(record.nodePid)) {
      this.log(`chain ${this.name}: ending node ${record.nodePid} left by a stopped process`);
      process.kill(record.nodePid, 'SIGTERM');
      const deadline = Date.now() + 10_000;
      while (isAlive(record.nodePid) && Date.now() < deadline) await sleep(50);
      if (isAlive(record.nodePid)) process.kill(record.nodePid, 'SIGKILL');
    }
    rmSync(this.recordPath, { force: true });
  }

  private backUpState(): void {
    if (!existsSync(this.statePath)) return;
    try {
      JSON.parse(readFileSync(this.statePath, 'utf8'));
      copyFileSync(this.statePath, `${this.statePath}.previous`);
    } catch {
      this.restoreStateBackup();
    }
  }

  private restoreStateBackup(): void {
    const backup = `${this.statePath}.previous`;
    if (existsSync(backup)) copyFileSync(backup, this.statePath);
    else rmSync(this.statePath, { force: true });
  }
}

/** The node record of a data directory's chain, when a live owner runs it (used by the CLI). */
export function findRunningNode(directory: string): { rpcUrl: string; chainId: number } | undefined {
  const record = readNodeRecord(directory);
  if (!record || !isAlive(record.nodePid) || !isAlive(record.ownerPid)) return undefined;
  return { rpcUrl: record.rpcUrl, chainId: record.chainId };
}

function readNodeRecord(directory: string): NodeRecord | undefined {
  try {
    return JSON.parse(readFileSync(join(directory, 'node.json'), 'utf8')) as NodeRecord;
  } catch {
    return undefined;
  }
}

function writeJsonAtomically(path: string, value: unknown): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(value));
  renameSync(temporary, path);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A port free on loopback right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * A port is probed free and then bound by anvil, so another process may take it in between and
 * we would talk to its node. Each node we start therefore gets its own random dev mnemonic; the
 * node on the port is ours only if its first dev account is the one that mnemonic gives.
 */
export function nodeIdentity(): { args: string[]; account: string } {
  const mnemonic = generateMnemonic(english, 128);
  return { args: ['--mnemonic', mnemonic], account: mnemonicToAccount(mnemonic).address.toLowerCase() };
}

export class ForeignNodeError extends Error {
  override readonly name = 'ForeignNodeError';
}

async function rpcCall(rpcUrl: string, method: string): Promise<unknown> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
    signal: AbortSignal.timeout(2_000),
  });
  return ((await response.json()) as { result?: unknown }).result;
}

/** Waits until the node answers with the expected chain id (and, for a node we started, our identity). */
export async function waitForRpc(rpcUrl: string, chainId: number, timeoutMs = 30_000, identity?: string): Promise<void> {
  await waitForChainId(rpcUrl, chainId, timeoutMs);
  if (identity === undefined) return;
  const accounts = (await rpcCall(rpcUrl, 'eth_accounts')) as string[] | undefined;
  if (accounts?.[0]?.toLowerCase() !== identity) throw new ForeignNodeError(`another node answers on ${rpcUrl}`);
}

async function waitForChainId(rpcUrl: string, chainId: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
        signal: AbortSignal.timeout(2_000),
      });
      const body = (await response.json()) as { result?: string };
      if (body.result && Number(body.result) === chainId) return;
      if (body.result) throw new Error(`node at ${rpcUrl} has chain id ${Number(body.result)}, expected ${chainId}`);
    } catch (error) {
      lastError = error;
      if ((error as Error).message?.includes('expected')) throw error;
    }
    await sleep(50);
  }
  throw new Error(`node at ${rpcUrl} did not answer within ${timeoutMs} ms: ${String(lastError)}`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
