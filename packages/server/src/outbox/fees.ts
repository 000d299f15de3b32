import { BaseError, ContractFunctionRevertedError, ExecutionRevertedError, type Address, type Hex } from 'viem';
import type { ChainContext } from '../chain/chains.ts';
import { accountKey } from './submission.ts';

const FEE_CACHE_MS = 1_000;
const BALANCE_CACHE_MS = 1_000;

export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** A submission refused before anything was stored: it would revert, or the account cannot pay. */
export class OutboxRefusal extends Error {
  override readonly name = 'OutboxRefusal';
  constructor(
    readonly reason: 'insufficient_funds' | 'reverted',
    message: string,
    cause?: unknown,
  ) {
    super(message, { cause });
  }
}

/** Per chain, the fees last estimated, read again at most every FEE_CACHE_MS. */
export class FeeCache {
  private readonly cache = new Map<string, Fees & { at: number }>();

  async fees(chain: ChainContext): Promise<Fees> {
    const cached = this.cache.get(chain.name);
    if (cached && Date.now() - cached.at < FEE_CACHE_MS) return cached;
    const estimate = await chain.client.estimateFeesPerGas();
    const fees = {
      at: Date.now(),
      // Twice the estimate: a replayed transaction must still pay after the base fee has risen.
      maxFeePerGas: estimate.maxFeePerGas * 2n,
      maxPriorityFeePerGas: estimate.maxPriorityFeePerGas,
    };
    this.cache.set(chain.name, fees);
    return fees;
  }
}

/**
 * Checks accounts can pay what they submit. The node's pending balance is read at most once per
 * BALANCE_CACHE_MS per account; in between, what this process submitted is subtracted from it,
 * which can only err on the side of reading again.
 */
export class BalanceReservations {
  /** Per chain:account, the pending balance last read less what was submitted since. */
  private readonly spendable = new Map<string, { balance: bigint; at: number }>();

  /** Reserves `cost` (value + gas limit x max fee, an upper bound), or refuses. */
  async reserve(chain: ChainContext, from: Address, cost: bigint): Promise<void> {
    const key = accountKey({ chain, from });
    const cached = this.spendable.get(key);
    if (cached && Date.now() - cached.at < BALANCE_CACHE_MS && cached.balance >= cost) {
      cached.balance -= cost;
      return;
    }
    const balance = await chain.client.getBalance({ address: from, blockTag: 'pending' });
    if (balance < cost) {
      this.spendable.delete(key);
      throw new OutboxRefusal('insufficient_funds', `balance ${balance} wei is below the ${cost} wei this transaction may cost`);
    }
    this.spendable.set(key, { balance: balance - cost, at: Date.now() });
  }
}

/** The gas limit: the node's estimate with headroom; a revert or missing funds is an OutboxRefusal. */
export async function estimateGas(chain: ChainContext, from: Address, to: Address | null, data: Hex, value: bigint): Promise<bigint> {
  let estimate: bigint;
  try {
    estimate = await chain.client.estimateGas({ account: from, ...(to ? { to } : {}), data, value });
  } catch (error) {
    const text = String((error as { details?: string }).details ?? (error as Error).message);
    if (/insufficient funds/i.test(text)) throw new OutboxRefusal('insufficient_funds', text, error);
    // Only a revert is the transaction's fault; a node that does not answer is not.
    if (error instanceof BaseError && error.walk((inner) => inner instanceof ExecutionRevertedError)) {
      throw new OutboxRefusal('reverted', revertReason(error) ?? text, error);
    }
    throw error;
  }
  // Headroom: state may change between estimation and mining.
  return (estimate * 125n) / 100n;
}

/** The revert reason viem found (reason string, custom error name, or panic), if any. */
function revertReason(error: unknown): string | undefined {
  const walked = (error as BaseError).walk?.((inner) => inner instanceof ContractFunctionRevertedError || 'reason' in (inner as object));
  const reason = (walked as { reason?: string; data?: { errorName?: string } } | undefined)?.reason ?? (walked as { data?: { errorName?: string } } | undefined)?.data?.errorName;
  if (reason) return reason;
  const match = /reverted with reason string '([^']*)'|execution reverted: ([^\n]*)/.exec(String((error as Error).message));
  return match?.[1] ?? match?.[2];
}
