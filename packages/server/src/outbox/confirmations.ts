import type { Hex } from 'viem';
import type { ChainContext, ChainRegistry } from '../chain/chains.ts';
import { confirmedHeight, isInstant } from '../chain/confirmations.ts';
import type { OutboxRow } from '../store/schema.ts';
import { receiptOf } from './receipts.ts';
import type { OutboxStore } from './store.ts';

/** Included rows one pass looks at (lowest blocks first: they are confirmed first). */
const UNCONFIRMED_BATCH = 500;

export interface ConfirmationTrackerOptions {
  chains: Pick<ChainRegistry, 'get' | 'has' | 'all'>;
  store: Pick<OutboxStore, 'unconfirmed' | 'confirm' | 'replaceReceipts'>;
  /** Told of the rows this pass confirmed (now `mined`). */
  onConfirmed(ids: string[]): void;
  /** Told of a chain's rows whose block a reorg replaced: `moved` were found in a new block, `dropped` go back to be sent again. */
  onReplaced(chain: ChainContext, moved: number, dropped: number): void;
}

/**
 * Takes `included` rows to `mined` once their block is confirmed by the chain's rule, and undoes
 * those whose block a reorg replaced before that: each pass compares the chain's block at each
 * recorded height with the recorded hash (a block's hash covers its parents, so an unchanged hash
 * means an unchanged chain below it). A replaced row's receipt is looked up again: in a new block it
 * is recorded there (still `included`); gone, it goes back to `signed` and the pending pass sends
 * its stored bytes again, in nonce order. Nothing is confirmed whose block was replaced.
 */
export class ConfirmationTracker {
  /** Whether a pass can find anything: a chain with a rule above depth 0, or rows left from a run that had one. */
  private idle = false;
  /**
   * Per chain, the head and the rows of the last full check: while the head is the same block and
   * no row is new, nothing can have changed (no new block to confirm with, none replaced), so a
   * pass costs one call per chain rather than one per recorded block.
   */
  private readonly lastChecked = new Map<string, { head: string; rows: Set<string> }>();

  constructor(private readonly options: ConfirmationTrackerOptions) {}

  /** One pass over the unconfirmed rows; a chain whose node does not answer is checked next time. */
  async check(): Promise<void> {
    const { chains, store } = this.options;
    if (this.idle) return;
    const rows = await store.unconfirmed(UNCONFIRMED_BATCH);
    // With every chain at depth 0 no row becomes `included`: once none is left, passes stop asking.
    if (rows.length === 0 && chains.all().every((chain) => isInstant(chain.confirmations))) this.idle = true;
    const byChain = new Map<string, OutboxRow[]>();
    for (const row of rows) {
      if (!chains.has(row.chain)) continue;
      const chainRows = byChain.get(row.chain) ?? [];
      chainRows.push(row);
      byChain.set(row.chain, chainRows);
    }
    await Promise.all([...byChain].map(([name, chainRows]) => this.checkChain(chains.get(name), chainRows).catch(() => {})));
  }

  private async checkChain(chain: ChainContext, rows: OutboxRow[]): Promise<void> {
    const head = await chain.client.getBlock({ blockTag: 'latest' });
    const rowKeys = new Set(rows.map((row) => `${row.id}:${row.block_hash}`));
    const last = this.lastChecked.get(chain.name);
    if (head.hash !== null && last?.head === head.hash && [...rowKeys].every((key) => last.rows.has(key))) return;
    // The confirmed height is read before the blocks: a block replaced after this read is seen as replaced.
    const height = await confirmedHeight(chain, head.number ?? undefined);
    const heights = [...new Set(rows.map((row) => Number(row.block_number)))];
    const hashes = new Map(
      await Promise.all(
        heights.map(async (number) => {
          const block = await chain.client.getBlock({ blockNumber: BigInt(number) }).catch(() => undefined);
          return [number, block?.hash ?? undefined] as const;
        }),
      ),
    );
    const now = Date.now();
    const confirmable = new Map<string, string[]>();
    const replaced: OutboxRow[] = [];
    for (const row of rows) {
      const number = Number(row.block_number);
      if (hashes.get(number) !== row.block_hash) replaced.push(row);
      else if (BigInt(number) <= height) confirmable.set(row.block_hash!, [...(confirmable.get(row.block_hash!) ?? []), row.id]);
    }
    if (replaced.length > 0) {
      const receipts = await Promise.all(replaced.map((row) => receiptOf(chain, row.tx_hash as Hex)));
      const changes = replaced.map((row, index) => {
        const receipt = receipts[index];
        return {
          row,
          receipt: receipt && {
            receipt_status: receipt.status,
            block_number: Number(receipt.blockNumber),
            block_hash: receipt.blockHash,
            gas_used: receipt.gasUsed.toString(),
            contract_address: receipt.contractAddress?.toLowerCase() ?? null,
          },
        };
      });
      await this.options.store.replaceReceipts(changes, now);
      const moved = changes.filter((change) => change.receipt).length;
      this.options.onReplaced(chain, moved, changes.length - moved);
    }
    for (const [blockHash, ids] of confirmable) {
      const confirmed = await this.options.store.confirm(ids, blockHash, now);
      if (confirmed.length > 0) this.options.onConfirmed(confirmed);
    }
    // Remembered only once the whole check went through: a failed one is made again next pass.
    if (head.hash !== null) this.lastChecked.set(chain.name, { head: head.hash, rows: rowKeys });
  }
}
