/**
 * A Hardhat network node (npm `hardhat`, on its EDR runtime) as a throwaway external chain for one
 * test: a second node implementation beside anvil. Started as a child process on a free loopback
 * port from a config file in a temporary folder (no Hardhat project in the repository), with
 * Hardhat's twenty funded, unlocked accounts; stopped with its process group, and killed when this
 * process exits however it exits (see EXIT_WITH_PARENT).
 *
 * Hardhat 3 runs on Node.js 22.13 and later only, and npm leaves out EDR's native package on an
 * older Node.js (it is an optional dependency whose engines say Node.js 22). On such a machine both
 * are fetched once with `npm pack` into node_modules/.cache, where scripts/test-on-node.mjs keeps
 * its Node.js builds too: see hardhatRuntime.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPublicClient, http, type Address, type Hex } from 'viem';
import { freePort, waitForRpc } from '../chain/managed-node.ts';

/** The first of Hardhat's default accounts (mnemonic "test test ... junk"): funded and unlocked on the node. */
export const HARDHAT_FUNDED_ACCOUNT: Address = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

export interface HardhatNode {
  rpcUrl: string;
  chainId: number;
  /** The node's own process id. */
  pid: number;
  /** Sends `wei` from a funded account of the node to `to` and waits for the receipt. */
  fund(to: Address, wei: bigint): Promise<void>;
  /** Ends the node (SIGTERM, then SIGKILL after 5 s) and removes its folder; safe to call more than once. */
  stop(): Promise<void>;
}

export interface HardhatNodeOptions {
  chainId: number;
  /** Mines a block every this many seconds instead of each transaction as it arrives (the default). */
  blockTimeSeconds?: number;
}

/** What runs the node: a Node.js Hardhat accepts, and the environment that lets EDR find its native binary. */
export interface HardhatRuntime {
  nodeExecutable: string;
  env: Record<string, string>;
}

const HARDHAT_MIN_NODE = [22, 13] as const;
const workspaceRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const cacheDirectory = join(workspaceRoot, 'node_modules', '.cache');
const require = createRequire(import.meta.url);

/**
 * Loaded into the node's process before the CLI: when its stdin, a pipe this process holds, closes,
 * it removes its project folder (its working directory) and exits. So a test process killed hard
 * (SIGKILL, a runner's timeout), whose exit hook does not run, leaves neither behind.
 */
const EXIT_WITH_PARENT = `data:text/javascript,${encodeURIComponent(
  "import { rmSync } from 'node:fs'; const project = process.cwd();" +
    "const leave = () => { rmSync(project, { recursive: true, force: true }); process.exit(0); };" +
    "process.stdin.on('end', leave).on('error', leave).resume();",
)}`;

/** Nodes still running, killed when this process exits however it exits. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Starts a Hardhat node on 127.0.0.1 on a free port and resolves once it answers eth_chainId with
 * `chainId`. A port taken between the probe and the node's bind is retried on another port.
 */
export async function startHardhatNode(options: HardhatNodeOptions): Promise<HardhatNode> {
  const runtime = hardhatRuntime();
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await spawnHardhatNode(runtime, options, await freePort());
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

async function spawnHardhatNode(runtime: HardhatRuntime, options: HardhatNodeOptions, port: number): Promise<HardhatNode> {
  const { chainId } = options;
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const child of running) killGroup(child, 'SIGKILL');
    });
  }
  const project = writeProject(options);
  const hardhatCli = join(dirname(require.resolve('hardhat/package.json')), 'dist', 'src', 'cli.js');
  const child = spawn(
    runtime.nodeExecutable,
    ['--import', EXIT_WITH_PARENT, hardhatCli, '--config', join(project, 'hardhat.config.mjs'), 'node', '--hostname', '127.0.0.1', '--port', String(port)],
    {
      cwd: project,
      // Its own process group, so that stop() reaches whatever the CLI starts.
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...runtime.env, HARDHAT_DISABLE_TELEMETRY: 'true', NO_COLOR: '1' },
    },
  );
  running.add(child);
  // The node logs every call: only the last lines are kept, for an error message.
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    running.delete(child);
    rmSync(project, { recursive: true, force: true });
  });

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    killGroup(child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };

  const exitedEarly = exited.then(() => {
    throw new Error(`the Hardhat node exited during start (${child.signalCode ?? child.exitCode}): ${output.trim()}`);
  });
  exitedEarly.catch(() => {});
  const rpcUrl = `http://127.0.0.1:${port}`;
  try {
    // Its first start loads the CLI and its plugins: slower than anvil's.
    await Promise.race([waitForRpc(rpcUrl, chainId, 60_000), exitedEarly]);
  } catch (error) {
    await stop();
    throw error;
  }
  const client = createPublicClient({ transport: http(rpcUrl) });
  return {
    rpcUrl,
    chainId,
    pid: child.pid!,
    stop,
    async fund(to, wei) {
      const hash = (await client.request({
        method: 'eth_sendTransaction' as never,
        params: [{ from: HARDHAT_FUNDED_ACCOUNT, to, value: `0x${wei.toString(16)}` }] as never,
      })) as Hex;
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      if (receipt.status !== 'success') throw new Error(`funding ${to} failed: ${hash}`);
    },
  };
}

/**
 * A temporary Hardhat project: the config of its `node` network and a link to the workspace's
 * hardhat package (Hardhat refuses to run for a project that does not have it installed).
 */
