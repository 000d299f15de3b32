import type { Hex } from 'viem';
import type { ChainContext, ChainRegistry } from '../chain/chains.ts';
import type { OutboxRow } from '../store/schema.ts';
import { classifyBroadcastError, type BroadcastOutcome } from './broadcast-errors.ts';
import type { OutboxStore } from './store.ts';

/** Sends stored transactions to their node, and remembers when each was last sent. */
export class Broadcaster {
  /** When this process last sent each unmined transaction. */
  private readonly sentAt = new Map<string, number>();
  /** First broadcasts under way (submit does not wait for them), by transaction id. */
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly deps: {
      chains: Pick<ChainRegistry, 'get'>;
      store: Pick<OutboxStore, 'recordBroadcastFailure'>;
      /** Whether the chain's node may be sent to now (ChainRewindWatch.maySend); a row held back goes at a later pass. */
      maySend(chain: ChainContext): boolean;
      /** The node answered "nonce too low". */
      reconcileNonceTooLow(chain: ChainContext, row: OutboxRow, error: string): Promise<void>;
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
   * Broadcasts without holding the caller; a failure is logged (the next pass sends it again).
   * `onDone` runs once the node has answered.
   */
  broadcastInBackground(row: OutboxRow, onDone?: () => unknown): void {
    const sending = this.broadcast(row)
      .then(onDone)
      .catch((error: Error) => this.deps.log?.warn(`outbox: broadcast of ${row.tx_hash}: ${error.message}`))
      .finally(() => this.inFlight.delete(row.id));
    this.inFlight.set(row.id, sending);
  }

  /** Whether the transaction's first broadcast (and what follows it, `onDone`) is under way. */
  isSending(id: string): boolean {
    return this.inFlight.has(id);
  }

  /** Resolves when the background broadcasts under way are done. */
  async drain(): Promise<void> {
    await Promise.all(this.inFlight.values());
  }

  lastSentAt(id: string): number | undefined {
    return this.sentAt.get(id);
  }

  /** The transaction was mined: nothing more to send. */
  forget(id: string): void {
    this.sentAt.delete(id);
  }
}
