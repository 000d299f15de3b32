import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { ManagedChainSettings } from '../config/config.ts';
import { keepWholeStateDump, restorePreviousStateDump, WholeCopyKeeper } from './state-dump.ts';
import { makePrivateDirectory, PRIVATE_FILE_MODE } from '../lib/private-files.ts';

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
 * `stateIntervalSeconds` and on exit), restarted when it dies. Emits `exited` when it dies
 * unplanned and `restarted` once it is back, so the outbox can hold its sends and replay what the
 * node lost.
 */
export class ManagedNode extends EventEmitter {
  readonly name: string;
  private readonly settings: ManagedChainSettings;
  private readonly directory: string;
  private readonly log: (message: string) => void;
  private child: TiedChild | undefined;
  private nodePid: number | undefined;
  private port = 0;
  private stopping = false;
  private wholeCopies: WholeCopyKeeper | undefined;

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

  /** The node's own process id (not the watchdog shell's). */
  get pid(): number | undefined {
    return this.nodePid;
  }

  private get recordPath(): string {
    return join(this.directory, 'node.json');
  }

  private get statePath(): string {
    return join(this.directory, 'state.json');
  }

  /** Starts the node, first ending a node left behind by a process that died. */
  async start(): Promise<string> {
    makePrivateDirectory(this.directory);
    await this.endOrphan();
    this.port = this.settings.rpcPort || (await freePort());
    await this.spawnNode();
    this.wholeCopies = new WholeCopyKeeper(this.statePath);
    return this.rpcUrl;
  }

  /**
   * Ends the node at once (SIGKILL), without its state dump: for a process that must exit now.
   * Resolves once the node process is gone (at most `limitMs`), so an exit right after it leaves
   * no node still dying behind.
   */
  async kill(limitMs = 1_000): Promise<void> {
    this.stopping = true;
    this.child?.killHard();
    void this.wholeCopies?.close();
    if (this.nodePid !== undefined) await waitForExit(this.nodePid, limitMs);
  }

  /** Stops the node gracefully so that it dumps its state. */

