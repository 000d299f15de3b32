import { randomUUID } from 'node:crypto';
import { keccak256, type Address, type Hex } from 'viem';
import type { ChainContext, ChainRegistry } from '../chain/chains.ts';
import type { OutboxRow } from '../store/schema.ts';
import { estimateGas, type BalanceReservations, type FeeCache, type Fees } from './fees.ts';
import { SIGNED_COLUMNS, toTransaction, type OutboxTransaction } from './lifecycle.ts';
import type { NonceExpectations } from './nonces.ts';
import type { GroupWrites, OutboxStore } from './store.ts';
import { accountKey, type OutboxSubmission } from './submission.ts';

const MAX_COMMIT_GROUP = 100;

interface PreparedSubmission {
  submission: OutboxSubmission;
  chain: ChainContext;
  from: Address;
  value: bigint;
  data: Hex;
  gas: bigint;
  fees: Fees;
  chainNonce: number;
}

interface StoredSubmission {
  row: OutboxRow;
  /** The key was stored before: nothing new was signed. */
  duplicate: boolean;
}

interface QueuedSubmission {
  prepared: PreparedSubmission;
  resolve(stored: StoredSubmission): void;
  reject(error: unknown): void;
}

interface FormedGroup {
  items: QueuedSubmission[];
  /** New keys per chain:account. */
  counts: Map<string, number>;
  /** Rows signed ahead with the expected nonce; undefined where signing failed. */
  signedAhead: Map<PreparedSubmission, Promise<OutboxRow | undefined>>;
}

export interface SubmitterOptions {
  chains: Pick<ChainRegistry, 'get'>;
  store: Pick<OutboxStore, 'findByKey' | 'findByKeys' | 'inTransaction'>;
  fees: Pick<FeeCache, 'fees'>;
  balances: Pick<BalanceReservations, 'reserve'>;
  nonces: NonceExpectations;
  /** Called with each newly stored row; submit does not wait for its first broadcast. */
  onStored(row: OutboxRow): void;
}

/** Prices, signs and stores submissions, in groups (see commitInGroup). */
export class Submitter {
  private readonly commitQueue: QueuedSubmission[] = [];
  private groupScheduled = false;
  /** A group is signing ahead (only one at a time, so groups stay large while the store is busy). */
  private groupSigning = false;
  /** Resolves when the group being stored, if any, is done. */
  private storing: Promise<void> = Promise.resolve();
  /** Groups formed and not yet stored, oldest first. */
  private readonly formedGroups: FormedGroup[] = [];

  constructor(private readonly options: SubmitterOptions) {}

