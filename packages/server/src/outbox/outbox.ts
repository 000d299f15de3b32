import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { BaseError, ContractFunctionRevertedError, ExecutionRevertedError, keccak256, type Address, type Hex, type LocalAccount } from 'viem';
import { sql } from 'kysely';
import { clearAccountPool, isNextNonceQueued, mineStalledPool, type ChainContext, type ChainRegistry } from '../chain/chains.ts';
import type { Db, DbTransaction } from '../store/database.ts';
import type { StoreDialect } from '../store/migrations/index.ts';
import type { OutboxRow } from '../store/schema.ts';
import { PollingLoop } from '../lib/polling-loop.ts';
import { classifyBroadcastError, type BroadcastOutcome } from './broadcast-errors.ts';

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
  /** PostgreSQL rows are locked in id order before a multi-row update (two processes never deadlock). */
  dialect: StoreDialect;
  chains: ChainRegistry;
  pollIntervalMs: number;
  rebroadcastAfterMs: number;
  log?: { info(message: string): void; warn(message: string): void };
}

const PENDING_BATCH = 500;
const VERIFY_BATCH = 1000;
const FEE_CACHE_MS = 1_000;
const MAX_COMMIT_GROUP = 100;
const BALANCE_CACHE_MS = 1_000;
/** How long a nonce conflict must last before the transaction is failed (see reconcileNonceTooLow). */
const NONCE_CONFLICT_CONFIRM_MS = 2_000;
/** How long a sent transaction may sit unmined on an automining embedded node before a block is mined by hand. */
const STALLED_MS = 300;
/** How long an account's lowest unmined transaction may stay the lowest, resent, before the embedded node's pool is emptied of that account (see clearAccountPool). */
const STUCK_MS = 1_500;
/**
 * How soon a pass follows one that left unmined a transaction a caller waits on, stored less than
 * STALLED_MS ago, on an automining embedded node: such a node mines it within milliseconds, so the
 * caller need not wait for the next interval. (Older ones are the unsticking's business.)
 */