  async stop(): Promise<void> {
    this.stopping = true;
    // Not awaited: the node's own stop must not wait on the copier's.
    void this.wholeCopies?.close();
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.killHard(), 10_000);
      await exited;
      clearTimeout(timer);
      // The watchdog waits for the node, unless both were killed hard: then the node may be dying still.
      if (this.nodePid !== undefined) await waitForExit(this.nodePid, 2_000);
    }
    rmSync(this.recordPath, { force: true });
  }

  /**
   * `restart`: the node died under a running service, whose clients keep this node's URL, so the
   * port must stay; only a first start may move to another free port.
   */
  private async spawnNode(attempt = 0, restart = false): Promise<void> {
    keepWholeStateDump(this.statePath, (message) => this.log(`chain ${this.name}: ${message}`));
    const identity = nodeIdentity(join(this.directory, 'node-identity.json'));
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
    const child = spawnTiedToThisProcess(anvilBinaryPath(), args);
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
    let nodePid: number;
    try {
      nodePid = await Promise.race([child.nodePid, exitedEarly]);
      this.nodePid = nodePid;
      await Promise.race([waitForRpc(this.rpcUrl, this.settings.chainId, 30_000, identity), exitedEarly]);
    } catch (error) {
      identity.discard();
      const portTaken = error instanceof ForeignNodeError || /address already in use|os error 98/i.test(stderr);
      if (portTaken && attempt < 5 && (restart || !this.settings.rpcPort)) {
        child.killHard();
        if (restart) await sleep(200); // the dead node's port is usually free again a moment later
        else this.port = await freePort();
        return this.spawnNode(attempt + 1, restart);
      }
      child.killHard();
      if (existsSync(this.statePath) && /state/i.test(stderr)) {
        // A state file cut off by a hard kill: start from the last good copy; the outbox replays the rest.
        this.log(`chain ${this.name}: state file unreadable, restoring the previous copy`);
        restorePreviousStateDump(this.statePath);
        return this.spawnNode(attempt + 1, restart);
      }
      throw error;
    }
    writeJsonAtomically(this.recordPath, {
      nodePid,
      ownerPid: process.pid,
      rpcUrl: this.rpcUrl,
      chainId: this.settings.chainId,
    } satisfies NodeRecord);
    child.once('exit', (code, signal) => {
      if (this.stopping || this.child !== child) return;
      this.log(`chain ${this.name}: node exited (${signal ?? code}); restarting`);
      this.emit('exited');
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
    // Its watchdog ends it too once the owner is gone, so it may exit between a look and a signal.
    if (isAlive(record.nodePid) && signalProcess(record.nodePid, 'SIGTERM')) {
      this.log(`chain ${this.name}: ending node ${record.nodePid} left by a stopped process`);
      const deadline = Date.now() + 10_000;
      while (isAlive(record.nodePid) && Date.now() < deadline) await sleep(50);
      if (isAlive(record.nodePid)) signalProcess(record.nodePid, 'SIGKILL');
    }
    rmSync(this.recordPath, { force: true });
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
  writeFileSync(temporary, JSON.stringify(value), { mode: PRIVATE_FILE_MODE });
  renameSync(temporary, path);
}

/** Sends `signal` to process `pid`: false when there is no such process any more, which a process may become between a look and the signal. */
export function signalProcess(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/** Whether process `pid` exists (one owned by another user counts). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Waits until process `pid` has ended (a zombie not yet reaped counts as ended), at most `limitMs`. */
async function waitForExit(pid: number, limitMs: number): Promise<void> {
  for (const deadline = Date.now() + limitMs; isAlive(pid) && !isZombie(pid) && Date.now() < deadline; ) await sleep(20);
}

function isZombie(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** A port free on `host` (loopback by default) right now. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const { port, release } = await reservePort(host);
  await release();
  return port;
}

/**
 * A free port held bound until `release()`: nothing else (another process, or a node this one
 * starts, whose port is probed with freePort) can be given it meanwhile. Released just before the
 * port is listened on, the window another process could take it in is a turn of the event loop.
 */
export async function reservePort(host = '127.0.0.1'): Promise<{ port: number; release(): Promise<void> }> {
  const server = createServer();
  server.unref();
  await new Promise<void>((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  let released: Promise<void> | undefined;
  return { port, release: () => (released ??= new Promise<void>((resolve) => server.close(() => resolve()))) };
}

/**
 * A port is probed free and then bound by anvil, so another process may take it in between and
 * we would talk to its node. Each node we start therefore makes its own random dev account and
 * writes it (with `--config-out`) to `identityPath`; the node on the port is ours only if its first
 * dev account is that one. The dev mnemonic never appears on the node's command line (which every
 * local user sees in `ps`) nor in its environment: anvil draws it itself (`--mnemonic-random`), and
 * the file it writes, 0600 under the watchdog's umask in a 0700 folder, is read once and removed.
 */
export interface NodeIdentity {
  args: string[];
  /** The node's first dev account once it has written it, else undefined; the file is removed on the first read. */
  account(): string | undefined;
  /** Removes the file if it is still there (a start that failed). */
  discard(): void;
}

/** `identityPath`: a file in a folder only this user can read (the chain's folder, or a private temporary one). */
export function nodeIdentity(identityPath: string): NodeIdentity {
  rmSync(identityPath, { force: true });
  let known: string | undefined;
  return {
    args: ['--mnemonic-random', '--accounts', '1', '--config-out', identityPath],
    account() {
      if (known !== undefined) return known;
      let written: { available_accounts?: unknown };
      try {
        written = JSON.parse(readFileSync(identityPath, 'utf8')) as { available_accounts?: unknown };
      } catch {
        return undefined; // not written yet, or being written
      }
      rmSync(identityPath, { force: true });
      const first = Array.isArray(written.available_accounts) ? written.available_accounts[0] : undefined;
      known = typeof first === 'string' ? first.toLowerCase() : '';
      return known;
    },
    discard: () => rmSync(identityPath, { force: true }),
  };
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

/**
 * Waits until the node answers with the expected chain id and, for a node we started, until it has
 * written its identity, which must be the first account the node on the port answers.
 */
export async function waitForRpc(rpcUrl: string, chainId: number, timeoutMs = 30_000, identity?: NodeIdentity): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await waitForChainId(rpcUrl, chainId, timeoutMs);
  if (identity === undefined) return;
  try {
    // anvil writes its --config-out file once it listens: a moment after it may first answer.
    let account = identity.account();
    while (account === undefined && Date.now() < deadline) {
      await sleep(20);
      account = identity.account();
    }
    if (account === undefined) throw new ForeignNodeError(`another node answers on ${rpcUrl} (ours wrote no identity within ${timeoutMs / 1000} s)`);
    const accounts = (await rpcCall(rpcUrl, 'eth_accounts')) as string[] | undefined;
    if (!account || accounts?.[0]?.toLowerCase() !== account) throw new ForeignNodeError(`another node answers on ${rpcUrl}`);
  } finally {
    identity.discard();
  }
}

/**
 * Waits for `eth_chainId` to answer `chainId`. A node that cannot be reached yet is asked again
 * until `timeoutMs`; one that answers something else (another chain id, an HTML page, a JSON-RPC
 * error) is refused at once: waiting would not change it.
 */
async function waitForChainId(rpcUrl: string, chainId: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    let response: Response;
    try {
      response = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
        signal: AbortSignal.timeout(2_000),
      });
    } catch (error) {
      lastError = (error as Error).cause ?? error;
      await sleep(50);
      continue;
    }
    const answer = await readChainId(response, rpcUrl);
    if (answer === chainId) return;
    throw new Error(`${rpcUrl} is the node of chain id ${answer}, not ${chainId}: check the chain's rpcUrl and chainId`);
  }
  throw new Error(`${rpcUrl} did not answer within ${timeoutMs / 1000} s (${(lastError as Error)?.message ?? String(lastError)})`);
}

/** The chain id in an `eth_chainId` answer; an answer that is not one is an error naming what came instead. */
async function readChainId(response: Response, rpcUrl: string): Promise<number> {
  const text = await response.text().catch(() => '');
  const notJsonRpc = () =>
    new Error(
      `${rpcUrl} is not a JSON-RPC node: eth_chainId answered HTTP ${response.status}` +
        ` (${response.headers.get('content-type') ?? 'no content type'}) ${JSON.stringify(text.slice(0, 60))}`,
    );
  let body: { result?: unknown; error?: { message?: string } };
  try {
    body = JSON.parse(text);
  } catch {
    throw notJsonRpc();
  }
  if (body?.error) throw new Error(`${rpcUrl} refused eth_chainId: ${body.error.message ?? JSON.stringify(body.error)}`);
  if (typeof body?.result !== 'string' || !/^0x[0-9a-f]+$/i.test(body.result)) throw notJsonRpc();
  return Number(body.result);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A node process started by `spawnTiedToThisProcess`. */
type TiedChild = ChildProcess & {
  /** The node's own pid, once the watchdog has started it. */
  nodePid: Promise<number>;
  /** Ends the node and its watchdog at once (SIGKILL). */
  killHard(): void;
};

/**
 * Starts `command` under a small POSIX shell watchdog whose stdin is a pipe this process holds.
 * When this process dies, however it dies (kill -9 included), the pipe closes, the watchdog reads
 * end of file and sends the node SIGTERM, so the node dumps its state and exits instead of
 * outliving its service. SIGTERM and SIGINT sent to the watchdog are passed on (one that arrives while
 * the node is being started is passed on once it has started); its exit status is the node's. The
 * watchdog prints the node's pid first. Its umask keeps the files the node writes (its state dumps)
 * to their owner, whatever the service's own umask.
 */
const WATCHDOG = `
umask 077
node=
stopping=
trap 'stopping=1; [ -n "$node" ] && kill -TERM "$node" 2>/dev/null' TERM INT
exec 3<&0
"$@" </dev/null 3<&- &
node=$!
echo "$node"
[ -n "$stopping" ] && kill -TERM "$node" 2>/dev/null
( while read -r _; do :; done <&3; kill -TERM "$node" 2>/dev/null ) &
watcher=$!
exec 3<&-
status=0
while kill -0 "$node" 2>/dev/null; do wait "$node"; status=$?; done
kill "$watcher" 2>/dev/null
exit "$status"
`;

function spawnTiedToThisProcess(command: string, args: string[]): TiedChild {
  if (process.platform === 'win32') {
    // No POSIX shell: the node is started directly (a killed service leaves it to the next start).
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] }) as TiedChild;
    child.nodePid = Promise.resolve(child.pid!);
    child.killHard = () => child.kill('SIGKILL');
    return child;
  }
  // A process group of its own: Ctrl-C in a terminal reaches the service only, which stops the node
  // in order, and a hard kill reaches the watchdog, its watcher and the node at once.
  const child = spawn('/bin/sh', ['-c', WATCHDOG, 'watchdog', command, ...args], { stdio: ['pipe', 'pipe', 'pipe'], detached: true }) as TiedChild;
  let known: number | undefined;
  child.nodePid = new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = /^(\d+)\n/.exec(output);
      if (line && known === undefined) resolve((known = Number(line[1])));
    });
    child.once('exit', () => reject(new Error('the node watchdog exited before starting the node')));
  });
  child.nodePid.catch(() => {});
  child.killHard = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  return child;
}
