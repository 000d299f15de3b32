import { EventEmitter } from 'node:events';
import type { Hex } from 'viem';
import type { ChainContext, ChainRegistry } from '../chain/chains.ts';
import { isInstant } from '../chain/confirmations.ts';
import { automineUnsticker, nodeAutomines } from '../chain/automining-pool.ts';
import type { Store } from '../store/database.ts';
import type { OutboxRow } from '../store/schema.ts';
import { PollingLoop } from '../lib/polling-loop.ts';
import { Broadcaster } from './broadcast.ts';
import { ConfirmationTracker } from './confirmations.ts';
import { BalanceReservations, FeeCache } from './fees.ts';
import { isFinal, toTransaction, type OutboxTransaction, type ReceiptWrite } from './lifecycle.ts';
import { NonceConflicts, NonceExpectations } from './nonces.ts';
import { ReceiptRecorder, receiptOf, verifyMined } from './receipts.ts';
import { ChainRewindWatch } from './rewinds.ts';
import { ROOM_WATCH_MS, RoomWatch } from './room-watch.ts';
import { OutboxStore } from './store.ts';
import { Submitter } from './submit.ts';
import type { OutboxSubmission } from './submission.ts';
import { PendingTracker } from './tracking.ts';

export { OutboxRefusal } from './fees.ts';
export type { OutboxTransaction, ReceiptWrite } from './lifecycle.ts';
export type { OutboxSubmission, TransactionSigner } from './submission.ts';

/**
 * Looks for the receipt of a transaction an automining node was just sent, and the pause between
 * them: anvil answers a broadcast before its block is sealed more often as its chain grows (about 1
 * in 10 times over its first 200 blocks, 8 in 10 after 400), and the block follows within a
 * millisecond or two, so a longer pause would be added to most answers.
 */
const RECEIPT_LOOKS = 50;
const RECEIPT_LOOK_MS = 1;

export interface OutboxOptions {
  store: Pick<Store, 'db' | 'dialect' | 'unsyncedTransaction' | 'groupCommit'>;
  chains: ChainRegistry;
  pollIntervalMs: number;
  rebroadcastAfterMs: number;
  /** Most nonces of one account sent ahead of its mined nonce count; later ones wait, stored (see Broadcaster). */
  sendWindow: number;
  log?: { info(message: string): void; warn(message: string): void };
}

/**
 * The one way the service sends transactions. Per account and chain it allocates the nonce, signs
 * and stores the raw transaction in one DB transaction; then broadcasts; then tracks the receipt.
 * Whatever is not mined is broadcast again (the same bytes give the same hash), so a crash of the
 * service or of the node at any moment loses nothing and duplicates nothing.
 */
export class TransactionOutbox {
  private readonly chains: ChainRegistry;
  private readonly options: OutboxOptions;
  /** Emits a transaction's id when it settles, with the transaction when it was mined here. */
  private readonly settled = new EventEmitter();
  private readonly store: OutboxStore;
  private readonly broadcaster: Broadcaster;
  private readonly conflicts: NonceConflicts;
  private readonly submitter: Submitter;
  private readonly loop: PollingLoop;
  /** Between passes, room made in send windows by new blocks (RoomWatch). */
  private readonly roomLoop: PollingLoop;
  private readonly rewinds: ChainRewindWatch;
  private readonly confirmations: ConfirmationTracker;
  private readonly recorder: ReceiptRecorder;
  /** Per transaction, the writes its waiters want made with its receipt (waitForFinal's `withReceipt`). */
  private readonly receiptWrites = new Map<string, Set<ReceiptWrite>>();