const FOLLOW_UP_MS = 10;
/** Rows per multi-row insert (kept under SQLite's bound-parameter limit). */
const INSERT_BATCH = 25;
/** Receipts per update statement (6 parameters each, kept under the same limit). */
const RECEIPT_BATCH = 150;
/** Ids per coalesced read. */
const READ_BATCH = 500;

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
  private readonly loop: PollingLoop;
  /** When this process first saw each transaction's nonce used on chain without its receipt. */
  private readonly nonceConflicts = new Map<string, number>();
  /** When this process last sent each unmined transaction. */
  private readonly broadcastAt = new Map<string, number>();
  /** Per chain:account with stalled transactions on an automining embedded node: its lowest unmined transaction, and since when it has been the lowest. */
  private readonly stalledLowest = new Map<string, { id: string; since: number }>();
  private readonly commitQueue: QueuedSubmission[] = [];
  /** First broadcasts under way (submit does not wait for them). */
  private readonly broadcasting = new Set<Promise<void>>();
  /** Per chain:account, the pending balance last read less what was submitted since. */
  private readonly spendable = new Map<string, { balance: bigint; at: number }>();
  /** chain:account pairs whose nonce row exists (rows are never deleted). */
  private readonly knownNonceRows = new Set<string>();
  private groupScheduled = false;
  private followUpScheduled = false;
  /** A group is signing ahead (only one at a time, so groups stay large while the store is busy). */
  private groupSigning = false;
  /** Resolves when the group being stored, if any, is done. */
  private storing: Promise<void> = Promise.resolve();
  /** Groups formed and not yet stored, oldest first. */
  private readonly formedGroups: FormedGroup[] = [];
  /** Per chain:account, the nonce this process expects its next stored transaction to get (a guess, checked when storing). */
  private readonly expectedNonces = new Map<string, number>();
  /** Reads by id asked for in this turn of the event loop, made as one query at its end. */
  private readonly pendingReads = new Map<string, Array<{ resolve(row: OutboxRow | undefined): void; reject(error: unknown): void }>>();

  constructor(options: OutboxOptions) {
    this.db = options.db;
    this.chains = options.chains;
    this.options = options;
    this.settled.setMaxListeners(0);
    this.loop = new PollingLoop(() => this.trackPending(), options.pollIntervalMs, (error) =>
      this.options.log?.warn(`outbox: ${error.message}`),
    );
  }

  /** Starts tracking: replays what a previous run left unmined and checks recent receipts still hold. */
  async start(): Promise<void> {
    if (this.loop.isRunning) return;
    for (const chain of this.chains.all()) {
      chain.node?.on('restarted', () => {
        this.verifyMined(chain).catch((error: Error) => this.options.log?.warn(`outbox: verify ${chain.name}: ${error.message}`));
      });
      await this.verifyMined(chain);
    }
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.all(this.broadcasting);
  }

  /**
   * Persists and broadcasts one transaction. Resolves once it is stored: from then on it is the
   * outbox's to deliver, so the first broadcast goes on without holding the caller (the next group
   * is signed and stored meanwhile); the receipt comes later (`waitForFinal`). Gas estimation
   * errors (reverts) and a balance that cannot pay are thrown before anything is stored.
   */
  async submit(submission: OutboxSubmission): Promise<OutboxTransaction> {
    const chain = this.chains.get(submission.chain);
    const from = submission.signer.address.toLowerCase() as Address;
    const value = submission.value ?? 0n;
    const data = submission.data ?? '0x';
    // An estimate runs the call on the node, and a repeated operation may revert now that it has
    // run: look the key up first. With the gas given, the group commit finds a known key anyway.
    // The lookup runs beside the node calls; a known key wins over whatever they answered.
    const [existing, priced] = await Promise.all([
      submission.gas === undefined ? this.findByIdempotencyKey(submission.idempotencyKey) : undefined,
      Promise.all([submission.gas ?? this.estimateGas(chain, from, submission.to, data, value), this.fees(chain)]).then(
        (result) => ({ ok: true as const, result }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
    ]);
    if (existing) return existing;
    if (!priced.ok) throw priced.error;
    const [gas, fees] = priced.result;
    // A transaction that can never pay would hold back every later nonce of the account: refuse it
    // now, unless it is a repeat of one already stored.
    try {
      await this.reserveFunds(chain, from, value + gas * fees.maxFeePerGas);
    } catch (error) {
      const stored = await this.findByIdempotencyKey(submission.idempotencyKey);
      if (stored) return stored;
      throw error;
    }
    const chainNonce = this.knownNonceRows.has(accountKey({ chain, from })) ? 0 : await this.startingNonce(chain, from);

    const prepared: PreparedSubmission = { submission, chain, from, value, data, gas, fees, chainNonce };
    const stored = await this.commitInGroup(prepared);
    if (stored.duplicate) return toTransaction(stored.row);
    const row = stored.row;
    this.broadcastInBackground(row);
    return toTransaction(row);
  }

  private broadcastInBackground(row: OutboxRow): void {
    const sending = this.broadcast(row)
      .catch((error: Error) => this.options.log?.warn(`outbox: broadcast of ${row.tx_hash}: ${error.message}`))
      .finally(() => this.broadcasting.delete(sending));
    this.broadcasting.add(sending);
  }

  /** The nonce an account's first stored transaction gets: the node's pending count, unless a row exists. */
  private async startingNonce(chain: ChainContext, from: Address): Promise<number> {
    const known = await this.db
      .selectFrom('account_nonces')
      .select('next_nonce')
      .where('chain', '=', chain.name)
      .where('address', '=', from)
      .executeTakeFirst();
    if (known) {
      this.knownNonceRows.add(accountKey({ chain, from }));
      return 0;
    }
    return chain.client.getTransactionCount({ address: from, blockTag: 'pending' });
  }


  /**
   * Group commit: submissions that arrive together are stored in one DB transaction, so the
   * durable commit (an fsync on SQLite) is paid once per group, not once per transaction.
   */
  private commitInGroup(prepared: PreparedSubmission): Promise<StoredSubmission> {
    return new Promise((resolve, reject) => {
      this.commitQueue.push({ prepared, resolve, reject });
      this.scheduleGroup();
    });
  }

  private scheduleGroup(): void {
    if (this.groupScheduled || this.groupSigning || this.commitQueue.length === 0) return;
    this.groupScheduled = true;
    setImmediate(() => void this.runGroup());
  }

  /**
   * A group goes through two stages: signing ahead, then storing. One group may sign while the one
   * before it is stored, so the store is never idle waiting for signatures, and signatures never
   * hold the store's write lock.
   */
  private async runGroup(): Promise<void> {
    this.groupScheduled = false;
    if (this.groupSigning || this.commitQueue.length === 0) return;
    this.groupSigning = true;
    const group = this.formGroup(this.commitQueue.splice(0, MAX_COMMIT_GROUP));
    const previous = this.storing;
    let stored!: () => void;
    this.storing = new Promise((resolve) => (stored = resolve));
    try {
      await Promise.all([previous, ...group.signedAhead.values()]);
    } finally {
      this.groupSigning = false;
      this.scheduleGroup();
    }
    try {
      await this.commitGroup(group.items, group.signedAhead);
    } finally {
      this.formedGroups.splice(this.formedGroups.indexOf(group), 1);
      stored();
    }
  }

  /**
   * Signs the group's transactions ahead with the nonces this process expects them to get. The
   * store hands out the nonces; a signature whose nonce turns out different (another process took
   * some, or a key was a repeat) is made again there. A guess can cost time, never correctness.
   */
  private formGroup(items: QueuedSubmission[]): FormedGroup {
    const group: FormedGroup = { items, counts: new Map(), signedAhead: new Map() };
    const keys = new Set<string>();
    const now = Date.now();
    // Signed in the next turn of the event loop: the group before this one finishes its store
    // first and its callers get their answers sooner.
    const signingTurn = new Promise<void>((resolve) => setImmediate(resolve));
    for (const { prepared } of items) {
      if (keys.has(prepared.submission.idempotencyKey)) continue;
      keys.add(prepared.submission.idempotencyKey);
      const account = accountKey(prepared);
      group.counts.set(account, (group.counts.get(account) ?? 0) + 1);
      const expected = this.expectedNonces.get(account);
      if (expected === undefined) continue;
      this.expectedNonces.set(account, expected + 1);
      const signing = signingTurn.then(() => signedRow(prepared, expected, now));
      group.signedAhead.set(prepared, signing.catch(() => undefined));
    }
    this.formedGroups.push(group);
    return group;
  }

  /** After a store: the next nonce of each account is its allocated end plus what groups formed since will take. */
  private expectNoncesAfter(allocatedEnds: Map<string, number>, group: QueuedSubmission[]): void {
    const position = this.formedGroups.findIndex((formed) => formed.items === group);
    const later = position < 0 ? [] : this.formedGroups.slice(position + 1);
    for (const [account, end] of allocatedEnds) {
      this.expectedNonces.set(account, later.reduce((next, formed) => next + (formed.counts.get(account) ?? 0), end));
    }
  }

  private async commitGroup(group: QueuedSubmission[], signedAhead: Map<PreparedSubmission, Promise<OutboxRow | undefined>>): Promise<void> {
    try {
      const { results, allocatedEnds } = await this.db
        .transaction()
        .execute((trx) => this.storeGroup(trx, group.map((item) => item.prepared), signedAhead));
      this.expectNoncesAfter(allocatedEnds, group);
      for (const item of group) this.knownNonceRows.add(accountKey(item.prepared));
      group.forEach((item, index) => item.resolve(results[index]!));
    } catch (error) {
      for (const item of group) this.expectedNonces.delete(accountKey(item.prepared));
      if (group.length === 1) {
        const only = group[0]!;
        // Another process stored the same key between our check and our insert.
        const raced = await this.db
          .selectFrom('outbox_transactions')
          .selectAll()
          .where('idempotency_key', '=', only.prepared.submission.idempotencyKey)
          .executeTakeFirst()
          .catch(() => undefined);
        if (raced) only.resolve({ row: raced, duplicate: true });
        else only.reject(error);
        return;
      }
      // Something in the group failed: store each on its own so only that one fails.
      for (const item of group) await this.commitGroup([item], new Map());
    }
  }

  /**
   * Stores a group in one DB transaction with a handful of statements whatever its size: nonce
   * rows are locked first (a write, so SQLite takes its write lock and PostgreSQL its row locks, in
   * one order for every process so two groups never deadlock), keys are checked in one query,
   * each account's nonces are allocated in one update, and the rows go in with one insert.
   */
  private async storeGroup(
    trx: DbTransaction,
    group: PreparedSubmission[],
    signedAhead: Map<PreparedSubmission, Promise<OutboxRow | undefined>>,
  ): Promise<{ results: StoredSubmission[]; allocatedEnds: Map<string, number> }> {
    const accounts = new Map<string, { chain: ChainContext; from: Address; chainNonce: number; count: number; next: number }>();
    for (const prepared of group) {
      const key = accountKey(prepared);
      const account = accounts.get(key) ?? { chain: prepared.chain, from: prepared.from, chainNonce: 0, count: 0, next: 0 };
      account.chainNonce = Math.max(account.chainNonce, prepared.chainNonce);
      accounts.set(key, account);
    }
    const ordered = [...accounts.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, account]) => account);
    for (const account of ordered) {
      await trx
        .insertInto('account_nonces')
        .values({ chain: account.chain.name, address: account.from, next_nonce: account.chainNonce })
        .onConflict((conflict) => conflict.columns(['chain', 'address']).doNothing())
        .execute();
    }
    const keys = [...new Set(group.map((prepared) => prepared.submission.idempotencyKey))];
    const before = await trx.selectFrom('outbox_transactions').selectAll().where('idempotency_key', 'in', keys).execute();
    const rowsByKey = new Map(before.map((row) => [row.idempotency_key, row]));
    // The first submission of each new key is stored; any other answers that row as a duplicate.
    const fresh = new Set<PreparedSubmission>();
    const freshKeys = new Set<string>();
    for (const prepared of group) {
      const key = prepared.submission.idempotencyKey;
      if (rowsByKey.has(key) || freshKeys.has(key)) continue;
      fresh.add(prepared);
      freshKeys.add(key);
      accounts.get(accountKey(prepared))!.count += 1;
    }
    const allocatedEnds = new Map<string, number>();
    // In the same order as the locks above: two groups never wait on each other's rows.
    for (const account of ordered) {
      if (account.count === 0) continue;
      const allocated = await trx
        .updateTable('account_nonces')
        .set((eb) => ({ next_nonce: eb('next_nonce', '+', account.count) }))
        .where('chain', '=', account.chain.name)
        .where('address', '=', account.from)
        .returning('next_nonce')
        .executeTakeFirstOrThrow();
      account.next = allocated.next_nonce - account.count;
      allocatedEnds.set(accountKey(account), allocated.next_nonce);
    }
    const now = Date.now();
    // A signature made ahead is used only when its nonce is the one allocated here.
    const created = await Promise.all(
      [...fresh].map(async (prepared) => {
        const nonce = accounts.get(accountKey(prepared))!.next++;
        const ahead = await signedAhead.get(prepared);
        return ahead?.nonce === nonce ? ahead : signedRow(prepared, nonce, now);
      }),
    );
    for (const row of created) rowsByKey.set(row.idempotency_key, row);
    for (let start = 0; start < created.length; start += INSERT_BATCH) {
      await trx.insertInto('outbox_transactions').values(created.slice(start, start + INSERT_BATCH)).execute();
    }
    return {
      results: group.map((prepared) => ({ row: rowsByKey.get(prepared.submission.idempotencyKey)!, duplicate: !fresh.has(prepared) })),
      allocatedEnds,
    };
  }

  async findByIdempotencyKey(key: string): Promise<OutboxTransaction | undefined> {
    const row = await this.db.selectFrom('outbox_transactions').selectAll().where('idempotency_key', '=', key).executeTakeFirst();
    return row && toTransaction(row);
  }

  async findById(id: string): Promise<OutboxTransaction | undefined> {
    const row = await this.readById(id);
    return row && toTransaction(row);
  }

  /**
   * Reads asked for together (every waiter of a burst of transactions, each request polling its
   * own) are made as one query rather than one each.
   */
  private readById(id: string): Promise<OutboxRow | undefined> {
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
      // Listen before reading, so a settlement between the read and the wait is not missed.
      let settle: (transaction: OutboxTransaction | undefined) => void = () => {};
      const settled = new Promise<OutboxTransaction | undefined>((resolve) => (settle = resolve));
      this.settled.once(id, settle);
      try {
        const transaction = await this.findById(id);
        if (!transaction) throw new Error(`outbox: no transaction ${id}`);
        if (isFinal(transaction)) return transaction;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`outbox: transaction ${transaction.txHash} not mined within ${timeoutMs} ms`);
        this.kick();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const final = await Promise.race([
          settled,
          new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), Math.min(left, this.options.pollIntervalMs * 2)))),
        ]);
        clearTimeout(timer);
        // Settled in this process: the event carries the stored outcome, no need to read it back.
        if (final && isFinal(final)) return final;
      } finally {
        this.settled.off(id, settle);
      }
    }
  }

  /**
   * Checks that the node still has the receipts of mined transactions, newest first, page by page
   * until a page holds no loss (a node loses a suffix of its blocks). Lost ones go back to be
   * replayed with their stored bytes.
   */
  async verifyMined(chain: ChainContext): Promise<number> {
    let lostTotal = 0;
    let before: { blockNumber: number; id: string } | undefined;
    for (;;) {
      let query = this.db
        .selectFrom('outbox_transactions')
        .select(['id', 'tx_hash', 'block_hash', 'block_number'])
        .where('chain', '=', chain.name)
        .where('status', '=', 'mined')
        .orderBy('block_number', 'desc')
        .orderBy('id', 'desc')
        .limit(VERIFY_BATCH);
      if (before) {
        const { blockNumber, id } = before;
        query = query.where((eb) =>
          eb.or([eb('block_number', '<', blockNumber), eb.and([eb('block_number', '=', blockNumber), eb('id', '<', id)])]),
        );
      }
      const rows = await query.execute();
      if (rows.length === 0) break;
      const receipts = await Promise.all(rows.map((row) => this.receiptOf(chain, row.tx_hash as Hex)));
      const lost = rows.filter((row, index) => receipts[index]?.blockHash !== row.block_hash).map((row) => row.id);
      for (let start = 0; start < lost.length; start += 200) {
        await this.db
          .updateTable('outbox_transactions')
          .set({
            status: 'signed',
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
      lostTotal += lost.length;
      if (lost.length === 0 || rows.length < VERIFY_BATCH) break;
      const last = rows[rows.length - 1]!;
      before = { blockNumber: Number(last.block_number), id: last.id };
    }
    if (lostTotal > 0) {
      this.options.log?.warn(`outbox: chain ${chain.name} lost ${lostTotal} mined transactions; replaying them`);
      this.kick();
    }
    return lostTotal;
  }

  /** Runs one pass now instead of at the next interval. */
  kick(): void {
    this.loop.kick();
  }

  /**
   * One pass: record receipts of unmined transactions, broadcast again those that need it, and
   * unstick an embedded node whose automine left ours in its pool.
   */
  private async trackPending(): Promise<void> {
    const rows = await this.db
      .selectFrom('outbox_transactions')
      .selectAll()
      .where('status', '=', 'signed')
      .orderBy('created_ms')
      .limit(PENDING_BATCH)
      .execute();
    if (rows.length === 0) return;
    const tracked = rows.filter((row) => this.chains.has(row.chain));
    const receipts = await this.receiptsOf(tracked);
    const mined = tracked.flatMap((row, index) => (receipts[index] ? [{ row, receipt: receipts[index] }] : []));
    if (mined.length > 0) await this.recordReceipts(mined);
    const now = Date.now();
    const unmined = tracked.filter((_, index) => !receipts[index]);
    const due = unmined.filter((row) => {
      const last = Math.max(row.last_broadcast_ms ?? 0, this.broadcastAt.get(row.id) ?? 0);
      return last === 0
        ? now - row.created_ms > this.options.rebroadcastAfterMs / 5
        : now - last > this.options.rebroadcastAfterMs;
    });
    // Each account's in nonce order: a node that sees a later nonce first may hold it back.
    due.sort((a, b) => a.from_address.localeCompare(b.from_address) || a.nonce - b.nonce);
    await Promise.all(due.map((row) => this.broadcast(row)));
    const sentNow = new Set(due);
    await this.unstickEmbeddedNodes(unmined, sentNow, now);
    if (unmined.some((row) => this.awaitedSoon(row, now))) this.followUp();
  }

  /** Whether a caller waits on this unmined row, stored moments ago, which an automining node should mine any moment. */
  private awaitedSoon(row: OutboxRow, now: number): boolean {
    return now - row.created_ms < STALLED_MS && this.chains.get(row.chain).automine && this.settled.listenerCount(row.id) > 0;
  }

  private followUp(): void {
    if (this.followUpScheduled) return;
    this.followUpScheduled = true;
    setTimeout(() => {
      this.followUpScheduled = false;
      this.kick();
    }, FOLLOW_UP_MS).unref();
  }

  /**
   * An automining embedded node should mine what it is sent at once. When a transaction sent
   * STALLED_MS ago is still unmined, each such account's lowest nonce goes again (anvil can drop
   * one under load, holding back every later nonce), and a block is mined if the pool holds ready
   * transactions (anvil's automine can stop with them waiting: see mineStalledPool). An account
   * whose stalled lowest transaction the node keeps queued though it is the next nonce, or whose
   * lowest transaction is still the same STUCK_MS later, has its transactions taken out of the
   * node's pool and sent again in nonce order (see clearAccountPool).
   */
  private async unstickEmbeddedNodes(unmined: OutboxRow[], sentNow: Set<OutboxRow>, now: number): Promise<void> {
    const stalled = unmined.filter(
      (row) => !sentNow.has(row) && this.chains.get(row.chain).automine && now - (this.broadcastAt.get(row.id) ?? now) > STALLED_MS,
    );
    const lowestOf = (rows: OutboxRow[]) => {
      const lowest = new Map<string, OutboxRow>();
      for (const row of rows) {
        const key = rowAccountKey(row);
        if ((lowest.get(key)?.nonce ?? Infinity) > row.nonce) lowest.set(key, row);
      }
      return lowest;
    };
    const lowest = lowestOf(stalled);
    // Whether an account is stuck is judged on its lowest unmined row, resent this pass or not; an
    // account leaves the watch once all of its rows are mined.
    const watched = new Set([...lowest.keys(), ...this.stalledLowest.keys()]);
    const lowestUnmined = lowestOf(unmined.filter((row) => watched.has(rowAccountKey(row))));
    for (const key of this.stalledLowest.keys()) if (!lowestUnmined.has(key)) this.stalledLowest.delete(key);
    const stuck: OutboxRow[] = [];
    for (const [key, row] of lowestUnmined) {
      const seen = this.stalledLowest.get(key);
      if (seen?.id !== row.id) this.stalledLowest.set(key, { id: row.id, since: now });
      // A queued next nonce shows in the node's pool as soon as the account stalls; STUCK_MS is
      // for whatever else keeps it back.
      const queuedNext = lowest.has(key) && (await isNextNonceQueued(this.chains.get(row.chain), row.from_address as Address, row.nonce).catch(() => false));
      if (queuedNext || (seen?.id === row.id && now - seen.since > STUCK_MS)) stuck.push(row);
    }
    const stuckAccounts = new Set(stuck.map(rowAccountKey));
    await Promise.all([...lowest].filter(([key]) => !stuckAccounts.has(key)).map(([, row]) => this.broadcast(row)));
    for (const name of new Set(stalled.map((row) => row.chain))) {
      if (await mineStalledPool(this.chains.get(name))) this.options.log?.info(`outbox: mined a block for transactions the ${name} node held back`);
    }
    for (const row of stuck) {
      const key = rowAccountKey(row);
      const chain = this.chains.get(row.chain);
      this.options.log?.info(`outbox: the ${chain.name} node keeps nonce ${row.nonce} of ${row.from_address} back; sending its transactions again into an empty pool`);
      await clearAccountPool(chain, row.from_address as Address);
      // One at a time: the node must see them in nonce order.
      const rows = unmined.filter((other) => rowAccountKey(other) === key).sort((a, b) => a.nonce - b.nonce);
      for (const other of rows) await this.broadcast(other);
      this.stalledLowest.delete(key);
    }
  }

  /**
   * Receipts of unmined rows (undefined where there is none yet). Each account's mined nonce count
   * is read first: only a row below it can have a receipt, so the node is asked for receipts that
   * exist rather than for every pending one on every pass.
   */
  private async receiptsOf(rows: OutboxRow[]): Promise<Array<MinedReceipt | undefined>> {
    const accounts = new Map(rows.map((row) => [rowAccountKey(row), { chain: this.chains.get(row.chain), from: row.from_address as Address }]));
    const minedCounts = new Map(
      await Promise.all(
        [...accounts].map(async ([key, { chain, from }]) => {
          const count = await chain.client.getTransactionCount({ address: from, blockTag: 'latest' }).catch(() => undefined);
          return [key, count] as const;
        }),
      ),
    );
    return Promise.all(
      rows.map((row) => {
        const count = minedCounts.get(rowAccountKey(row));
        if (count !== undefined && row.nonce >= count) return undefined;
        return this.receiptOf(this.chains.get(row.chain), row.tx_hash as Hex).catch(() => undefined);
      }),
    );
  }

  /**
   * Sends the stored bytes. Success is only remembered in memory (the receipt is what gets stored),
   * so the common path costs no extra commit; failures are stored for the operator to see.
   */
  private async broadcast(row: OutboxRow): Promise<void> {
    const chain = this.chains.get(row.chain);
    let outcome: BroadcastOutcome;
    try {
      await chain.client.sendRawTransaction({ serializedTransaction: row.raw_tx as Hex });
      outcome = { status: 'sent' };
    } catch (error) {
      outcome = classifyBroadcastError(error);
    }
    const now = Date.now();
    this.broadcastAt.set(row.id, now);
    if (outcome.status === 'retry') {
      await this.db
        .updateTable('outbox_transactions')
        .set((eb) => ({ last_broadcast_ms: now, updated_ms: now, broadcast_attempts: eb('broadcast_attempts', '+', 1), error: outcome.error }))
        .where('id', '=', row.id)
        .where('status', '=', 'signed')
        .execute();
    } else if (outcome.status === 'reconcile') {
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
    // A node can count a nonce as used a moment before the receipt of the transaction that used it
    // can be read (seen under load, and while a restarted node catches up): only a conflict that
    // is still there at a later broadcast, NONCE_CONFLICT_CONFIRM_MS on, fails the transaction.
    const firstSeen = this.nonceConflicts.get(row.id);
    if (firstSeen === undefined || Date.now() - firstSeen < NONCE_CONFLICT_CONFIRM_MS) {
      if (firstSeen === undefined) this.nonceConflicts.set(row.id, Date.now());
      return;
    }
    this.nonceConflicts.delete(row.id);
    this.options.log?.warn(`outbox: ${row.tx_hash} nonce ${row.nonce} was used by another transaction`);
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('outbox_transactions')
        .set({ status: 'failed', error: `nonce ${row.nonce} used by another transaction: ${error}`, updated_ms: Date.now() })
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
    this.settled.emit(row.id);
  }

  private async recordReceipt(row: OutboxRow, receipt: MinedReceipt): Promise<void> {
    await this.recordReceipts([{ row, receipt }]);
  }

  /** Stores receipts in one DB transaction (one commit for a whole pass), a statement per RECEIPT_BATCH. */
  private async recordReceipts(mined: Array<{ row: OutboxRow; receipt: MinedReceipt }>): Promise<void> {
    const now = Date.now();
    const recorded = mined.map(({ row, receipt }) => ({
      ...row,
      status: 'mined',
      receipt_status: receipt.status,
      block_number: Number(receipt.blockNumber),
      block_hash: receipt.blockHash,
      gas_used: receipt.gasUsed.toString(),
      contract_address: receipt.contractAddress?.toLowerCase() ?? null,
      error: null,
      updated_ms: now,
    }) satisfies OutboxRow);
    await this.db.transaction().execute(async (trx) => {
      for (let start = 0; start < recorded.length; start += RECEIPT_BATCH) {
        const batch = recorded.slice(start, start + RECEIPT_BATCH);
        // Two processes can record the same receipts: PostgreSQL rows are locked in id order first,
        // or the two updates could take them in different orders and deadlock. (SQLite has one writer.)
        if (this.options.dialect === 'postgres') {
          await trx.selectFrom('outbox_transactions').select('id').where('id', 'in', batch.map((row) => row.id)).orderBy('id').forUpdate().execute();
        }
        // One statement for the whole batch; Kysely builds no UPDATE ... FROM (VALUES ...) itself.
        const receipts = sql.join(
          batch.map((row) => sql`(${row.id}, ${row.receipt_status}, ${row.block_number}, ${row.block_hash}, ${row.gas_used}, ${row.contract_address})`),
        );
        await sql`
          with receipts (id, receipt_status, block_number, block_hash, gas_used, contract_address) as (values ${receipts})
          update outbox_transactions
          set status = 'mined', receipt_status = receipts.receipt_status, block_number = cast(receipts.block_number as bigint),
            block_hash = receipts.block_hash, gas_used = receipts.gas_used, contract_address = receipts.contract_address,
            error = null, updated_ms = ${now}
          from receipts
          where outbox_transactions.id = receipts.id`.execute(trx);
      }
    });
    for (const row of recorded) {
      this.broadcastAt.delete(row.id);
      this.nonceConflicts.delete(row.id);
      this.settled.emit(row.id, toTransaction(row));
    }
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
      // Only a revert is the transaction's fault; a node that does not answer is not.
      if (error instanceof BaseError && error.walk((inner) => inner instanceof ExecutionRevertedError)) {
        throw new OutboxRefusal('reverted', revertReason(error) ?? text, error);
      }
      throw error;
    }
    // Headroom: state may change between estimation and mining.
    return (estimate * 125n) / 100n;
  }

  /**
   * Checks the account can pay `cost` (value + gas limit x max fee, an upper bound). The node's
   * pending balance is read at most once per BALANCE_CACHE_MS per account; in between, what this
   * process submitted is subtracted from it, which can only err on the side of reading again.
   */
  private async reserveFunds(chain: ChainContext, from: Address, cost: bigint): Promise<void> {
    const key = accountKey({ chain, from });
    const cached = this.spendable.get(key);
    if (cached && Date.now() - cached.at < BALANCE_CACHE_MS && cached.balance >= cost) {
      cached.balance -= cost;
      return;
    }
    const balance = await chain.client.getBalance({ address: from, blockTag: 'pending' });
    if (balance < cost) {
      this.spendable.delete(key);
      throw new OutboxRefusal('insufficient_funds', `balance ${balance} wei is below the ${cost} wei this transaction may cost`);
    }
    this.spendable.set(key, { balance: balance - cost, at: Date.now() });
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

/** Signs one submission with its nonce: the row the outbox stores. */
async function signedRow(prepared: PreparedSubmission, nonce: number, now: number): Promise<OutboxRow> {
  const { submission, chain, from, value, data, gas, fees } = prepared;
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
  return {
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
}

interface PreparedSubmission {
  submission: OutboxSubmission;
  chain: ChainContext;
  from: Address;
  value: bigint;
  data: Hex;
  gas: bigint;
  fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
  chainNonce: number;
}

interface StoredSubmission {
  row: OutboxRow;
  /** The key was stored before: nothing new was signed. */
  duplicate: boolean;
}

interface FormedGroup {
  items: QueuedSubmission[];
  /** New keys per chain:account. */
  counts: Map<string, number>;
  /** Rows signed ahead with the expected nonce; undefined where signing failed. */
  signedAhead: Map<PreparedSubmission, Promise<OutboxRow | undefined>>;
}

function accountKey(prepared: Pick<PreparedSubmission, 'chain' | 'from'>): string {
  return `${prepared.chain.name}:${prepared.from}`;
}

/** The same key for a stored row. */
function rowAccountKey(row: Pick<OutboxRow, 'chain' | 'from_address'>): string {
  return `${row.chain}:${row.from_address}`;
}

interface QueuedSubmission {
  prepared: PreparedSubmission;
  resolve(stored: StoredSubmission): void;
  reject(error: unknown): void;
}

function isFinal(transaction: OutboxTransaction): boolean {
  return transaction.status === 'mined' || transaction.status === 'failed';
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
