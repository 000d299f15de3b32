import type { Hex } from 'viem';
import type { ChainContext, ChainRegistry } from '../chain/chains.ts';
import type { OutboxRow } from '../store/schema.ts';
import { classifyBroadcastError, type BroadcastOutcome } from './broadcast-errors.ts';
import type { OutboxStore } from './store.ts';
import { rowAccountKey } from './submission.ts';

/** A stored transaction held until its account's window has room, and what follows its first broadcast. */
interface WaitingRow {
  row: OutboxRow;
  onDone: (() => unknown) | undefined;
}

/** One account's send window: how far its nonces are known mined, and what waits for room. */
interface AccountWindow {
  /** The account's mined nonce count as last learned (a receipt, or the node at a pass); undefined until then. */
  minedCount: number | undefined;
  /** One above the highest nonce sent through the window. */
  sentUpTo: number;
  /** In nonce order. */
  waiting: WaitingRow[];
}

/**
 * Sends stored transactions to their node, and remembers when each was last sent.
 *
 * A node's pool is not a queue without end (geth keeps 5,120 executable transactions by default,
 * and past that guarantees an account 16; providers cap pending transactions per account): a new
 * transaction goes at once only while its nonce is less than `window` above its account's mined
 * nonce count. Past that it is stored and accepted, and waits here, in nonce order, until a receipt
 * or the node's count at a pass makes room. Waiting is held in memory only: after a restart the
 * pass sends stored rows as the window allows, as it sends any row this process never sent.
 * An automining node mines each transaction as it arrives, so its pool holds none to bound: there
 * every transaction goes at once (a window there cost a quarter of the outbox bench's rate, room
 * being made only at passes).
 */
export class Broadcaster {
  /** When this process last sent each unmined transaction. */
  private readonly sentAt = new Map<string, number>();
  /** First broadcasts under way (submit does not wait for them), by transaction id. */
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private readonly windows = new Map<string, AccountWindow>();
  /** Ids of the rows waiting for room in their account's window. */
  private readonly waitingIds = new Set<string>();

  constructor(
    private readonly deps: {
      chains: Pick<ChainRegistry, 'get'>;
      store: Pick<OutboxStore, 'recordBroadcastFailure'>;
      /** Whether the chain's node may be sent to now (ChainRewindWatch.maySend); a row held back goes at a later pass. */
      maySend(chain: ChainContext): boolean;
      /** The node answered "nonce too low". */
      reconcileNonceTooLow(chain: ChainContext, row: OutboxRow, error: string): Promise<void>;
      /** Most nonces of one account sent ahead of its mined nonce count. */
      window: number;
      log?: { warn(message: string): void } | undefined;
    },
  ) {}

  /**
   * Sends the stored bytes. Success is only remembered in memory (the receipt is what gets stored),
   * so the common path costs no extra commit; failures are stored for the operator to see. Nothing
   * is sent to a chain held until it is checked: the row is not marked sent, so the next pass sends it.
   */
  async broadcast(row: OutboxRow): Promise<void> {
    const chain = this.deps.chains.get(row.chain);
    if (!this.deps.maySend(chain)) return;
    // Marked before the node answers too: a pass meanwhile must not take the row for never sent.
    this.sentAt.set(row.id, Date.now());
    let outcome: BroadcastOutcome;
    try {
      await chain.client.sendRawTransaction({ serializedTransaction: row.raw_tx as Hex });
      outcome = { status: 'sent' };
    } catch (error) {
      outcome = classifyBroadcastError(error);
    }
    const now = Date.now();
    this.sentAt.set(row.id, now);
    switch (outcome.status) {
      case 'sent':
        return;
      case 'retry':
        return this.deps.store.recordBroadcastFailure(row.id, now, outcome.error);
      case 'reconcile':
        return this.deps.reconcileNonceTooLow(chain, row, outcome.error);
      default: {
        const unknown: never = outcome;
        throw new Error(`outbox: unknown broadcast outcome ${String(unknown)}`);
      }
    }
  }

  /**
   * A transaction just stored: broadcast now without holding the caller when its account's window
   * has room, else held until it has (in nonce order). `onDone` runs once the node has answered.
   */
  sendNew(row: OutboxRow, onDone?: () => unknown): void {
    if (this.deps.chains.get(row.chain).automine) return this.broadcastInBackground(row, onDone);
    const window = this.windowOf(row);
    window.sentUpTo = Math.max(window.sentUpTo, row.nonce + 1);
    // The first row seen of an account starts its window: lower nonces were stored before (another
    // process, an earlier run) and go at the pass; the node's count corrects the guess at the pass.
    window.minedCount ??= row.nonce;
    if (window.waiting.length === 0 && this.fits(row, window)) return this.broadcastInBackground(row, onDone);
    let at = window.waiting.length;
    while (at > 0 && window.waiting[at - 1]!.row.nonce > row.nonce) at--;
    window.waiting.splice(at, 0, { row, onDone });
    this.waitingIds.add(row.id);
    this.sendWaiting(window);
  }