  async submit(submission: OutboxSubmission): Promise<OutboxTransaction> {
    const { chains, fees, balances, nonces } = this.options;
    const chain = chains.get(submission.chain);
    const from = submission.signer.address.toLowerCase() as Address;
    const value = submission.value ?? 0n;
    const data = submission.data ?? '0x';
    // An estimate runs the call on the node, and a repeated operation may revert now that it has
    // run: look the key up first. With the gas given, the group commit finds a known key anyway.
    // The lookup runs beside the node calls; a known key wins over whatever they answered.
    const [existing, priced] = await Promise.all([
      submission.gas === undefined ? this.findByKey(submission.idempotencyKey) : undefined,
      Promise.all([submission.gas ?? estimateGas(chain, from, submission.to, data, value), fees.fees(chain)]).then(
        (result) => ({ ok: true as const, result }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
    ]);
    if (existing) return existing;
    if (!priced.ok) throw priced.error;
    const [gas, price] = priced.result;
    // A transaction that can never pay would hold back every later nonce of the account: refuse it
    // now, unless it is a repeat of one already stored.
    try {
      await balances.reserve(chain, from, value + gas * price.maxFeePerGas);
    } catch (error) {
      const stored = await this.findByKey(submission.idempotencyKey);
      if (stored) return stored;
      throw error;
    }
    const chainNonce = nonces.hasRow(accountKey({ chain, from })) ? 0 : await nonces.startingNonce(chain, from);

    const prepared: PreparedSubmission = { submission, chain, from, value, data, gas, fees: price, chainNonce };
    const stored = await this.commitInGroup(prepared);
    if (stored.duplicate) return toTransaction(stored.row);
    const row = stored.row;
    this.options.onStored(row);
    return toTransaction(row);
  }

  private async findByKey(key: string): Promise<OutboxTransaction | undefined> {
    const row = await this.options.store.findByKey(key);
    return row && toTransaction(row);
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
      const expected = this.options.nonces.takeExpected(account);
      if (expected === undefined || prepared.submission.beforeSigning) continue;
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
    this.options.nonces.expectAfter(allocatedEnds, later.map((formed) => formed.counts));
  }

  private async commitGroup(group: QueuedSubmission[], signedAhead: Map<PreparedSubmission, Promise<OutboxRow | undefined>>): Promise<void> {
    const { store, nonces } = this.options;
    try {
      const { results, allocatedEnds } = await store.inTransaction((writes) => storeGroup(writes, group.map((item) => item.prepared), signedAhead));
      this.expectNoncesAfter(allocatedEnds, group);
      for (const item of group) nonces.markRow(accountKey(item.prepared));
      group.forEach((item, index) => item.resolve(results[index]!));
    } catch (error) {
      for (const item of group) nonces.forget(accountKey(item.prepared));
      // Keys stored meanwhile (a repeat, or the same key from another process) answer their rows;
      // the others are stored again together.
      const keys = [...new Set(group.map((item) => item.prepared.submission.idempotencyKey))];
      const stored = new Map((await store.findByKeys(keys).catch(() => [])).map((row) => [row.idempotency_key, row]));
      if (stored.size > 0) {
        const rest: QueuedSubmission[] = [];
        for (const item of group) {
          const row = stored.get(item.prepared.submission.idempotencyKey);
          if (row) item.resolve({ row, duplicate: true });
          else rest.push(item);
        }
        if (rest.length > 0) await this.commitGroup(rest, new Map());
        return;
      }
      if (group.length === 1) {
        group[0]!.reject(error);
        return;
      }
      // Something in the group failed: store each on its own so only that one fails.
      for (const item of group) await this.commitGroup([item], new Map());
    }
  }
}

/**
 * Stores a group in one DB transaction with a handful of statements whatever its size. Every key
 * is taken for new (a repeat was answered before its group formed, or is in this group once): the
 * unique index on the key refuses one stored meanwhile, and commitGroup answers it. Each account's
 * nonces are taken first, in one upsert that also locks its nonce row (SQLite's write lock,
 * PostgreSQL's row lock, in one order for every process so two groups never deadlock); then the
 * caller's writes before signing, then the rows go in with one insert, sent together with the
 * callers' statements (alongsideStatements); when no caller has writes that wait on answers
 * (alongside), PostgreSQL's commit goes out behind them in the same round trip.
 */
async function storeGroup(
  writes: GroupWrites,
  group: PreparedSubmission[],
  signedAhead: Map<PreparedSubmission, Promise<OutboxRow | undefined>>,
): Promise<{ results: StoredSubmission[]; allocatedEnds: Map<string, number> }> {
  const accounts = new Map<string, { chain: ChainContext; from: Address; chainNonce: number; count: number; next: number }>();
  // The first submission of each key is stored; any other in the group answers that row as a duplicate.
  const fresh = new Map<string, PreparedSubmission>();
  for (const prepared of group) {
    const key = accountKey(prepared);
    const account = accounts.get(key) ?? { chain: prepared.chain, from: prepared.from, chainNonce: 0, count: 0, next: 0 };
    account.chainNonce = Math.max(account.chainNonce, prepared.chainNonce);
    accounts.set(key, account);
    if (fresh.has(prepared.submission.idempotencyKey)) continue;
    fresh.set(prepared.submission.idempotencyKey, prepared);
    account.count += 1;
  }
  const ordered = [...accounts.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, account]) => account);
  const allocatedEnds = new Map<string, number>();
  // Sent without waiting, in lock order, ahead of the writes before signing: on PostgreSQL they share
  // a round trip with the transaction's `begin` (pipelinedTransactions).
  const taking = Promise.all(
    ordered.map(async (account) => {
      if (account.count === 0) return;
      const end = await writes.takeNonces(account.chain.name, account.from, account.chainNonce, account.count);
      account.next = end - account.count;
      allocatedEnds.set(accountKey(account), end);
    }),
  );
  // Awaited below; marked handled now, or a failure while the writes wait would be reported unhandled.
  taking.catch(() => undefined);
  try {
    for (const prepared of fresh.values()) {
      const beforeSigning = prepared.submission.beforeSigning;
      if (beforeSigning) await writes.beforeSigning(beforeSigning);
    }
  } finally {
    // Its failure, if any, is the first one: the writes after it fail because of it.
    await taking;
  }
  const now = Date.now();
  // A signature made ahead is used only when its nonce is the one allocated here.
  const created = await Promise.all(
    [...fresh.values()].map(async (prepared) => {
      const nonce = accounts.get(accountKey(prepared))!.next++;
      const ahead = await signedAhead.get(prepared);
      return ahead?.nonce === nonce ? ahead : signedRow(prepared, nonce, now);
    }),
  );
  const rowsByKey = new Map(created.map((row) => [row.idempotency_key, row]));
  // The rows' inserts are all sent before the callers' writes, which may refer to them.
  const statements: Array<Promise<unknown>> = [writes.insert(created)];
  for (const prepared of fresh.values()) {
    const alongsideStatements = prepared.submission.alongsideStatements;
    if (alongsideStatements) statements.push(...writes.alongsideStatements(alongsideStatements, rowsByKey.get(prepared.submission.idempotencyKey)!));
  }
  const sent = Promise.all(statements);
  sent.catch(() => undefined);
  const withAlongside = [...fresh.values()].filter((prepared) => prepared.submission.alongside);
  // With nothing left to decide, the commit goes out behind the statements (PostgreSQL).
  if (withAlongside.length === 0) writes.commitBehindSent();
  try {
    for (const prepared of withAlongside) await writes.alongside(prepared.submission.alongside!, rowsByKey.get(prepared.submission.idempotencyKey)!);
  } finally {
    await sent;
  }
  return {
    results: group.map((prepared) => ({ row: rowsByKey.get(prepared.submission.idempotencyKey)!, duplicate: fresh.get(prepared.submission.idempotencyKey) !== prepared })),
    allocatedEnds,
  };
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
    ...SIGNED_COLUMNS,
    error: null,
    broadcast_attempts: 0,
    last_broadcast_ms: null,
    created_ms: now,
    updated_ms: now,
  };
}
