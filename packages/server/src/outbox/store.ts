import { sql } from 'kysely';
import type { Db, DbTransaction, Store } from '../store/database.ts';
import type { StoreDialect } from '../store/migrations/index.ts';
import type { OutboxRow } from '../store/schema.ts';
import { commitBehindSent } from '../store/pipelined-transaction.ts';
import { preparedQuery } from '../store/prepared-query.ts';
import { SIGNED_COLUMNS } from './lifecycle.ts';

/** Rows per multi-row insert (kept under SQLite's bound-parameter limit). */
const INSERT_BATCH = 25;
/** Receipts per update statement (6 parameters each, kept under the same limit). */
const RECEIPT_BATCH = 150;
/** Ids per coalesced read. */
const READ_BATCH = 500;
/** Ids per update of lost receipts. */
const RESET_BATCH = 200;

/** A mined row as verifyMined pages through them. */
export type MinedRowRef = Pick<OutboxRow, 'id' | 'tx_hash' | 'block_hash' | 'block_number'>;

/** Every query of the outbox's tables (outbox_transactions, account_nonces). */
export class OutboxStore {
  /** Reads by id asked for in this turn of the event loop, made as one query at its end. */
  private readonly pendingReads = new Map<string, Array<{ resolve(row: OutboxRow | undefined): void; reject(error: unknown): void }>>();

  private readonly db: Db;
  /** PostgreSQL rows are locked in id order before a multi-row update (two processes never deadlock). */
  private readonly dialect: StoreDialect;
  /** Receipts are committed without waiting for the disk: a lost one is read from the chain again. */
  private readonly unsyncedTransaction: Store['unsyncedTransaction'];
  /** PostgreSQL: a transaction of its own, statements pipelined. */
  private readonly groupCommit: Store['groupCommit'];

  constructor(store: Pick<Store, 'db' | 'dialect' | 'unsyncedTransaction' | 'groupCommit'>) {
    this.db = store.db;
    this.dialect = store.dialect;
    this.unsyncedTransaction = store.unsyncedTransaction;
    this.groupCommit = store.groupCommit;
  }

  findByKey(key: string): Promise<OutboxRow | undefined> {
    return this.db.selectFrom('outbox_transactions').selectAll().where('idempotency_key', '=', key).executeTakeFirst();
  }

  /** The stored rows of any of `keys`. */
  findByKeys(keys: string[]): Promise<OutboxRow[]> {
    return this.db.selectFrom('outbox_transactions').selectAll().where('idempotency_key', 'in', keys).execute();
  }

  findByHash(txHash: string): Promise<OutboxRow | undefined> {
    return this.db.selectFrom('outbox_transactions').selectAll().where('tx_hash', '=', txHash.toLowerCase()).executeTakeFirst();
  }

  /**
   * Reads asked for together (every waiter of a burst of transactions, each request polling its
   * own) are made as one query rather than one each.
   */
  findById(id: string): Promise<OutboxRow | undefined> {
    return new Promise((resolve, reject) => {
      if (this.pendingReads.size === 0) setImmediate(() => void this.readPending());
      const waiters = this.pendingReads.get(id) ?? [];
      waiters.push({ resolve, reject });
      this.pendingReads.set(id, waiters);
    });
  }

  private async readPending(): Promise<void> {
    const reads = [...this.pendingReads];
    this.pendingReads.clear();
    for (let start = 0; start < reads.length; start += READ_BATCH) {
      const batch = reads.slice(start, start + READ_BATCH);
      try {
        const rows = await this.db.selectFrom('outbox_transactions').selectAll().where('id', 'in', batch.map(([id]) => id)).execute();
        const byId = new Map(rows.map((row) => [row.id, row]));
        for (const [id, waiters] of batch) for (const waiter of waiters) waiter.resolve(byId.get(id));
      } catch (error) {
        for (const [, waiters] of batch) for (const waiter of waiters) waiter.reject(error);
      }
    }
  }

  /** Whether the account's nonce row exists. */
  async hasNonceRow(chain: string, address: string): Promise<boolean> {
    const known = await this.db
      .selectFrom('account_nonces')
      .select('next_nonce')
      .where('chain', '=', chain)
      .where('address', '=', address)
      .executeTakeFirst();
    return known !== undefined;
  }

  /** Runs `work` in one DB transaction (on PostgreSQL the store's own, its statements pipelined). */
  inTransaction<T>(work: (writes: GroupWrites) => Promise<T>): Promise<T> {
    if (this.dialect === 'postgres') return this.groupCommit((trx) => work(new GroupWrites(trx)));
    return this.db.transaction().execute((trx) => work(new GroupWrites(trx)));
  }