  constructor(options: OutboxOptions) {
    this.chains = options.chains;
    this.options = options;
    this.settled.setMaxListeners(0);
    const { chains, log } = options;
    const store = (this.store = new OutboxStore(options.store));
    const recorder = (this.recorder = new ReceiptRecorder(
      store,
      (chain) => !chains.has(chain) || isInstant(chains.get(chain).confirmations),
      (transaction, logs) => {
        this.broadcaster.mined({ id: transaction.id, chain: transaction.chain, from_address: transaction.from, nonce: transaction.nonce });
        this.conflicts.forget(transaction.id);
        // An `included` one settles when its block is confirmed (ConfirmationTracker).
        if (isFinal(transaction)) this.settled.emit(transaction.id, logs ? { ...transaction, logs } : transaction);
      },
      (id) => this.receiptWrites.get(id) ?? [],
    ));
    this.conflicts = new NonceConflicts({
      store,
      recordReceipt: (row, receipt) => recorder.recordReceipts([{ row, receipt }]),
      onFailed: (id) => {
        this.broadcaster.forget(id);
        this.settled.emit(id);
      },
      log,
    });
    this.broadcaster = new Broadcaster({
      chains,
      store,
      maySend: (chain) => this.rewinds.maySend(chain),
      reconcileNonceTooLow: (chain, row, error) => this.conflicts.reconcile(chain, row, error),
      window: options.sendWindow,
      log,
    });
    this.submitter = new Submitter({
      chains,
      store,
      fees: new FeeCache(),
      balances: new BalanceReservations(),
      nonces: new NonceExpectations(store),
      // An automining node has mined it by the time it answers: a caller waiting on it gets its
      // receipt now rather than at a pass.
      onStored: (row) =>
        this.broadcaster.sendNew(row, () => {
          if (chains.get(row.chain).automine && this.settled.listenerCount(row.id) > 0) return this.recordReceiptNow(row);
        }),
    });
    const tracker = new PendingTracker({
      chains,
      store,
      recorder,
      broadcaster: this.broadcaster,
      maySend: (chain) => this.rewinds.maySend(chain),
      unstick: automineUnsticker({
        chains,
        automines: nodeAutomines(),
        send: (row) => this.broadcaster.broadcast(row),
        lastSentAt: (id) => this.broadcaster.lastSentAt(id),
        log,
      }),
      isAwaited: (id) => this.settled.listenerCount(id) > 0,
      kick: () => this.kick(),
      rebroadcastAfterMs: options.rebroadcastAfterMs,
    });
    const rewinds = (this.rewinds = new ChainRewindWatch({
      onRewind: (chain) => this.verifyMined(chain),
      recordedAbove: (chain, blockNumber, limit) => store.minedAbove(chain, blockNumber, limit),
    }));
    const confirmations = (this.confirmations = new ConfirmationTracker({
      chains,
      store,
      onConfirmed: (ids) => {
        for (const id of ids) if (this.settled.listenerCount(id) > 0) void this.findById(id).then((transaction) => this.settled.emit(id, transaction), () => {});
      },
      onReplaced: (chain, moved, dropped) => {
        this.options.log?.warn(`outbox: a reorg on chain ${chain.name} replaced the blocks of ${moved + dropped} unconfirmed transactions: ${moved} found in new blocks, ${dropped} to be sent again`);
        if (dropped > 0) this.kick();
      },
    }));
    this.loop = new PollingLoop(async () => {
      await rewinds.check(chains.all());
      await tracker.trackPending();
      await confirmations.check();
    }, options.pollIntervalMs, (error) =>
      this.options.log?.warn(`outbox: ${error.message}`),
    );
    const roomWatch = new RoomWatch({ chains, broadcaster: this.broadcaster });
    this.roomLoop = new PollingLoop(() => roomWatch.check(), Math.min(ROOM_WATCH_MS, options.pollIntervalMs), (error) =>
      this.options.log?.warn(`outbox: ${error.message}`),
    );
  }

