import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { BaseError, ContractFunctionRevertedError, keccak256, type Address, type Hex, type LocalAccount } from 'viem';
import type { ChainContext, ChainRegistry } from '../chain/chains.ts';
import type { Db } from '../store/database.ts';
import type { OutboxRow } from '../store/schema.ts';
import { classifyBroadcastError } from './broadcast-errors.ts';

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
}

/** A transaction as the outbox knows it; `status` is the lifecycle tag. */
export type OutboxTransaction = ReturnType<typeof toTransaction>;

export interface OutboxOptions {
  db: Db;
  chains: ChainRegistry;
  pollIntervalMs: number;
  rebroadcastAfterMs: number;
  log?: { info(message: string): void; warn(message: string): void };
}

const PENDING_BATCH = 500;
const VERIFY_BATCH = 1000;
const FEE_CACHE_MS = 1_000;

/**
 * The one way the service sends transactions. Per account and chain it allocates the nonce, signs
 * and stores the raw transaction in one DB transaction; then broadcasts; then tracks the receipt.
 * Whatever is not mined is broadcast again (the same bytes give the same hash), so a crash of the
 * service or of the node at any moment loses nothing and duplicates nothing.
 */
export class TransactionOutbox {
  private readonly db: Db;
  private readonly chains: ChainRegistry;
  private readonly options: OutboxOptions;
  private readonly settled = new EventEmitter();
  private readonly feeCache = new Map<string, { at: number; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>();
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private kicked = false;

  constructor(options: OutboxOptions) {
    this.db = options.db;
    this.chains = options.chains;
    this.options = options;
    this.settled.setMaxListeners(0);
  }

  /** Starts tracking: replays what a previous run left unmined and checks recent receipts still hold. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    for (const chain of this.chains.all()) {
      chain.node?.on('restarted', () => {
        this.verifyMined(chain).catch((error: Error) => this.options.log?.warn(`outbox: verify ${chain.name}: ${error.message}`));
      });
      await this.verifyMined(chain);
    }
    this.loop = this.runLoop();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /**
   * Persists and broadcasts one transaction. Resolves once it is stored and a broadcast was tried;
   * the receipt comes later (`waitForFinal`). Gas estimation errors (reverts) are thrown before
   * anything is stored.
   */
  async submit(submission: OutboxSubmission): Promise<OutboxTransaction> {
    const existing = await this.findByIdempotencyKey(submission.idempotencyKey);
    if (existing) return existing;

    const chain = this.chains.get(submission.chain);
    const from = submission.signer.address.toLowerCase() as Address;
    const value = submission.value ?? 0n;
    const data = submission.data ?? '0x';
    const gas = submission.gas ?? (await this.estimateGas(chain, from, submission.to, data, value));
    const fees = await this.fees(chain);
    // A transaction that can never pay would hold back every later nonce of the account: refuse it now.
    const cost = value + gas * fees.maxFeePerGas;
    const balance = await chain.client.getBalance({ address: from, blockTag: 'pending' });
    if (balance < cost) {
      throw new OutboxRefusal('insufficient_funds', `balance ${balance} wei is below the ${cost} wei this transaction may cost`);
    }
    const knownNonce = await this.db
      .selectFrom('account_nonces')
      .select('next_nonce')
      .where('chain', '=', chain.name)
      .where('address', '=', from)
      .executeTakeFirst();
    const chainNonce = knownNonce ? 0 : await chain.client.getTransactionCount({ address: from, blockTag: 'pending' });

    let row: OutboxRow;
    try {
      row = await this.db.transaction().execute(async (trx) => {
        // A write first, so SQLite takes its write lock now and PostgreSQL locks the nonce row.
        await trx
          .insertInto('account_nonces')
          .values({ chain: chain.name, address: from, next_nonce: chainNonce })
          .onConflict((conflict) => conflict.columns(['chain', 'address']).doNothing())
          .execute();
        const allocated = await trx
          .updateTable('account_nonces')
          .set((eb) => ({ next_nonce: eb('next_nonce', '+', 1) }))
          .where('chain', '=', chain.name)
          .where('address', '=', from)
          .returning('next_nonce')
          .executeTakeFirstOrThrow();
        const duplicate = await trx
          .selectFrom('outbox_transactions')
          .selectAll()
          .where('idempotency_key', '=', submission.idempotencyKey)
          .executeTakeFirst();
        if (duplicate) throw new DuplicateSubmission(duplicate);

        const nonce = allocated.next_nonce - 1;
        const raw = await submission.signer.account.signTransaction!({
          type: 'eip1559',
          chainId: chain.chainId,
          nonce,
          to: submission.to,
          data,
          value,
          gas,
          maxFeePerGas: fees.maxFeePerGas,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        });
        const now = Date.now();
        const inserted: OutboxRow = {
          id: randomUUID(),
          idempotency_key: submission.idempotencyKey,
          chain: chain.name,
          from_address: from,
          nonce,
          to_address: submission.to?.toLowerCase() ?? null,
          value_wei: value.toString(),
          data,
          gas_limit: gas.toString(),
          raw_tx: raw,
          tx_hash: keccak256(raw),
          status: 'signed',
          receipt_status: null,
          block_number: null,
          block_hash: null,
          gas_used: null,
          contract_address: null,
          error: null,
          broadcast_attempts: 0,
          last_broadcast_ms: null,
          created_ms: now,
          updated_ms: now,
        };
        await trx.insertInto('outbox_transactions').values(inserted).execute();
        return inserted;
      });
    } catch (error) {
      if (error instanceof DuplicateSubmission) return toTransaction(error.row);
      // Another process stored the same key between our check and our insert.
      const raced = await this.findByIdempotencyKey(submission.idempotencyKey);
      if (raced) return raced;
      throw error;
    }

    await this.broadcast(row);
    this.kick();
    return (await this.findById(row.id)) ?? toTransaction(row);
  }

  async findByIdempotencyKey(key: string): Promise<OutboxTransaction | undefined> {
    const row = await this.db.selectFrom('outbox_transactions').selectAll().where('idempotency_key', '=', key).executeTakeFirst();
    return row && toTransaction(row);
  }

  async findById(id: string): Promise<OutboxTransaction | undefined> {
    const row = await this.db.selectFrom('outbox_transactions').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toTransaction(row);
  }

  async findByHash(txHash: string): Promise<OutboxTransaction | undefined> {
    const row = await this.db
      .selectFrom('outbox_transactions')
      .selectAll()
      .where('tx_hash', '=', txHash.toLowerCase())
      .executeTakeFirst();
    return row && toTransaction(row);
  }

  /** Resolves when the transaction is mined or has failed for good. */
  async waitForFinal(id: string, timeoutMs = 60_000): Promise<OutboxTransaction> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const transaction = await this.findById(id);
      if (!transaction) throw new Error(`outbox: no transaction ${id}`);
      if (transaction.status === 'mined' || transaction.status === 'failed') return transaction;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`outbox: transaction ${transaction.txHash} not mined within ${timeoutMs} ms`);
      this.kick();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, this.options.pollIntervalMs * 2));
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.settled.once(id, done);
      });
    }
  }

  /** Checks receipts of recently mined transactions; those the node no longer has go back to be replayed. */
  async verifyMined(chain: ChainContext): Promise<number> {
    const rows = await this.db
      .selectFrom('outbox_transactions')
      .select(['id', 'tx_hash', 'block_hash'])
      .where('chain', '=', chain.name)
      .where('status', '=', 'mined')
      .orderBy('updated_ms', 'desc')
      .limit(VERIFY_BATCH)
      .execute();
    const receipts = await Promise.all(rows.map((row) => this.receiptOf(chain, row.tx_hash as Hex)));
    const lost = rows.filter((row, index) => receipts[index]?.blockHash !== row.block_hash).map((row) => row.id);
    if (lost.length > 0) {
      this.options.log?.warn(`outbox: chain ${chain.name} lost ${lost.length} mined transactions; replaying them`);
      for (let start = 0; start < lost.length; start += 200) {
        await this.db
          .updateTable('outbox_transactions')
          .set({
            status: 'sent',
            receipt_status: null,
            block_number: null,
            block_hash: null,
            gas_used: null,
            contract_address: null,
            last_broadcast_ms: null,
            updated_ms: Date.now(),
          })
          .where('id', 'in', lost.slice(start, start + 200))
          .execute();
      }
      this.kick();
    }
    return lost.length;
  }

  /** Runs one pass now instead of at the next interval. */
  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  private async runLoop(): Promise<void> {
    while (this.running) {
      this.kicked = false;
      try {
        await this.trackPending();
      } catch (error) {
        this.options.log?.warn(`outbox: ${(error as Error).message}`);
      }
      if (!this.running) break;
      if (this.kicked) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.pollIntervalMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /** One pass: record receipts of unmined transactions and broadcast again those that need it. */
  private async trackPending(): Promise<void> {
    const rows = await this.db
      .selectFrom('outbox_transactions')
      .selectAll()
      .where('status', 'in', ['signed', 'sent'])
      .orderBy('created_ms')
      .limit(PENDING_BATCH)
      .execute();
    if (rows.length === 0) return;
    const now = Date.now();
    await Promise.all(
      rows.map(async (row) => {
        if (!this.chains.has(row.chain)) return;
        const chain = this.chains.get(row.chain);
        const receipt = await this.receiptOf(chain, row.tx_hash as Hex).catch(() => undefined);
        if (receipt) return this.recordReceipt(row, receipt);
        const lastBroadcast = row.last_broadcast_ms ?? 0;
        const due =
          row.last_broadcast_ms === null
            ? now - row.created_ms > this.options.rebroadcastAfterMs / 5
            : now - lastBroadcast > this.options.rebroadcastAfterMs;
        if (due) await this.broadcast(row);
      }),
    );
  }

  private async broadcast(row: OutboxRow): Promise<void> {
    const chain = this.chains.get(row.chain);
    let outcome: { status: 'sent' } | { status: 'retry'; error: string } | { status: 'reconcile'; error: string };
    try {
      await chain.client.sendRawTransaction({ serializedTransaction: row.raw_tx as Hex });
      outcome = { status: 'sent' };
    } catch (error) {
      outcome = classifyBroadcastError(error);
    }
    const now = Date.now();
    const base = { last_broadcast_ms: now, updated_ms: now, broadcast_attempts: row.broadcast_attempts + 1 };
    if (outcome.status === 'sent') {
      await this.db
        .updateTable('outbox_transactions')
        .set({ ...base, status: 'sent', error: null })
        .where('id', '=', row.id)
        .where('status', 'in', ['signed', 'sent'])
        .execute();
    } else if (outcome.status === 'retry') {
      await this.db
        .updateTable('outbox_transactions')
        .set({ ...base, error: outcome.error })
        .where('id', '=', row.id)
        .where('status', 'in', ['signed', 'sent'])
        .execute();
    } else {
      await this.reconcileNonceTooLow(chain, row, outcome.error);
    }
  }

  /**
   * "nonce too low": the nonce is used on chain. Either by this very transaction (record its
   * receipt), or by one the outbox never signed: then this one can never be mined and fails.
   */
  private async reconcileNonceTooLow(chain: ChainContext, row: OutboxRow, error: string): Promise<void> {
    const receipt = await this.receiptOf(chain, row.tx_hash as Hex);
    if (receipt) return this.recordReceipt(row, receipt);
    const pending = await chain.client.getTransaction({ hash: row.tx_hash as Hex }).catch(() => undefined);
    if (pending) return;
    const chainNonce = await chain.client.getTransactionCount({ address: row.from_address as Address, blockTag: 'latest' });
    if (chainNonce <= row.nonce) return; // The node is behind (e.g. replaying); try again later.
    this.options.log?.warn(`outbox: ${row.tx_hash} nonce ${row.nonce} was used by another transaction`);
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('outbox_transactions')
        .set({ status: 'failed', error: `nonce ${row.nonce} used by another transaction: ${error}`, updated_ms: Date.now() })
        .where('id', '=', row.id)
        .where('status', 'in', ['signed', 'sent'])
        .execute();
      await trx
        .updateTable('account_nonces')
        .set({ next_nonce: chainNonce })
        .where('chain', '=', row.chain)
        .where('address', '=', row.from_address)
        .where('next_nonce', '<', chainNonce)
        .execute();
    });
    this.settled.emit(row.id);
  }

  private async recordReceipt(row: Pick<OutboxRow, 'id'>, receipt: MinedReceipt): Promise<void> {
    await this.db
      .updateTable('outbox_transactions')
      .set({
        status: 'mined',
        receipt_status: receipt.status,
        block_number: Number(receipt.blockNumber),
        block_hash: receipt.blockHash,
        gas_used: receipt.gasUsed.toString(),
        contract_address: receipt.contractAddress?.toLowerCase() ?? null,
        error: null,
        updated_ms: Date.now(),
      })
      .where('id', '=', row.id)
      .execute();
    this.settled.emit(row.id);
  }

  private async receiptOf(chain: ChainContext, hash: Hex): Promise<MinedReceipt | undefined> {
    try {
      return await chain.client.getTransactionReceipt({ hash });
    } catch (error) {
      if ((error as Error).name === 'TransactionReceiptNotFoundError') return undefined;
      throw error;
    }
  }

  private async estimateGas(chain: ChainContext, from: Address, to: Address | null, data: Hex, value: bigint): Promise<bigint> {
    let estimate: bigint;
    try {
      estimate = await chain.client.estimateGas({ account: from, ...(to ? { to } : {}), data, value });
    } catch (error) {
      const text = String((error as { details?: string }).details ?? (error as Error).message);
      if (/insufficient funds/i.test(text)) throw new OutboxRefusal('insufficient_funds', text, error);
      throw new OutboxRefusal('reverted', revertReason(error) ?? text, error);
    }
    // Headroom: state may change between estimation and mining.
    return (estimate * 125n) / 100n;
  }

  private async fees(chain: ChainContext): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    const cached = this.feeCache.get(chain.name);
    if (cached && Date.now() - cached.at < FEE_CACHE_MS) return cached;
    const estimate = await chain.client.estimateFeesPerGas();
    const fees = {
      at: Date.now(),
      // Twice the estimate: a replayed transaction must still pay after the base fee has risen.
      maxFeePerGas: estimate.maxFeePerGas * 2n,
      maxPriorityFeePerGas: estimate.maxPriorityFeePerGas,
    };
    this.feeCache.set(chain.name, fees);
    return fees;
  }
}