  /** Unmined rows, oldest first. */
  unmined(limit: number): Promise<OutboxRow[]> {
    return this.db.selectFrom('outbox_transactions').selectAll().where('status', '=', 'signed').orderBy('created_ms').limit(limit).execute();
  }

  /**
   * An account's unmined rows with nonces from `from` up to below `below`, lowest first: those the
   * oldest-first batch left out (a row signed again in its commit carries a later time than the
   * nonces after it).
   */
  unminedBetween(account: Pick<OutboxRow, 'chain' | 'from_address'>, from: number, below: number, limit: number): Promise<OutboxRow[]> {
    return this.db
      .selectFrom('outbox_transactions')
      .selectAll()
      .where('status', '=', 'signed')
      .where('chain', '=', account.chain)
      .where('from_address', '=', account.from_address)
      .where('nonce', '>=', from)
      .where('nonce', '<', below)
      .orderBy('nonce')
      .limit(limit)
      .execute();
  }

  /** A page of a chain's mined rows, newest first, after `before`. */
  minedPage(chain: string, before: { blockNumber: number; id: string } | undefined, limit: number): Promise<MinedRowRef[]> {
    let query = this.db
      .selectFrom('outbox_transactions')
      .select(['id', 'tx_hash', 'block_hash', 'block_number'])
      .where('chain', '=', chain)
      .where('status', '=', 'mined')
      .orderBy('block_number', 'desc')
      .orderBy('id', 'desc')
      .limit(limit);
    if (before) {
      const { blockNumber, id } = before;
      query = query.where((eb) =>
        eb.or([eb('block_number', '<', blockNumber), eb.and([eb('block_number', '=', blockNumber), eb('id', '<', id)])]),
      );
    }
    return query.execute();
  }

  /** The blocks of a chain's mined rows above a height (ChainRewindWatch), at most `limit`. */
  minedAbove(chain: string, blockNumber: number, limit: number): Promise<Array<Pick<OutboxRow, 'block_number' | 'block_hash'>>> {
    return this.db
      .selectFrom('outbox_transactions')
      .select(['block_number', 'block_hash'])
      .where('chain', '=', chain)
      .where('status', '=', 'mined')
      .where('block_number', '>', blockNumber)
      .limit(limit)
      .execute();
  }

  /** Mined rows whose receipts the node lost go back to signed, to be replayed. */
  async unmine(ids: string[]): Promise<void> {
    for (let start = 0; start < ids.length; start += RESET_BATCH) {
      await this.db
        .updateTable('outbox_transactions')
        .set({ ...SIGNED_COLUMNS, last_broadcast_ms: null, updated_ms: Date.now() })
        .where('id', 'in', ids.slice(start, start + RESET_BATCH))
        .execute();
    }
  }