  /** Whether the transaction waits for room in its account's window (sendNew sends it; a pass leaves it). */
  isWaiting(id: string): boolean {
    return this.waitingIds.has(id);
  }

  /**
   * Whether a row may go now, given its account's mined count as the node gave it (if it did). A
   * row this process has sent is in the node's pool already (or lost by it): sending it again adds
   * nothing to the pool, so it always may.
   */
  mayGoNow(row: OutboxRow, minedCount: number | undefined): boolean {
    if (this.sentAt.has(row.id) || this.deps.chains.get(row.chain).automine) return true;
    const known = Math.max(this.windows.get(rowAccountKey(row))?.minedCount ?? -1, minedCount ?? -1);
    return known < 0 || row.nonce < known + this.deps.window;
  }

  /** How many transactions wait for room, by chain. */
  waitingByChain(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const window of this.windows.values()) {
      const first = window.waiting[0];
      if (first) counts.set(first.row.chain, (counts.get(first.row.chain) ?? 0) + window.waiting.length);
    }
    return counts;
  }

  /** The accounts with transactions waiting for room, whose mined counts a pass should read. */
  waitingAccounts(): Array<Pick<OutboxRow, 'chain' | 'from_address'>> {
    return [...this.windows.values()].flatMap((window) => (window.waiting[0] ? [window.waiting[0].row] : []));
  }

  /** The node counts `count` mined nonces of the account (its rowAccountKey): room for that many more. */
  minedCount(account: string, count: number): void {
    const window = this.windows.get(account);
    if (!window) return;
    window.minedCount = Math.max(window.minedCount ?? 0, count);
    this.sendWaiting(window);
    // Nothing of it in flight or waiting: the next send learns the count again.
    if (window.waiting.length === 0 && window.minedCount >= window.sentUpTo) this.windows.delete(account);
  }

  /** Broadcasts without holding the caller; a failure is logged (the next pass sends it again). */
  private broadcastInBackground(row: OutboxRow, onDone?: () => unknown): void {
    const sending = this.broadcast(row)
      .then(onDone)
      .catch((error: Error) => this.deps.log?.warn(`outbox: broadcast of ${row.tx_hash}: ${error.message}`))
      .finally(() => this.inFlight.delete(row.id));
    this.inFlight.set(row.id, sending);
  }

  /** Sends, in nonce order, the waiting rows the window has room for (in one turn: one JSON-RPC batch). */
  private sendWaiting(window: AccountWindow): void {
    while (window.waiting.length > 0 && this.fits(window.waiting[0]!.row, window)) {
      const { row, onDone } = window.waiting.shift()!;
      this.waitingIds.delete(row.id);
      this.broadcastInBackground(row, onDone);
    }
  }

  private fits(row: OutboxRow, window: AccountWindow): boolean {
    return row.nonce < (window.minedCount ?? row.nonce) + this.deps.window;
  }

  private windowOf(account: Pick<OutboxRow, 'chain' | 'from_address'>): AccountWindow {
    const key = rowAccountKey(account);
    let window = this.windows.get(key);
    if (!window) this.windows.set(key, (window = { minedCount: undefined, sentUpTo: 0, waiting: [] }));
    return window;
  }

  /** Whether the transaction's first broadcast (and what follows it, `onDone`) is under way. */
  isSending(id: string): boolean {
    return this.inFlight.has(id);
  }

  /** Resolves when the background broadcasts under way are done (rows still waiting stay stored, for the next start). */
  async drain(): Promise<void> {
    await Promise.all(this.inFlight.values());
  }

  lastSentAt(id: string): number | undefined {
    return this.sentAt.get(id);
  }

  /** The transaction was mined: nothing more to send, and room in its account's window. */
  mined(row: Pick<OutboxRow, 'id' | 'chain' | 'from_address' | 'nonce'>): void {
    this.sentAt.delete(row.id);
    this.minedCount(rowAccountKey(row), row.nonce + 1);
  }

  /** The transaction failed for good: nothing more to send. */
  forget(id: string): void {
    this.sentAt.delete(id);
  }
}
