import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { anvilBinaryPath, freePort, nodeIdentity, waitForRpc } from '../../chain/managed-node.ts';
import { keepWholeStateDump, WholeCopyKeeper } from '../../chain/state-dump.ts';

export type ReorgMode = 'dropped' | 'reordered';

/** One reorganisation made: its depth, and how many mined transactions the replaced blocks held. */
export interface ReorgDone {
  depth: number;
  mode: ReorgMode;
  /** Too few blocks above the setup yet: nothing was replaced. */
  skipped: boolean;
  transactions: number;
}

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
  /** A reorganisation is reading or replacing blocks: the ticker mines none meanwhile. */
  #reorganising = false;
  #ticking: Promise<unknown> | undefined;

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

  /**
   * Replaces the newest `depth` blocks with as many new ones (`anvil_reorg`), as a live chain's
   * reorganisation does. `dropped`: the new blocks hold none of the old blocks' transactions (each
   * is gone unless its sender sends it again). `reordered`: every one comes back, in its order (so
   * nonces stay valid), one block later where the window allows. Mining is paused meanwhile so the
   * window read is the window replaced; what was sent in between is dropped with the pool (below).
   */
  async reorganise(depth: number, mode: ReorgMode, options: { aboveBlock: number }): Promise<ReorgDone> {
    const rpc = (method: string, params: unknown[] = []) => this.#rpc(method, params);
    this.#reorganising = true;
    await this.#ticking;
    await rpc('evm_setAutomine', [false]);
    try {
      const head = await this.#settledHead();
      // Never below the load's first block: the setup (contracts, funding) stays.
      const taken = Math.min(depth, head - options.aboveBlock);
      if (taken < 1) return { depth, mode, skipped: true, transactions: 0 };
      const first = head - taken + 1;
      const replayed: Array<[string, number]> = [];
      let transactions = 0;
      for (let number = first; number <= head; number++) {
        const block = (await rpc('eth_getBlockByNumber', [`0x${number.toString(16)}`, false])) as { transactions: string[] };
        for (const hash of block.transactions) {
          transactions += 1;
          if (mode === 'dropped') continue;
          const raw = (await rpc('eth_getRawTransactionByHash', [hash])) as string;
          replayed.push([raw, Math.min(taken - 1, number - first + 1)]);
        }
      }
      await rpc('anvil_reorg', [taken, replayed]);
      // anvil can finish a block it began mining before automine was turned off on top of the old
      // branch, after the reorg: its transactions show in the new chain but the state lacks them,
      // which no real node does. Such a block is replaced again, with what it held dropped.
      const broken = await this.#firstUnlinked(first - 1);
      if (broken !== undefined) {
        const newHead = Number(await rpc('eth_blockNumber'));
        this.#log(`chain node: block ${broken} was mined on the replaced branch during the reorg; replacing blocks ${first} to ${newHead} again`);
        await rpc('anvil_reorg', [newHead - first + 1, []]);
      }
      // anvil's pool keeps the nonce marks of the replaced blocks: an account's next transactions
      // then wait as `queued` for ever, though the chain's nonce is theirs. A live node re-checks its
      // pool against the new head; here it is emptied, as a node that loses its pool would, and the
      // senders send again what they still wait for.
      await rpc('anvil_dropAllTransactions');
      return { depth: taken, mode, skipped: false, transactions };
    } finally {
      this.#reorganising = false;
      await rpc('evm_setAutomine', [true]);
    }
  }

  /**
   * Mines an empty block every `intervalMs` until `until`, as a live chain makes blocks without
   * traffic: a confirmation depth above 0 is reached even after the load stops.
   */
  async tick(intervalMs: number, until: () => boolean): Promise<void> {
    while (!until()) {
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
      if (this.#reorganising || !this.running) continue;
      this.#ticking = this.#rpc('evm_mine', []).catch(() => undefined);
      await this.#ticking;
    }
  }

  /**
   * The head once no block has been added for a moment (one being mined as automine stopped is
   * done); after 20 tries, the head as it is (#firstUnlinked still catches a late block).
   */
  async #settledHead(): Promise<number> {
    let head = Number(await this.#rpc('eth_blockNumber', []));
    for (let tries = 0; tries < 20; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      const again = Number(await this.#rpc('eth_blockNumber', []));
      if (again === head) break;
      head = again;
    }
    return head;
  }

  /** The first block above `from` whose parent is not the chain's block below it, if any. */
  async #firstUnlinked(from: number): Promise<number | undefined> {
    const head = Number(await this.#rpc('eth_blockNumber', []));
    let parent = ((await this.#rpc('eth_getBlockByNumber', [`0x${from.toString(16)}`, false])) as { hash: string }).hash;
    for (let number = from + 1; number <= head; number++) {
      const block = (await this.#rpc('eth_getBlockByNumber', [`0x${number.toString(16)}`, false])) as { hash: string; parentHash: string };
      if (block.parentHash !== parent) return number;
      parent = block.hash;
    }
    return undefined;
  }

  /** The node's newest block number. */
  async head(): Promise<number> {
    return Number(await this.#rpc('eth_blockNumber', []));
  }

  async #rpc(method: string, params: unknown[]): Promise<unknown> {
    const response = await fetch(this.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await response.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
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
