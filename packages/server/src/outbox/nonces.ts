import type { Address, Hex } from 'viem';
import type { ChainContext } from '../chain/chains.ts';
import type { OutboxRow } from '../store/schema.ts';
import { receiptOf, type MinedReceipt } from './receipts.ts';
import type { OutboxStore } from './store.ts';
import { accountKey } from './submission.ts';

/** How long a nonce conflict must last before the transaction is failed (see NonceConflicts.reconcile). */
const NONCE_CONFLICT_CONFIRM_MS = 2_000;

/**
 * What this process knows of each chain:account's nonces before the store allocates them: whether
 * the nonce row exists, and the nonce it expects the next stored transaction to get (a guess,
 * checked when storing).
 */
export class NonceExpectations {
  /** chain:account pairs whose nonce row exists (rows are never deleted). */
  private readonly knownRows = new Set<string>();
  private readonly expected = new Map<string, number>();

  constructor(private readonly store: Pick<OutboxStore, 'hasNonceRow'>) {}

  hasRow(account: string): boolean {
    return this.knownRows.has(account);
  }

  markRow(account: string): void {
    this.knownRows.add(account);
  }

  /** The nonce an account's first stored transaction gets: the node's pending count, unless a row exists (then 0: the row's count wins). */
  async startingNonce(chain: ChainContext, from: Address): Promise<number> {
    if (await this.store.hasNonceRow(chain.name, from)) {
      this.markRow(accountKey({ chain, from }));
      return 0;
    }
    return chain.client.getTransactionCount({ address: from, blockTag: 'pending' });
  }

  /** The nonce expected for the account's next transaction, counted as taken; undefined when there is no guess. */
  takeExpected(account: string): number | undefined {
    const expected = this.expected.get(account);
    if (expected !== undefined) this.expected.set(account, expected + 1);
    return expected;
  }

  /** After a store: each account's next nonce is its allocated end plus what groups formed since will take. */
  expectAfter(allocatedEnds: Map<string, number>, laterCounts: Array<Map<string, number>>): void {
    for (const [account, end] of allocatedEnds) {
      this.expected.set(account, laterCounts.reduce((next, counts) => next + (counts.get(account) ?? 0), end));
    }
  }

  forget(account: string): void {
    this.expected.delete(account);
  }
}

/**
 * "nonce too low": the nonce is used on chain. Either by this very transaction (record its
 * receipt), or by one the outbox never signed: then this one can never be mined and fails.
 */
export class NonceConflicts {
  /** When this process first saw each transaction's nonce used on chain without its receipt. */
  private readonly firstSeen = new Map<string, number>();

  constructor(
    private readonly deps: {
      store: Pick<OutboxStore, 'failNonceUsed'>;
      recordReceipt(row: OutboxRow, receipt: MinedReceipt): Promise<void>;
      /** The row failed: its waiters read it again. */
      onFailed(id: string): void;
      log?: { warn(message: string): void } | undefined;
    },
  ) {}

  async reconcile(chain: ChainContext, row: OutboxRow, error: string): Promise<void> {
    const receipt = await receiptOf(chain, row.tx_hash as Hex);
    if (receipt) return this.deps.recordReceipt(row, receipt);
    const pending = await chain.client.getTransaction({ hash: row.tx_hash as Hex }).catch(() => undefined);
    if (pending) return;
    const chainNonce = await chain.client.getTransactionCount({ address: row.from_address as Address, blockTag: 'latest' });
    if (chainNonce <= row.nonce) return; // The node is behind (e.g. replaying); try again later.
    // A node can count a nonce as used a moment before the receipt of the transaction that used it
    // can be read (seen under load, and while a restarted node catches up): only a conflict that
    // is still there at a later broadcast, NONCE_CONFLICT_CONFIRM_MS on, fails the transaction.
    const firstSeen = this.firstSeen.get(row.id);
    if (firstSeen === undefined || Date.now() - firstSeen < NONCE_CONFLICT_CONFIRM_MS) {
      if (firstSeen === undefined) this.firstSeen.set(row.id, Date.now());
      return;
    }
    this.firstSeen.delete(row.id);
    this.deps.log?.warn(`outbox: ${row.tx_hash} nonce ${row.nonce} was used by another transaction`);
    await this.deps.store.failNonceUsed(row, `nonce ${row.nonce} used by another transaction: ${error}`, chainNonce);
    this.deps.onFailed(row.id);
  }

  /** The transaction was mined: no conflict to watch. */
  forget(id: string): void {
    this.firstSeen.delete(id);
  }
}