  /** Starts tracking: replays what a previous run left unmined and checks recent receipts still hold. */
  async start(): Promise<void> {
    if (this.loop.isRunning) return;
    for (const chain of this.chains.all()) {
      // Held from the node's death until its receipts are checked at a pass (ChainRewindWatch).
      chain.node?.on('exited', () => this.rewinds.suspect(chain.name));
      chain.node?.on('restarted', () => {
        this.rewinds.suspect(chain.name);
        this.kick();
      });
      // The head before the full check: a loss after it is noticed by the watch.
      await this.rewinds.remember(chain);
      await this.verifyMined(chain);
    }
    this.loop.start();
    this.roomLoop.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.loop.stop(), this.roomLoop.stop()]);
    await this.broadcaster.drain();
  }

  /**
   * Persists and broadcasts one transaction. Resolves once it is stored: from then on it is the
   * outbox's to deliver, so the first broadcast goes on without holding the caller (the next group
   * is signed and stored meanwhile); the receipt comes later (`waitForFinal`). Gas estimation
   * errors (reverts) and a balance that cannot pay are thrown before anything is stored.
   */
  submit(submission: OutboxSubmission): Promise<OutboxTransaction> {
    return this.submitter.submit(submission);
  }

  /** Per chain, the transactions held until their account's send window has room (see Broadcaster). */
  waitingForRoom(): ReadonlyMap<string, number> {
    return this.broadcaster.waitingByChain();
  }

  async findByIdempotencyKey(key: string): Promise<OutboxTransaction | undefined> {
    const row = await this.store.findByKey(key);
    return row && toTransaction(row);
  }

  async findById(id: string): Promise<OutboxTransaction | undefined> {
    const row = await this.store.findById(id);
    return row && toTransaction(row);
  }

  async findByHash(txHash: string): Promise<OutboxTransaction | undefined> {
    const row = await this.store.findByHash(txHash);
    return row && toTransaction(row);
  }

  /**
   * Resolves when the transaction is mined (its block confirmed by the chain's rule) or has failed
   * for good; with the receipt's logs when it was mined here while waiting on a chain with depth 0
   * (the caller need not ask the node for the receipt again). `withReceipt`: writes to make in the
   * commit that records the receipt, if this process records it final while waiting; the answer's
   * `receiptWritesDone` holds them when they were made, and the caller makes them itself otherwise.
   */
  async waitForFinal(id: string, timeoutMs = 60_000, withReceipt?: ReceiptWrite): Promise<OutboxTransaction> {
    if (!withReceipt) return this.settledTransaction(id, timeoutMs);
    const writes = this.receiptWrites.get(id) ?? new Set();
    this.receiptWrites.set(id, writes.add(withReceipt));
    try {
      return await this.settledTransaction(id, timeoutMs);
    } finally {
      writes.delete(withReceipt);
      if (writes.size === 0 && this.receiptWrites.get(id) === writes) this.receiptWrites.delete(id);
    }
  }

  private async settledTransaction(id: string, timeoutMs: number): Promise<OutboxTransaction> {
    const deadline = Date.now() + timeoutMs;
    // A transaction this process has just stored and is sending for the first time is not final
    // yet, and that broadcast looks for its receipt itself: the first read of the row is skipped
    // (on an automining node it would sit beside the broadcast on the call's path).
    let read = !this.broadcaster.isSending(id);
    // This process's settlements arrive as events; the row is read again for one made by another
    // process, at first every two poll intervals, then less often the longer the wait (up to eight):
    // a backlog of waiting calls would otherwise read every waiting row several times a second.
    let readAgainMs = this.options.pollIntervalMs * 2;
    for (;;) {
      // Listen before reading, so a settlement between the read and the wait is not missed.
      let settle: (transaction: OutboxTransaction | undefined) => void = () => {};
      let settledMeanwhile: OutboxTransaction | undefined;
      const settled = new Promise<OutboxTransaction | undefined>((resolve) => (settle = (transaction) => resolve((settledMeanwhile = transaction))));
      this.settled.once(id, settle);
      try {
        if (read) {
          const transaction = await this.findById(id);
          if (!transaction) throw new Error(`outbox: no transaction ${id}`);
          // Settled while the row was read: the event says which receipt writes were made, the row does not.
          if (settledMeanwhile && isFinal(settledMeanwhile)) return settledMeanwhile;
          if (isFinal(transaction)) return transaction;
          if (deadline <= Date.now()) throw new Error(`outbox: transaction ${transaction.txHash} not mined within ${timeoutMs} ms`);
          // A first broadcast under way looks for the receipt itself once the node has answered.
          if (!this.broadcaster.isSending(id)) this.kick();
        }
        read = true;
        const left = Math.max(deadline - Date.now(), 1);
        let timer: ReturnType<typeof setTimeout> | undefined;
        const final = await Promise.race([
          settled,
          new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), Math.min(left, readAgainMs)))),
        ]);
        readAgainMs = Math.min(readAgainMs * 2, this.options.pollIntervalMs * 8);
        clearTimeout(timer);
        // Settled in this process: the event carries the stored outcome, no need to read it back.
        if (final && isFinal(final)) return final;
      } finally {
        this.settled.off(id, settle);
      }
    }
  }

  /**
   * The receipt of a transaction just sent to an automining node, recorded at once (the same write
   * a pass makes; whichever comes second changes nothing). Not there, or not readable: a pass looks.
   */
  private async recordReceiptNow(row: OutboxRow): Promise<void> {
    try {
      // anvil may answer the broadcast just before the block is sealed: a few quick looks.
      for (let look = 0; look < RECEIPT_LOOKS; look++) {
        if (look > 0) await new Promise((resolve) => setTimeout(resolve, RECEIPT_LOOK_MS));
        const receipt = await receiptOf(this.chains.get(row.chain), row.tx_hash as Hex);
        if (receipt) return await this.recorder.recordReceipts([{ row, receipt }]);
        if (this.settled.listenerCount(row.id) === 0) return;
      }
    } catch {
      // Looked for again at the pass.
    }
    this.kick();
  }

  /**
   * Checks that the node still has the receipts of mined transactions (see receipts.ts); lost ones
   * go back to be replayed with their stored bytes. Answers how many were lost.
   */
  async verifyMined(chain: ChainContext): Promise<number> {
    const lostTotal = await verifyMined(this.store, chain);
    if (lostTotal > 0) {
      this.options.log?.warn(`outbox: chain ${chain.name} lost ${lostTotal} mined transactions; replaying them`);
      this.kick();
    }
    return lostTotal;
  }

  /**
   * One pass of the confirmation check now (ConfirmationTracker): confirms what the chain's rule
   * counts as final, undoes what a reorg replaced. The polling loop runs it too.
   */
  confirmPending(): Promise<void> {
    return this.confirmations.check();
  }

  /** Runs one pass now instead of at the next interval. */
  kick(): void {
    this.loop.kick();
  }
}