interface MinedReceipt {
  status: 'success' | 'reverted';
  blockNumber: bigint;
  blockHash: Hex;
  gasUsed: bigint;
  contractAddress?: Address | null | undefined;
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

/** The revert reason viem found (reason string, custom error name, or panic), if any. */
function revertReason(error: unknown): string | undefined {
  const walked = (error as BaseError).walk?.((inner) => inner instanceof ContractFunctionRevertedError || 'reason' in (inner as object));
  const reason = (walked as { reason?: string; data?: { errorName?: string } } | undefined)?.reason ?? (walked as { data?: { errorName?: string } } | undefined)?.data?.errorName;
  if (reason) return reason;
  const match = /reverted with reason string '([^']*)'|execution reverted: ([^\n]*)/.exec(String((error as Error).message));
  return match?.[1] ?? match?.[2];
}

class DuplicateSubmission extends Error {
  constructor(readonly row: OutboxRow) {
    super('duplicate submission');
  }
}

function toTransaction(row: OutboxRow) {
  return {
    id: row.id,
    idempotencyKey: row.idempotency_key,
    chain: row.chain,
    from: row.from_address as Address,
    nonce: row.nonce,
    to: row.to_address as Address | null,
    txHash: row.tx_hash as Hex,
    status: row.status,
    receiptStatus: row.receipt_status as 'success' | 'reverted' | null,
    blockNumber: row.block_number === null ? null : Number(row.block_number),
    contractAddress: row.contract_address as Address | null,
    error: row.error,
  };
}
