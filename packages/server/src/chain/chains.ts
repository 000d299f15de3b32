import { join } from 'node:path';
import { createPublicClient, defineChain, type Address, type Chain as ViemChain, type Hex, type PublicClient } from 'viem';
import { CHAIN_NAMES, chainConfirmations, type ChainConfirmations, type ChainName, type Config } from '../config/config.ts';
import { AppError } from '../errors/app-error.ts';
import { findRunningNode, ManagedNode, waitForRpc } from './managed-node.ts';
import { Errors } from '../errors/codes.ts';
import { batchedHttp } from './batched-http.ts';
import { countUnanswered, recordedTransport, type RpcCallRecorder, type UnansweredCalls } from './rpc-transport.ts';

/** One configured chain: how to reach it, and its node when the service manages it. */
export interface ChainContext {
  name: ChainName;
  chainId: number;
  messagePrefix: string;
  rpcUrl: string;
  viemChain: ViemChain;
  client: PublicClient;
  /** Present when this process supervises the node. */
  node: ManagedNode | undefined;
  /** An embedded node: the operator may mint coins on it with anvil_setBalance. */
  managed: boolean;
  /** An embedded node that mines each transaction as it arrives (no block time configured). */
  automine: boolean;
  /** When a mined transaction is final (config `confirmations`, resolved). */
  confirmations: ChainConfirmations;
  /** Calls its node left unanswered so far: the outbox holds its sends after a rise (ChainRewindWatch). */
  unanswered: UnansweredCalls;
}

export interface ConnectChainsOptions {
  /**
   * `own`: start (and later stop) the managed nodes; `attach`: use the nodes a running service
   * owns, starting own ones only where none runs (the CLI).
   */
  mode: 'own' | 'attach';
  log?: (message: string) => void;
  /** Told of every JSON-RPC call (metrics). */
  rpcRecorder?: RpcCallRecorder;
}

/** The chains of one process, by name. Unconfigured names answer 6417. */
export class ChainRegistry {
  private constructor(private readonly chains: Map<ChainName, ChainContext>) {}

  static async connect(config: Readonly<Config>, options: ConnectChainsOptions): Promise<ChainRegistry> {
    const chains = new Map<ChainName, ChainContext>();
    const registry = new ChainRegistry(chains);
    // Every chain settles before a failure is reported, so that nodes still starting when another
    // chain failed are stopped too, not left running behind a process that gave up.
    const started = await Promise.allSettled(
      CHAIN_NAMES.map(async (name) => {
        const settings = config.chains[name];
        if (!settings) return;
        let rpcUrl: string;
        let node: ManagedNode | undefined;
        if (settings.mode === 'external') {
          rpcUrl = settings.rpcUrl;
          await waitForRpc(rpcUrl, settings.chainId, 15_000).catch((error: Error) => {
            throw new Error(`chain ${name}: ${error.message}`, { cause: error });
          });
        } else {
          const directory = join(config.dataDir, 'chains', name);
          const running = options.mode === 'attach' ? findRunningNode(directory) : undefined;
          if (running) {
            rpcUrl = running.rpcUrl;
          } else {
            node = new ManagedNode({ name, settings, directory, ...(options.log ? { log: options.log } : {}) });
            rpcUrl = await node.start();
          }
        }
        chains.set(
          name,
          createChainContext(
            name,
            settings.chainId,
            settings.messagePrefix,
            rpcUrl,
            node,
            {
              managed: settings.mode === 'managed',
              automine: settings.mode === 'managed' && settings.blockTimeSeconds === 0,
              confirmations: chainConfirmations(settings),
            },
            options.rpcRecorder,
          ),
        );
      }),
    );
    const failure = started.find((result) => result.status === 'rejected');
    if (failure) {
      await registry.close();
      throw failure.reason;
    }
    return registry;
  }

  /** The chain called `name`; 6417 when it is not one of the configured chains. */
  get(name: string = 'main'): ChainContext {
    const chain = this.chains.get(name as ChainName);
    if (!chain) throw new AppError(Errors.ChainNotSupported, { detail: `chain ${name} is not configured` });
    return chain;
  }

