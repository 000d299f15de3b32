import { formatTransactionReceipt, toHex, type Address, type Hex, type Log, type RpcTransactionReceipt, type TransactionReceipt } from 'viem';
import type { ChainContext, ChainRegistry } from '../chain/chains.ts';
import { isMethodUnknown } from '../chain/node-errors.ts';
import type { DbTransaction } from '../store/database.ts';
import type { OutboxRow } from '../store/schema.ts';
import { toTransaction, type OutboxTransaction, type ReceiptWrite } from './lifecycle.ts';
import type { OutboxStore } from './store.ts';
import { rowAccountKey } from './submission.ts';

const VERIFY_BATCH = 1000;

export interface MinedReceipt {
  transactionHash: Hex;
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
 * is asked for receipts that exist rather than for every pending one on every pass. Where many are
 * due on one chain they are read a block at a time (blockReceiptsOf).
 */
export async function receiptsOf(
  chains: Pick<ChainRegistry, 'get'>,
  rows: OutboxRow[],
  minedCounts: ReadonlyMap<string, number>,
): Promise<Array<MinedReceipt | undefined>> {
  const byChain = new Map<string, OutboxRow[]>();
  for (const row of rows) {
    const count = minedCounts.get(rowAccountKey(row));
    if (count !== undefined && row.nonce >= count) continue;
    const chainRows = byChain.get(row.chain);
    if (chainRows) chainRows.push(row);
    else byChain.set(row.chain, [row]);
  }
  const found = new Map<string, MinedReceipt>();
  await Promise.all(
    [...byChain].map(async ([name, due]) => {
      const chain = chains.get(name);
      const read = await blockReceiptsOf(chain, due);
      for (const [hash, receipt] of read) found.set(hash, receipt);
      await Promise.all(
        due
          .filter((row) => !read.has(row.tx_hash.toLowerCase()))
          .map(async (row) => {
            const receipt = await receiptOf(chain, row.tx_hash as Hex).catch(() => undefined);
            if (receipt) found.set(row.tx_hash.toLowerCase(), receipt);
          }),
      );
    }),
  );
  return rows.map((row) => found.get(row.tx_hash.toLowerCase()));
}

/** From this many receipts due on a chain in a pass, they are read a block at a time. */
const BLOCK_RECEIPTS_FROM = 8;
/** Most blocks read whole in one pass; what is left is asked for one receipt at a time. */
const BLOCK_RECEIPTS_MOST = 16;
/** Chains whose node does not know `eth_getBlockReceipts` (not every node has it): asked one receipt at a time. */
const withoutBlockReceipts = new WeakSet<ChainContext>();
/** Blocks whose receipts are kept per chain, the latest read. */
const KEPT_BLOCKS = 4;
/**
 * Per chain, the receipts of the blocks last read whole, by block hash, then by lowercase
 * transaction hash: a pass reads at most its batch of rows, and a block can hold more of ours than
 * that, so the next pass finds the rest of the block here rather than asking the node for the
 * whole block again (on anvil, a block of a thousand transfers costs the node 0.2 s a read).
 */
const keptBlocks = new WeakMap<ChainContext, Map<Hex, { number: bigint; receipts: Map<string, TransactionReceipt> }>>();

/** Receipts of `wanted` from the blocks kept, each block checked still on the chain (one call a block). */
async function keptReceiptsOf(chain: ChainContext, wanted: Set<string>): Promise<Map<string, MinedReceipt>> {
  const found = new Map<string, MinedReceipt>();
  const kept = keptBlocks.get(chain);
  if (!kept) return found;
  for (const [blockHash, block] of [...kept]) {
    const ours = [...wanted].filter((hash) => block.receipts.has(hash));
    if (ours.length === 0) continue;
    const onChain = await chain.client.getBlock({ blockNumber: block.number }).catch(() => undefined);
    if (onChain?.hash !== blockHash) {
      kept.delete(blockHash);
      continue;
    }
    for (const hash of ours) found.set(hash, block.receipts.get(hash)!);
  }
  return found;
}

function keepBlock(chain: ChainContext, blockHash: Hex, number: bigint, receipts: TransactionReceipt[]): void {
  const kept = keptBlocks.get(chain) ?? new Map();
  keptBlocks.set(chain, kept);
  kept.delete(blockHash);
  kept.set(blockHash, { number, receipts: new Map(receipts.map((receipt) => [receipt.transactionHash.toLowerCase(), receipt])) });
  for (const oldest of kept.keys()) {
    if (kept.size <= KEPT_BLOCKS) break;
    kept.delete(oldest);
  }
}

/**
 * Receipts of many due rows of one chain, by lowercase hash, a block at a time: the receipt of the
 * oldest row not yet found names its block, and `eth_getBlockReceipts` gives that block's, so a
 * block holding a thousand of ours costs two calls rather than a thousand (the node's work, and a
 * provider's bill). Rows not found here (fewer than BLOCK_RECEIPTS_FROM left, a node without the
 * method, one not mined after all) are the caller's to ask for one at a time.
 */
async function blockReceiptsOf(chain: ChainContext, rows: OutboxRow[]): Promise<Map<string, MinedReceipt>> {
  if (withoutBlockReceipts.has(chain)) return new Map();
  const wanted = new Set(rows.map((row) => row.tx_hash.toLowerCase()));
  const found = await keptReceiptsOf(chain, wanted);
  let left = rows.filter((row) => !found.has(row.tx_hash.toLowerCase())).sort((a, b) => a.created_ms - b.created_ms || a.nonce - b.nonce);
  for (let blocks = 0; blocks < BLOCK_RECEIPTS_MOST && left.length >= BLOCK_RECEIPTS_FROM; blocks++) {
    const first = left[0]!;
    left = left.slice(1);
    const receipt = await receiptOf(chain, first.tx_hash as Hex).catch(() => undefined);
    if (!receipt) continue;
    found.set(first.tx_hash.toLowerCase(), receipt);
    let block: TransactionReceipt[];
    try {
      const raw = (await chain.client.request({ method: 'eth_getBlockReceipts', params: [toHex(receipt.blockNumber)] } as never)) as RpcTransactionReceipt[] | null;
      block = (raw ?? []).map((item) => formatTransactionReceipt(item));
    } catch (error) {
      if (isMethodUnknown(error)) withoutBlockReceipts.add(chain);
      break;
    }
    // Only the block the first receipt named: another (a reorg between the two calls) is left to the one-at-a-time reads.
    const named = block.filter((item) => item.blockHash === receipt.blockHash);
    if (named.length > 0) keepBlock(chain, receipt.blockHash, receipt.blockNumber, named);
    for (const item of named) {
      const hash = item.transactionHash.toLowerCase();
      if (wanted.has(hash)) found.set(hash, item);
    }
    left = left.filter((row) => !found.has(row.tx_hash.toLowerCase()));
  }
  return found;
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