function writeProject({ chainId, blockTimeSeconds }: HardhatNodeOptions): string {
  const mining = blockTimeSeconds ? `{ auto: false, interval: ${blockTimeSeconds * 1000} }` : '{ auto: true, interval: 0 }';
  const project = mkdtempSync(join(tmpdir(), 'wallet-test-hardhat-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'hardhat-test-node', private: true, type: 'module' }));
  writeFileSync(
    join(project, 'hardhat.config.mjs'),
    `export default { networks: { node: { type: 'edr-simulated', chainType: 'l1', chainId: ${chainId}, mining: ${mining} } } };\n`,
  );
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(dirname(require.resolve('hardhat/package.json')), join(project, 'node_modules', 'hardhat'), 'dir');
  return project;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

/** Found once per process: a fetch that failed (npm retries for a minute offline) is not tried again. */
let runtime: { found: HardhatRuntime } | { error: Error } | undefined;

/** A Node.js Hardhat accepts (this one, or one fetched), and EDR's native binary (installed, or fetched). */
export function hardhatRuntime(): HardhatRuntime {
  if (runtime === undefined) {
    try {
      runtime = { found: { nodeExecutable: supportedNodeExecutable(), env: edrBindingEnv() } };
    } catch (error) {
      runtime = { error: error as Error };
    }
  }
  if ('error' in runtime) throw runtime.error;
  return runtime.found;
}

/**
 * Why a Hardhat node cannot run on this machine (what hardhatRuntime could not find or fetch,
 * offline say), or undefined when it can. Fetches what is missing.
 */
export function hardhatUnavailable(): string | undefined {
  try {
    hardhatRuntime();
    return undefined;
  } catch (error) {
    return `no Hardhat node on this machine: ${(error as Error).message}`;
  }
}

function isSupportedNode(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major > HARDHAT_MIN_NODE[0] || (major === HARDHAT_MIN_NODE[0] && minor >= HARDHAT_MIN_NODE[1]);
}

function supportedNodeExecutable(): string {
  if (isSupportedNode(process.versions.node)) return process.execPath;
  for (const major of [24, 22]) {
    const candidate = join(cacheDirectory, `node-${major}`, 'bin', 'node');
    if (existsSync(candidate)) {
      const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout.trim();
      if (isSupportedNode(version)) return candidate;
    }
  }
  // The layout of scripts/test-on-node.mjs, which then finds it too.
  return join(fetchPackage(`node-${process.platform}-${process.arch}@22`, join(cacheDirectory, 'node-22')), 'bin', 'node');
}

/** Empty when npm installed EDR's native package; else NAPI_RS_NATIVE_LIBRARY_PATH naming a fetched one. */
function edrBindingEnv(): Record<string, string> {
  const hardhatRequire = createRequire(require.resolve('hardhat/package.json'));
  const edrDirectory = dirname(hardhatRequire.resolve('@nomicfoundation/edr'));
  const { version } = JSON.parse(readFileSync(join(edrDirectory, 'package.json'), 'utf8')) as { version: string };
  const binding = `edr-${edrPlatform()}`;
  try {
    createRequire(join(edrDirectory, 'index.js')).resolve(`@nomicfoundation/${binding}/package.json`);
    return {};
  } catch {
    // Left out by npm on this Node.js: fetched below.
  }
  const directory = fetchPackage(`@nomicfoundation/${binding}@${version}`, join(cacheDirectory, `${binding}-${version}`));
  const file = readdirSync(directory).find((name) => name.endsWith('.node'));
  if (!file) throw new Error(`${directory} holds no .node binary`);
  return { NAPI_RS_NATIVE_LIBRARY_PATH: join(directory, file) };
}

/** The suffix of EDR's platform package for this machine, as its loader names them. */
function edrPlatform(): string {
  if (process.platform === 'linux') {
    const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
    return `linux-${process.arch}-${report?.header?.glibcVersionRuntime ? 'gnu' : 'musl'}`;
  }
  if (process.platform === 'win32') return `win32-${process.arch}-msvc`;
  return `${process.platform}-${process.arch}`;
}

/** Unpacks the npm package `spec` into `directory` once (npm pack, no install scripts run); its path. */
function fetchPackage(spec: string, directory: string): string {
  if (existsSync(join(directory, 'package.json'))) return directory;
  mkdirSync(cacheDirectory, { recursive: true });
  const downloads = mkdtempSync(join(tmpdir(), 'wallet-test-pack-'));
  const unpacking = mkdtempSync(join(cacheDirectory, '.unpacking-'));
  try {
    const packed = spawnSync('npm', ['pack', spec, '--pack-destination', downloads, '--loglevel=error'], { encoding: 'utf8' });
    const tarball = readdirSync(downloads).find((name) => name.endsWith('.tgz'));
    if (packed.status !== 0 || !tarball) throw new Error(`npm pack ${spec} failed: ${packed.stderr?.trim().split('\n').slice(0, 2).join(' ')}`);
    const unpacked = spawnSync('tar', ['-xzf', join(downloads, tarball), '-C', unpacking, '--strip-components=1'], { encoding: 'utf8' });
    if (unpacked.status !== 0) throw new Error(`unpacking ${tarball} failed: ${unpacked.stderr.trim()}`);
    try {
      renameSync(unpacking, directory);
    } catch (error) {
      // Another process unpacked it first.
      if (!existsSync(join(directory, 'package.json'))) throw error;
    }
  } finally {
    rmSync(downloads, { recursive: true, force: true });
    rmSync(unpacking, { recursive: true, force: true });
  }
  return directory;
}
