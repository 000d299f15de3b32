import type { Address, Hex, LocalAccount } from 'viem';
import type { ChainContext } from '../chain/chains.ts';
import type { DbTransaction } from '../store/database.ts';
import type { OutboxRow } from '../store/schema.ts';

/** An account able to sign: the address and a viem local account unlocked by custody. */
export interface TransactionSigner {
  address: Address;
  account: LocalAccount;
}

export interface OutboxSubmission {
  /** One operation, one key: submitting the same key again returns the first transaction. */
  idempotencyKey: string;
  chain: string;
  signer: TransactionSigner;
  /** null deploys a contract. */
  to: Address | null;
  data?: Hex;
  value?: bigint;
  /** Gas limit; estimated (with headroom) when absent. */
  gas?: bigint;
  /**
   * Writes that must be stored exactly when the transaction is (a webhook event held until it is
   * mined): run in the DB transaction that stores the new row, never for a repeat of a stored key.
   */
  alongside?: (trx: DbTransaction, row: OutboxRow) => Promise<void>;
  /**
   * Writes like `alongside`'s that are statements alone, each made before the function returns and
   * none deciding anything from an answer (a plain insert or update); answers their promises. When
   * no submission of a commit has `alongside`, PostgreSQL's `commit` goes out behind the last of
   * them (commitBehindSent), a round trip less before the transaction can be sent.
   */
  alongsideStatements?: (trx: DbTransaction, row: OutboxRow) => Array<Promise<unknown>>;
  /**
   * Writes that decide whether the transaction may exist at all (a limit counted atomically): run
   * in the DB transaction that stores the new row, before it is signed, so a throw here leaves
   * nothing signed, stored or sent, and no nonce taken (the commit is undone). A submission with
   * them is not signed ahead of its commit.
   */
  beforeSigning?: (trx: DbTransaction) => Promise<void>;
}

/** The chain:account key of the per-account maps. */
export function accountKey(account: { chain: Pick<ChainContext, 'name'>; from: string }): string {
  return `${account.chain.name}:${account.from}`;
}

/** The same key for a stored row. */
export function rowAccountKey(row: Pick<OutboxRow, 'chain' | 'from_address'>): string {
  return `${row.chain}:${row.from_address}`;
}