  /** Rows whose receipt is stored but whose block is not confirmed yet, lowest block first. */
  unconfirmed(limit: number): Promise<OutboxRow[]> {
    return this.db
      .selectFrom('outbox_transactions')
      .selectAll()
      .where('status', '=', 'included')
      .orderBy('block_number')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /**
   * Confirms rows still recorded in the block `blockHash` (a process that saw the block replaced
   * meanwhile has moved them); answers the ids confirmed by this call.
   */
  async confirm(ids: string[], blockHash: string, now: number): Promise<string[]> {
    return this.db.transaction().execute(async (trx) => {
      await this.lockInOrder(trx, ids);
      const confirmed = await trx
        .updateTable('outbox_transactions')
        .set({ status: 'mined', updated_ms: now })
        .where('id', 'in', ids)
        .where('status', '=', 'included')
        .where('block_hash', '=', blockHash)
        .returning('id')
        .execute();
      return confirmed.map((row) => row.id);
    });
  }

  /**
   * Rows whose block a reorg replaced: each with its receipt in the new chain is recorded in its new
   * block, still `included`; each without one goes back to `signed`, to be sent again with its
   * stored bytes. Only rows still recorded in the replaced block change.
   */
  async replaceReceipts(replaced: Array<{ row: OutboxRow; receipt: Pick<OutboxRow, 'receipt_status' | 'block_number' | 'block_hash' | 'gas_used' | 'contract_address'> | undefined }>, now: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await this.lockInOrder(trx, replaced.map(({ row }) => row.id));
      for (const { row, receipt } of replaced) {
        await trx
          .updateTable('outbox_transactions')
          .set(receipt ? { ...receipt, updated_ms: now } : { ...SIGNED_COLUMNS, last_broadcast_ms: null, updated_ms: now })
          .where('id', '=', row.id)
          .where('status', '=', 'included')
          .where('block_hash', '=', row.block_hash)
          .execute();
      }
    });
  }

  /**
   * PostgreSQL: locks the rows in id order before a multi-row update, as recordReceipts does. One
   * row has no order to keep: its update takes its lock, a round trip fewer.
   */
  private async lockInOrder(trx: DbTransaction, ids: string[]): Promise<void> {
    if (this.dialect !== 'postgres' || ids.length <= 1) return;
    await trx.selectFrom('outbox_transactions').select('id').where('id', 'in', ids).orderBy('id').forUpdate().execute();
  }

  /** A failed broadcast, stored for the operator to see. */
  async recordBroadcastFailure(id: string, now: number, error: string): Promise<void> {
    await this.db
      .updateTable('outbox_transactions')
      .set((eb) => ({ last_broadcast_ms: now, updated_ms: now, broadcast_attempts: eb('broadcast_attempts', '+', 1), error }))
      .where('id', '=', id)
      .where('status', '=', 'signed')
      .execute();
  }

  /** Fails a row whose nonce another transaction used, and moves the account's next nonce past the chain's. */
  async failNonceUsed(row: OutboxRow, error: string, chainNonce: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('outbox_transactions')
        .set({ status: 'failed', error, updated_ms: Date.now() })
        .where('id', '=', row.id)
        .where('status', '=', 'signed')
        .execute();
      await trx
        .updateTable('account_nonces')
        .set({ next_nonce: chainNonce })
        .where('chain', '=', row.chain)
        .where('address', '=', row.from_address)
        .where('next_nonce', '<', chainNonce)
        .execute();
    });
  }

  /**
   * Stores mined rows' receipts in one DB transaction (one commit for a whole pass), a statement per
   * RECEIPT_BATCH; then `writes`. Answers the writes that were made: one that throws is left out,
   * the whole commit made again without it (rather than a savepoint around each, two round trips
   * more per write on PostgreSQL on the path every write takes).
   *
   * On SQLite the commit does not wait for the disk (Store.unsyncedTransaction). Lost in a power cut, it
   * leaves its rows as they were before it, stored with their signed bytes and hashes before they
   * were sent: the state after a crash between a broadcast and its receipt, from which the
   * tracker reads the receipts again and the waiters' writes are made again (each once, guarded
   * by its row's state). Everything that leaves the service on the strength of these rows (a
   * webhook's lease, a later submission) goes through a commit that waits, which syncs this one
   * with it.
   */
  async recordReceipts(recorded: OutboxRow[], now: number, writes: ReadonlyArray<(trx: DbTransaction) => Promise<void>>): Promise<Set<number>> {
    const left = new Set<number>();
    for (;;) {
      let failed: number | undefined;
      try {
        await this.unsyncedTransaction(async (trx) => {
          // The receipts' statements are all sent before the writes (on PostgreSQL they share a round
          // trip with them and the transaction's `begin`, in the same order of locks as before).
          const updating = this.updateReceipts(trx, recorded, now);
          updating.catch(() => undefined);
          for (const [index, write] of writes.entries()) {
            if (left.has(index)) continue;
            try {
              await write(trx);
            } catch (error) {
              // A write that failed because the receipts' update did is not the one to leave out.
              await updating;
              failed = index;
              throw error;
            }
          }
          await updating;
        });
        return new Set([...writes.keys()].filter((index) => !left.has(index)));
      } catch (error) {
        // Rolled back: again without the write that threw, or the error is the store's own.
        if (failed === undefined) throw error;
        left.add(failed);
      }
    }
  }

  /** Sends every statement before it returns (in order, none waiting for another), then waits for them. */
  private async updateReceipts(trx: DbTransaction, recorded: OutboxRow[], now: number): Promise<void> {
    const statements: Array<Promise<unknown>> = [];
    for (let start = 0; start < recorded.length; start += RECEIPT_BATCH) {
      const batch = recorded.slice(start, start + RECEIPT_BATCH);
      // Two processes can record the same receipts: PostgreSQL rows are locked in id order first,
      // or the two updates could take them in different orders and deadlock (one row has no order
      // to keep: its update takes its lock, a statement fewer). SQLite has one writer.
      if (this.dialect === 'postgres' && batch.length > 1) {
        statements.push(trx.selectFrom('outbox_transactions').select('id').where('id', 'in', batch.map((row) => row.id)).orderBy('id').forUpdate().execute());
      }
      // One statement for the whole batch; Kysely builds no UPDATE ... FROM (VALUES ...) itself.
      const receipts = sql.join(
        batch.map(
          (row) => sql`(${row.id}, ${row.status}, ${row.receipt_status}, ${row.block_number}, ${row.block_hash}, ${row.gas_used}, ${row.contract_address})`,
        ),
      );
      // A receipt read before another process confirmed the row never takes it back to `included`.
      statements.push(sql`
        with receipts (id, status, receipt_status, block_number, block_hash, gas_used, contract_address) as (values ${receipts})
        update outbox_transactions
        set status = receipts.status, receipt_status = receipts.receipt_status, block_number = cast(receipts.block_number as bigint),
          block_hash = receipts.block_hash, gas_used = receipts.gas_used, contract_address = receipts.contract_address,
          error = null, updated_ms = ${now}
        from receipts
        where outbox_transactions.id = receipts.id
          and not (outbox_transactions.status = 'mined' and receipts.status = 'included')`.execute(trx));
    }
    await Promise.all(statements);
  }
}

