import { BaseError, ContractFunctionRevertedError, ExecutionRevertedError, type Address, type Hex } from 'viem';
import type { ChainContext } from '../chain/chains.ts';
import { accountKey } from './submission.ts';

const FEE_CACHE_MS = 1_000;
const BALANCE_CACHE_MS = 1_000;
/**
 * Past this age a cached fee or balance is still used, and read again beside the call that used
 * it: a service called more often than twice a second never has a call wait on the read (a fee
 * read is two node calls, a balance one, about 2 ms of an A7's 10 on a local node).
 */
export const REFRESH_AHEAD_MS = 500;

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

/** Per chain, the fees last estimated, at most FEE_CACHE_MS old (read ahead past REFRESH_AHEAD_MS). */
export class FeeCache {
  private readonly cache = new Map<string, Fees & { at: number }>();
  /** Estimates under way per chain: submissions that arrive together ask the node once. */
  private readonly reading = new Map<string, Promise<Fees>>();

  async fees(chain: ChainContext): Promise<Fees> {
    const cached = this.cache.get(chain.name);
    const age = cached ? Date.now() - cached.at : Infinity;
    if (cached && age < FEE_CACHE_MS) {
      if (age >= REFRESH_AHEAD_MS && !this.reading.has(chain.name)) this.readOnce(chain).catch(() => undefined);
      return cached;
    }
    return this.readOnce(chain);
  }

  private readOnce(chain: ChainContext): Promise<Fees> {
    const reading = this.reading.get(chain.name) ?? this.read(chain).finally(() => this.reading.delete(chain.name));
    this.reading.set(chain.name, reading);
    return reading;
  }

  private async read(chain: ChainContext): Promise<Fees> {
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
 * Checks accounts can pay what they submit. The node's pending balance is read at most
 * BALANCE_CACHE_MS before it is used; in between, what this process submitted is subtracted from
 * it, which can only err on the side of reading again.
 */
export class BalanceReservations {
  /** Per chain:account, the pending balance last read less what was submitted since. */
  private readonly spendable = new Map<string, { balance: bigint; at: number }>();
  /** Balance reads under way per chain:account: submissions that arrive together wait for one read. */
  private readonly reading = new Map<string, Promise<bigint>>();
  /** Reads ahead under way per chain:account (nobody waits on them), with what was reserved since each began. */
  private readonly readingAhead = new Map<string, { startedAt: number; reservedSince: bigint }>();

  /** Reserves `cost` (value + gas limit x max fee, an upper bound), or refuses. */
  async reserve(chain: ChainContext, from: Address, cost: bigint): Promise<void> {
    const key = accountKey({ chain, from });
    const pending = this.reading.get(key);
    if (pending) await pending.catch(() => undefined);
    const cached = this.spendable.get(key);
    const age = cached ? Date.now() - cached.at : Infinity;
    if (cached && age < BALANCE_CACHE_MS && cached.balance >= cost) {
      cached.balance -= cost;
      const ahead = this.readingAhead.get(key);
      if (ahead) ahead.reservedSince += cost;
      else if (age >= REFRESH_AHEAD_MS) this.readAhead(chain, from, key);
      return;
    }
    const read = chain.client.getBalance({ address: from, blockTag: 'pending' });
    this.reading.set(key, read);
    let balance: bigint;
    try {
      balance = await read;
    } finally {
      if (this.reading.get(key) === read) this.reading.delete(key);
    }
    if (balance < cost) {
      this.spendable.delete(key);
      throw new OutboxRefusal('insufficient_funds', `balance ${balance} wei is below the ${cost} wei this transaction may cost`);
    }
    this.spendable.set(key, { balance: balance - cost, at: Date.now() });
  }

  /**
   * Reads the balance again while the cached one is still used. The answer, less what was reserved
   * since the read began, can only lower what is left (a spend from elsewhere), never raise it: a
   * transaction reserved before the read may not have reached the node yet, and only a read that
   * calls wait for starts the count afresh. It keeps the entry fresh: an account used steadily is
   * read beside its calls, not in their way. An answer older than the entry is dropped.
   */
  private readAhead(chain: ChainContext, from: Address, key: string): void {
    const ahead = { startedAt: Date.now(), reservedSince: 0n };
    this.readingAhead.set(key, ahead);
    chain.client
      .getBalance({ address: from, blockTag: 'pending' })
      .then(
        (balance) => {
          const current = this.spendable.get(key);
          if (!current || current.at > ahead.startedAt) return;
          const left = balance - ahead.reservedSince;
          this.spendable.set(key, { balance: left < current.balance ? left : current.balance, at: ahead.startedAt });
        },
        () => undefined, // the next call past BALANCE_CACHE_MS reads it and says why
      )
      .finally(() => {
        if (this.readingAhead.get(key) === ahead) this.readingAhead.delete(key);
      });
  }
}

/** The gas limit: the node's estimate with headroom (gasLimitOf); a revert or missing funds is an OutboxRefusal. */
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
  return gasLimitOf(await plainTransferEstimate(chain, to, data, estimate));
}

/**
 * A node's estimate, except for a plain coin transfer: no data, to an account without code, which
 * costs 21,000 gas exactly. Hardhat's node answers 21,001 for one (its search for the lowest gas
 * that succeeds stops one above); gasLimitOf would take that for a call that runs code and add
 * 40,000. The recipient's code is read only for such an estimate.
 */
export async function plainTransferEstimate(chain: ChainContext, to: Address | null, data: Hex | undefined, estimate: bigint): Promise<bigint> {
  if (estimate <= PLAIN_TRANSFER_GAS || to === null || (data !== undefined && data !== '0x')) return estimate;
  const code = await chain.client.getCode({ address: to });
  return code === undefined || code === '0x' ? PLAIN_TRANSFER_GAS : estimate;
}

/**
 * What a storage write can cost beyond its estimate: setting a zero slot costs 20,000 gas where
 * changing a non-zero one costs 2,900. Transactions mined between the estimate and this one (the
 * same partner's other calls run at once) can bring a slot this one writes back to zero: a card
 * contract's balance counter of the sender or the recipient. A burn estimated at about 64,000 gas
 * then needs 17,100 more, which 25 % does not cover, and reverts out of gas.
 */
const ZERO_SLOT_SET_GAS = 20_000n;
/** Slots of one transaction whose zero-ness others may change: a card transfer's two balance counters. */
const SLOTS_COVERED = 2n;

/** A plain coin transfer's gas: it runs no code and writes no storage. */
const PLAIN_TRANSFER_GAS = 21_000n;

/**
 * The gas limit for an estimate: 25 % for state that changes until it is mined and, for a call
 * that runs code, the dearer writes above.
 */
export function gasLimitOf(estimate: bigint): bigint {
  const headroom = (estimate * 125n) / 100n;
  return estimate <= PLAIN_TRANSFER_GAS ? headroom : headroom + SLOTS_COVERED * ZERO_SLOT_SET_GAS;
}

/** The revert reason viem found (reason string, custom error name, or panic), if any. */
function revertReason(error: unknown): string | undefined {
  const walked = (error as BaseError).walk?.((inner) => inner instanceof ContractFunctionRevertedError || 'reason' in (inner as object));
  const reason = (walked as { reason?: string; data?: { errorName?: string } } | undefined)?.reason ?? (walked as { data?: { errorName?: string } } | undefined)?.data?.errorName;
  if (reason) return reason;
  const match = /reverted with reason string '([^']*)'|execution reverted: ([^\n]*)/.exec(String((error as Error).message));
  return match?.[1] ?? match?.[2];
}