  has(name: string): boolean {
    return this.chains.has(name as ChainName);
  }

  all(): ChainContext[] {
    return [...this.chains.values()];
  }

  /** Kills the nodes this process started, at once (a shutdown out of time); their last periodic state dump stays. */
  async killNodes(): Promise<void> {
    await Promise.all(this.all().map((chain) => chain.node?.kill()));
  }

  /** Stops the nodes this process started. */
  async close(): Promise<void> {
    await Promise.all(this.all().map((chain) => chain.node?.stop()));
  }
}

export function createChainContext(
  name: ChainName,
  chainId: number,
  messagePrefix: string,
  rpcUrl: string,
  node: ManagedNode | undefined,
  mining: { managed: boolean; automine: boolean; confirmations?: ChainConfirmations },
  rpcRecorder?: RpcCallRecorder,
): ChainContext {
  const viemChain = defineChain({
    id: chainId,
    name,
    nativeCurrency: { name: 'Coin', symbol: 'COIN', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const unanswered: UnansweredCalls = { count: 0 };
  const transport = countUnanswered(batchedHttp(rpcUrl, { retryCount: 1, timeout: 15_000 }), unanswered);
  const client = createPublicClient({
    chain: viemChain,
    transport: rpcRecorder ? recordedTransport(transport, name, rpcRecorder) : transport,
  }) as PublicClient;
  return { name, chainId, messagePrefix, rpcUrl, viemChain, client, node, confirmations: { depth: 0 }, unanswered, ...mining };
}

/**
 * anvil's automine can leave ready transactions in its pool unmined when one account's
 * transactions arrive out of nonce order (foundry-rs/foundry#10122); more sends do not clear them,
 * one `evm_mine` does. Mines a block when the pool holds ready transactions; true when it did.
 */
export async function mineStalledPool(chain: ChainContext): Promise<boolean> {
  const status = (await chain.client.request({ method: 'txpool_status' as never })) as { pending: Hex };
  if (BigInt(status.pending) === 0n) return false;
  await chain.client.request({ method: 'evm_mine' as never });
  return true;
}

/**
 * Empties an anvil's pool of one account's transactions. anvil can also keep an account's
 * next nonce in its queue, as if an earlier one were missing, after that earlier one was mined: it
 * then answers a resend with "already imported" and a mined block does not take it. Sent again into
 * an empty pool, the same bytes are mined at once.
 */
export async function clearAccountPool(chain: ChainContext, address: Address): Promise<void> {
  await chain.client.request({ method: 'anvil_removePoolTransactions' as never, params: [address] as never });
}

/** The nonces an anvil keeps in its queue, by account (lower-case): its whole pool, read once. */
export async function queuedNonces(chain: ChainContext): Promise<Map<string, Set<number>>> {
  const pool = (await chain.client.request({ method: 'txpool_inspect' as never })) as { queued?: Record<string, Record<string, unknown>> };
  return new Map(Object.entries(pool.queued ?? {}).map(([account, nonces]) => [account.toLowerCase(), new Set(Object.keys(nonces).map(Number))]));
}

/**
 * An account's next nonce to mine and the nonces an anvil keeps in its queue for it. The next nonce
 * among them is the state clearAccountPool is for, told from the node's own pool at once; a nonce
 * queued behind a missing one is not this. `queued`: the pool already being read for other
 * accounts of the chain.
 */
export async function accountQueue(chain: ChainContext, address: Address, queued = queuedNonces(chain)): Promise<{ next: number; queued: Set<number> }> {
  const [pool, next] = await Promise.all([queued, chain.client.getTransactionCount({ address, blockTag: 'latest' })]);
  return { next, queued: pool.get(address.toLowerCase()) ?? new Set() };
}

/** Whether an anvil keeps `nonce` of `address` in its queue although it is the account's next one to mine (see accountQueue). */
export async function isNextNonceQueued(chain: ChainContext, address: Address, nonce: number): Promise<boolean> {
  const { next, queued } = await accountQueue(chain, address);
  return next === nonce && queued.has(nonce);
}
