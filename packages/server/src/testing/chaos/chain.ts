import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { anvilBinaryPath, freePort, nodeIdentity, waitForRpc } from '../../chain/managed-node.ts';
import { keepWholeStateDump, WholeCopyKeeper } from '../../chain/state-dump.ts';

/**
 * The chaos run's chain: an anvil that no service manages (the services see an external chain),
 * keeping its state in a file so that a restart after `kill -9` carries on from the last dump, on
 * the same port so the services' RPC URL stays valid.
 */
export class ChaosChain {
  readonly rpcUrl: string;
  readonly chainId = 31337;
  #child: ChildProcess | undefined;
  readonly #port: number;
  readonly #statePath: string;

  readonly #log: (line: string) => void;
  #wholeCopies: WholeCopyKeeper | undefined;

  private constructor(port: number, directory: string, log: (line: string) => void) {
    this.#port = port;
    this.#log = log;
    this.rpcUrl = `http://127.0.0.1:${port}`;
    this.#statePath = join(directory, 'chaos-chain-state.json');
    process.once('exit', () => this.#child?.kill('SIGKILL'));
  }

  static async start(directory: string, log: (line: string) => void): Promise<ChaosChain> {
    const chain = new ChaosChain(await freePort(), directory, log);
    await chain.#spawn();
    chain.#wholeCopies = new WholeCopyKeeper(chain.#statePath);
    return chain;
  }

  get running(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** `kill -9`: the blocks since the last state dump (one a second) are lost, as a crashed node loses them. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child || !this.running) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** Ends the node for good. */
  async close(): Promise<void> {
    await this.#wholeCopies?.close();
    await this.stop();
  }

  /** Ends the node with SIGTERM, so it dumps its state. */
  async stop(): Promise<void> {
    const child = this.#child;
    if (!child || !this.running) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.#spawn();
  }

  /** Starts the node again after a kill; the port may take a moment to be free. */
  async #spawn(attempt = 0): Promise<void> {
    // A dump cut off or torn by a kill is set aside for the last whole one (as the embedded node does).
    keepWholeStateDump(this.#statePath, (message) => this.#log(`chain node: ${message}`));
    const identity = nodeIdentity(join(this.#statePath, '..', 'chaos-chain-identity.json'));
    const child = spawn(
      anvilBinaryPath(),
      [
        '--host', '127.0.0.1', '--port', String(this.#port), '--chain-id', String(this.chainId),
        '--state', this.#statePath, '--state-interval', '1', '--silent', ...identity.args,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    this.#child = child;
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const exitedEarly = new Promise<never>((_, reject) =>
      child.once('exit', (code, signal) => reject(new Error(`anvil exited during start (${signal ?? code}): ${stderr.trim()}`))),
    );
    exitedEarly.catch(() => {});
    try {
      await Promise.race([waitForRpc(this.rpcUrl, this.chainId, 30_000, identity), exitedEarly]);
    } catch (error) {
      child.kill('SIGKILL');
      if (attempt < 10) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        return this.#spawn(attempt + 1);
      }
      throw error;
    }
  }
}
