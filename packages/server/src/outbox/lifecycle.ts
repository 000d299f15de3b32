import type { Address, Hex, Log } from 'viem';
import type { DbTransaction } from '../store/database.ts';
import type { OutboxRow } from '../store/schema.ts';

/**
 * The states a transaction goes through. `signed`: stored, and sent or to be sent again (`error`
 * holds the last failed broadcast). `included`: its receipt is stored, from a block the chain's
 * confirmation rule does not count as final yet (never on a chain with depth 0); it becomes `mined`
 * once the block is confirmed, or goes back to `signed` when a reorg replaces the block (see
 * confirmations.ts). `mined`: its receipt is stored and its block confirmed: final for everything
 * downstream; it goes back to `signed` only when the node loses the block (see verifyMined).
 * `failed`: its nonce was used by a transaction the outbox never signed, so it can never be mined.
 */
export type TransactionState =
  | { status: 'signed'; receiptStatus: null; blockNumber: null; contractAddress: null; error: string | null }
  | { status: 'included'; receiptStatus: 'success' | 'reverted'; blockNumber: number; contractAddress: Address | null; error: null }
  | { status: 'mined'; receiptStatus: 'success' | 'reverted'; blockNumber: number; contractAddress: Address | null; error: null }
  | { status: 'failed'; receiptStatus: null; blockNumber: null; contractAddress: null; error: string };

/** A transaction as the outbox knows it; `status` is the lifecycle tag. */
export type OutboxTransaction = {
  id: string;
  idempotencyKey: string;
  chain: string;
  from: Address;
  nonce: number;
  to: Address | null;
  txHash: Hex;
  /**
   * The receipt's logs, when the transaction was mined in this process while a caller waited on it
   * (waitForFinal); absent when it is read from the store, which keeps no logs.
   */
  logs?: readonly Log[];
  /** The waiters' writes (waitForFinal's `withReceipt`) made in the commit that recorded the receipt. */
  receiptWritesDone?: ReadonlySet<ReceiptWrite>;
} & TransactionState;

/**
 * A waiter's writes that belong with a transaction's receipt (a mint batch marked minted): made in
 * the commit that records the receipt when this process records it final, so the waiter need not
 * commit again. Given the transaction as recorded and the receipt's logs.
 */
export type ReceiptWrite = (trx: DbTransaction, transaction: OutboxTransaction, logs: readonly Log[]) => Promise<void>;

/** A row's columns in the `signed` state: no receipt (as signed, and when a lost block puts it back). */
export const SIGNED_COLUMNS = {
  status: 'signed',
  receipt_status: null,
  block_number: null,
  block_hash: null,
  gas_used: null,
  contract_address: null,
} as const satisfies Partial<OutboxRow>;

export function toTransaction(row: OutboxRow): OutboxTransaction {
  const transaction = {
    id: row.id,
    idempotencyKey: row.idempotency_key,
    chain: row.chain,
    from: row.from_address as Address,
    nonce: row.nonce,
    to: row.to_address as Address | null,
    txHash: row.tx_hash as Hex,
  };
  const status = row.status;
  switch (status) {
    case 'signed':
      return { ...transaction, status, receiptStatus: null, blockNumber: null, contractAddress: null, error: row.error };
    case 'included':
    case 'mined':
      return {
        ...transaction,
        status,
        receiptStatus: row.receipt_status as 'success' | 'reverted',
        blockNumber: Number(row.block_number),
        contractAddress: row.contract_address as Address | null,
        error: null,
      };
    case 'failed':
      return { ...transaction, status, receiptStatus: null, blockNumber: null, contractAddress: null, error: row.error ?? '' };
    default:
      return unknownStatus(status);
  }
}

/** Whether the transaction has reached a state it never leaves on its own. */
export function isFinal(transaction: TransactionState): boolean {
  const status = transaction.status;
  switch (status) {
    case 'signed':
    case 'included':
      return false;
    case 'mined':
    case 'failed':
      return true;
    default:
      return unknownStatus(status);
  }
}

function unknownStatus(status: never): never {
  throw new Error(`outbox: unknown transaction status ${String(status)}`);
}