const takeNoncesQuery = preparedQuery({ chain: true, address: true, nextIfNew: true, count: true }, (db, values: { chain: string; address: string; nextIfNew: number; count: number }) =>
  db
    .insertInto('account_nonces')
    .values({ chain: values.chain, address: values.address, next_nonce: values.nextIfNew })
    .onConflict((conflict) => conflict.columns(['chain', 'address']).doUpdateSet((eb) => ({ next_nonce: eb('account_nonces.next_nonce', '+', values.count) })))
    .returning('next_nonce'),
);
const insertOneQuery = preparedQuery({ id: true, idempotency_key: true, chain: true, from_address: true, nonce: true, to_address: true, value_wei: true, data: true, gas_limit: true, raw_tx: true, tx_hash: true, status: true, receipt_status: true, block_number: true, block_hash: true, gas_used: true, contract_address: true, error: true, broadcast_attempts: true, last_broadcast_ms: true, created_ms: true, updated_ms: true }, (db, row: OutboxRow) =>
  db.insertInto('outbox_transactions').values(row),
);

/** The statements of a group commit, inside its DB transaction. */
export class GroupWrites {
  constructor(private readonly trx: DbTransaction) {}

  /**
   * Takes `count` nonces of the account in one upsert, which also locks its nonce row (SQLite's
   * write lock, PostgreSQL's row lock); a missing row starts at `startingNonce`. Answers the next
   * nonce after them.
   */
  async takeNonces(chain: string, address: string, startingNonce: number, count: number): Promise<number> {
    const { rows } = await takeNoncesQuery(this.trx, { chain, address, nextIfNew: startingNonce + count, count });
    return rows[0]!.next_nonce;
  }

  /** Sends every insert before it returns (in order, none waiting for another), then waits for them. */
  async insert(rows: OutboxRow[]): Promise<void> {
    // One transaction, the common case, through its prepared statement.
    if (rows.length === 1) {
      await insertOneQuery(this.trx, rows[0]!);
      return;
    }
    const inserts = [];
    for (let start = 0; start < rows.length; start += INSERT_BATCH) {
      inserts.push(this.trx.insertInto('outbox_transactions').values(rows.slice(start, start + INSERT_BATCH)).execute());
    }
    await Promise.all(inserts);
  }

  /** A submission's own writes (OutboxSubmission.alongside), in this transaction. */
  alongside(work: (trx: DbTransaction, row: OutboxRow) => Promise<void>, row: OutboxRow): Promise<void> {
    return work(this.trx, row);
  }

  /** A submission's own statements (OutboxSubmission.alongsideStatements), in this transaction. */
  alongsideStatements(work: (trx: DbTransaction, row: OutboxRow) => Array<Promise<unknown>>, row: OutboxRow): Array<Promise<unknown>> {
    return work(this.trx, row);
  }

  /** Every statement of the commit has been made, and nothing is decided from their answers: see commitBehindSent. */
  commitBehindSent(): void {
    commitBehindSent(this.trx);
  }

  /** A submission's writes that come before it is signed (OutboxSubmission.beforeSigning), in this transaction. */
  beforeSigning(work: (trx: DbTransaction) => Promise<void>): Promise<void> {
    return work(this.trx);
  }
}
