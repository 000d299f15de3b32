import type { Address, Hex, Log } from 'viem';
import type { ChainContext, ChainRegistry } from '../chain/chains.ts';
import type { DbTransaction } from '../store/database.ts';
import type { OutboxRow } from '../store/schema.ts';
import { toTransaction, type OutboxTransaction, type ReceiptWrite } from './lifecycle.ts';
import type { OutboxStore } from './store.ts';
import { rowAccountKey } from './submission.ts';

const VERIFY_BATCH = 1000;

export interface MinedReceipt {
  status: 'success' | 'reverted';
  blockNumber: bigint;
  blockHash: Hex;
  gasUsed: bigint;
  contractAddress?: Address | null | undefined;
  logs?: readonly Log[];
}

export async function receiptOf(chain: ChainContext, hash: Hex): Promise<MinedReceipt | undefined> {
  try {
    return await chain.client.getTransactionReceipt({ hash });
  } catch (error) {
    if ((error as Error).name === 'TransactionReceiptNotFoundError') return undefined;
    throw error;
  }
}

/** Each account's mined nonce count ("latest"), by rowAccountKey; an account whose node did not answer is left out. */
export async function minedNonceCounts(
  chains: Pick<ChainRegistry, 'get'>,
  accounts: Iterable<Pick<OutboxRow, 'chain' | 'from_address'>>,
): Promise<Map<string, number>> {
  const unique = new Map([...accounts].map((account) => [rowAccountKey(account), account]));
  const counts = await Promise.all(
    [...unique].map(async ([key, account]) => {
      const count = await chains
        .get(account.chain)
        .client.getTransactionCount({ address: account.from_address as Address, blockTag: 'latest' })
        .catch(() => undefined);
      return [key, count] as const;
    }),
  );
  return new Map(counts.filter((entry): entry is readonly [string, number] => entry[1] !== undefined));
}

/**
 * Receipts of unmined rows (undefined where there is none yet), given their accounts' mined nonce
 * counts (minedNonceCounts): only a row below its account's count can have a receipt, so the node
 * is asked for receipts that exist rather than for every pending one on every pass.
 */
export async function receiptsOf(
  chains: Pick<ChainRegistry, 'get'>,
  rows: OutboxRow[],
  minedCounts: ReadonlyMap<string, number>,
): Promise<Array<MinedReceipt | undefined>> {
  return Promise.all(
    rows.map((row) => {
      const count = minedCounts.get(rowAccountKey(row));
      if (count !== undefined && row.nonce >= count) return undefined;
      return receiptOf(chains.get(row.chain), row.tx_hash as Hex).catch(() => undefined);
    }),
  );
}

/**
 * Stores receipts and tells `onMined` of each transaction: `mined` (final) on a chain whose rule is
 * depth 0, else `included` until ConfirmationTracker confirms its block.
 */
export class ReceiptRecorder {
  constructor(
    private readonly store: Pick<OutboxStore, 'recordReceipts'>,
    /** Whether the chain's transactions are final with their receipt (depth 0). */
    private readonly instant: (chain: string) => boolean,
    /** `logs`: the receipt's, as the node gave them (they are not stored). */
    private readonly onMined: (transaction: OutboxTransaction, logs: readonly Log[] | undefined) => void,
    /** The writes waiters want made with a transaction's receipt (waitForFinal's `withReceipt`). */
    private readonly writesFor: (id: string) => Iterable<ReceiptWrite>,
  ) {}

  /**
   * Records the receipts in one commit, with the writes waiters want made with a final one (a
   * receipt final in this commit, whose logs the node gave); each transaction then tells which of
   * them were made (`receiptWritesDone`).
   */
  async recordReceipts(mined: Array<{ row: OutboxRow; receipt: MinedReceipt }>): Promise<void> {
    const now = Date.now();
    const recorded = mined.map(({ row, receipt }) => ({
      ...row,
      status: this.instant(row.chain) ? 'mined' : 'included',
      receipt_status: receipt.status,
      block_number: Number(receipt.blockNumber),
      block_hash: receipt.blockHash,
      gas_used: receipt.gasUsed.toString(),
      contract_address: receipt.contractAddress?.toLowerCase() ?? null,
      error: null,
      updated_ms: now,
    }) satisfies OutboxRow);
    const transactions = recorded.map((row) => toTransaction(row));
    const writes: Array<{ transaction: OutboxTransaction; write: ReceiptWrite; logs: readonly Log[] }> = [];
    for (const [index, transaction] of transactions.entries()) {
      const logs = mined[index]!.receipt.logs;
      if (transaction.status !== 'mined' || !logs) continue;
      for (const write of this.writesFor(transaction.id)) writes.push({ transaction, write, logs });
    }
    const made = await this.store.recordReceipts(
      recorded,
      now,
      writes.map(({ transaction, write, logs }) => (trx: DbTransaction) => write(trx, transaction, logs)),
    );
    const done = new Map<string, Set<ReceiptWrite>>();
    for (const index of made) {
      const { transaction, write } = writes[index]!;
      done.set(transaction.id, (done.get(transaction.id) ?? new Set()).add(write));
    }
    transactions.forEach((transaction, index) => {
      const writesDone = done.get(transaction.id);
      this.onMined(writesDone ? { ...transaction, receiptWritesDone: writesDone } : transaction, mined[index]!.receipt.logs);
    });
  }
}

/**
 * Checks that the node still has the receipts of mined transactions, newest first, page by page
 * until a page holds no loss (a node loses a suffix of its blocks). Lost ones go back to be
 * replayed with their stored bytes. Answers how many were lost.
 */
export async function verifyMined(store: Pick<OutboxStore, 'minedPage' | 'unmine'>, chain: ChainContext): Promise<number> {
  let lostTotal = 0;
  let before: { blockNumber: number; id: string } | undefined;
  for (;;) {
    const rows = await store.minedPage(chain.name, before, VERIFY_BATCH);
    if (rows.length === 0) break;
    const receipts = await Promise.all(rows.map((row) => receiptOf(chain, row.tx_hash as Hex)));
    const lost = rows.filter((row, index) => receipts[index]?.blockHash !== row.block_hash).map((row) => row.id);
    await store.unmine(lost);
    lostTotal += lost.length;
    if (lost.length === 0 || rows.length < VERIFY_BATCH) break;
    const last = rows[rows.length - 1]!;
    before = { blockNumber: Number(last.block_number), id: last.id };
  }
  return lostTotal;
}
