import type { ChainContext, ChainRegistry } from '../chain/chains.ts';
import { STALLED_MS } from '../chain/automining-pool.ts';
import type { OutboxRow } from '../store/schema.ts';
import type { Broadcaster } from './broadcast.ts';
import { minedNonceCounts, receiptsOf, type ReceiptRecorder } from './receipts.ts';
import { rowAccountKey } from './submission.ts';
import type { OutboxStore } from './store.ts';

const PENDING_BATCH = 500;
/**
 * How soon a pass follows one that left unmined a transaction a caller waits on, stored less than
 * STALLED_MS ago, on an automining embedded node: such a node mines it within milliseconds, so the
 * caller need not wait for the next interval. (Older ones are the unsticking's business.)
 */
const FOLLOW_UP_MS = 10;

export interface PendingTrackerOptions {
  chains: Pick<ChainRegistry, 'get' | 'has'>;
  store: Pick<OutboxStore, 'unmined' | 'unminedBetween'>;
  recorder: Pick<ReceiptRecorder, 'recordReceipts'>;
  broadcaster: Pick<Broadcaster, 'broadcast' | 'lastSentAt' | 'isWaiting' | 'mayGoNow' | 'minedCount' | 'waitingAccounts'>;
  /** Whether the chain's node may be sent to now (ChainRewindWatch.maySend). */
  maySend(chain: ChainContext): boolean;
  /** The automining node's stuck-pool workaround (see automineUnsticker). */
  unstick(unmined: OutboxRow[], sentNow: Set<OutboxRow>, now: number): Promise<void>;
  /** Whether a caller waits on the transaction. */
  isAwaited(id: string): boolean;
  /** Runs a pass now. */
  kick(): void;
  rebroadcastAfterMs: number;
}

/** The passes over unmined transactions. */
export class PendingTracker {
  private followUpScheduled = false;

  constructor(private readonly options: PendingTrackerOptions) {}

  /**
   * One pass: record receipts of unmined transactions, broadcast again those that need it, and
   * unstick an embedded node whose automine left ours in its pool.
   */
  async trackPending(): Promise<void> {
    const { chains, store, recorder, broadcaster, rebroadcastAfterMs } = this.options;
    const rows = await store.unmined(PENDING_BATCH);
    if (rows.length === 0) return;
    const tracked = rows.filter((row) => chains.has(row.chain));
    // Accounts with rows waiting for room are read too: the oldest unmined rows may all be others'.
    const minedCounts = await minedNonceCounts(chains, [...tracked, ...broadcaster.waitingAccounts()]);
    if (rows.length === PENDING_BATCH) tracked.push(...(await this.lowerNoncesLeftOut(tracked, minedCounts)));
    for (const [account, count] of minedCounts) broadcaster.minedCount(account, count);
    const receipts = await receiptsOf(chains, tracked, minedCounts);
    const mined = tracked.flatMap((row, index) => (receipts[index] ? [{ row, receipt: receipts[index] }] : []));
    if (mined.length > 0) await recorder.recordReceipts(mined);
    const now = Date.now();
    // Rows waiting for room in their account's window go from the broadcaster as room is made, and
    // hold nothing back: they never reached a node, so nothing stored after them depends on them.
    const unmined = tracked.filter((row, index) => !receipts[index] && !broadcaster.isWaiting(row.id));
    const isDue = (row: OutboxRow) => {
      const last = Math.max(row.last_broadcast_ms ?? 0, broadcaster.lastSentAt(row.id) ?? 0);
      return last === 0 ? now - row.created_ms > rebroadcastAfterMs / 5 : now - last > rebroadcastAfterMs;
    };
    // In the order they were stored (each account's in nonce order), one after another: a node
    // that lost blocks gets their transactions back in their first order across accounts too. A
    // transaction stored after another was mined may depend on it (the member's send of a card
    // after the operator's claim of it), and would revert if the node mined it first. So a row
    // sent moments ago holds back the later rows of its chain until it is due again: the node may
    // have lost it since (a restart, a rewind) or never taken it (a node that was down), and then
    // it goes again first. Rows held back are older than those sent, so from then on they are all
    // due together, once every rebroadcastAfterMs, as before.
    // A row this process never sent whose account's window is full holds back the later rows of
    // the chain's other accounts (it may be one a node lost, which they depend on), and goes once
    // receipts make room; never its own account's, whose lower nonces are what make that room.
    // A node that hangs would hold the pass a timeout per row: what is left after
    // rebroadcastAfterMs goes at the next pass, still in order (those sent are not due again yet).
    unmined.sort((a, b) => a.created_ms - b.created_ms || a.nonce - b.nonce);
    // A chain whose node may have lost blocks waits for its check: what it lost goes first.
    const unchecked = new Set(unmined.map((row) => row.chain).filter((name) => !this.options.maySend(chains.get(name))));
    const heldBack = new Set(unchecked);
    /** Per chain, the accounts a row of which found the window full. */
    const fullWindows = new Map<string, Set<string>>();
    const due: OutboxRow[] = [];
    for (const row of inNonceOrderPerAccount(unmined)) {
      if (heldBack.has(row.chain)) continue;
      const account = rowAccountKey(row);
      const full = fullWindows.get(row.chain);
      if (full && [...full].some((other) => other !== account)) continue;
      if (!broadcaster.mayGoNow(row, minedCounts.get(account))) fullWindows.set(row.chain, (full ?? new Set()).add(account));
      else if (isDue(row)) due.push(row);
      else heldBack.add(row.chain);
    }
    const sendUntil = Date.now() + rebroadcastAfterMs;
    const sent: OutboxRow[] = [];
    for (const row of due) {
      if (Date.now() > sendUntil) break;
      await broadcaster.broadcast(row);
      sent.push(row);
    }
    const sentNow = new Set(sent);
    await this.options.unstick(unmined.filter((row) => !unchecked.has(row.chain)), sentNow, now);
    if (unmined.some((row) => this.awaitedSoon(row, now))) this.followUp();
  }

  /**
   * Unmined rows of the batch's accounts that the batch left out, from the node's mined count up:
   * a full batch, read oldest first, can leave out a nonce signed again later, and the account's
   * higher nonces in the batch, past its window, would wait on it for good.
   */
  private async lowerNoncesLeftOut(batch: OutboxRow[], minedCounts: Map<string, number>): Promise<OutboxRow[]> {
    /** Per account, its lowest nonce in the batch not mined by the node's count. */
    const lowest = new Map<string, OutboxRow>();
    for (const row of batch) {
      const key = rowAccountKey(row);
      const count = minedCounts.get(key);
      if (count !== undefined && row.nonce >= count && (lowest.get(key)?.nonce ?? Infinity) > row.nonce) lowest.set(key, row);
    }
    const leftOut: OutboxRow[] = [];
    for (const [key, row] of lowest) {
      const count = minedCounts.get(key)!;
      if (row.nonce === count) continue;
      leftOut.push(...(await this.options.store.unminedBetween(row, count, row.nonce, PENDING_BATCH)));
    }
    return leftOut;
  }

  /** Whether a caller waits on this unmined row, stored moments ago, which an automining node should mine any moment. */
  private awaitedSoon(row: OutboxRow, now: number): boolean {
    return now - row.created_ms < STALLED_MS && this.options.chains.get(row.chain).automine && this.options.isAwaited(row.id);
  }

  private followUp(): void {
    if (this.followUpScheduled) return;
    this.followUpScheduled = true;
    setTimeout(() => {
      this.followUpScheduled = false;
      this.options.kick();
    }, FOLLOW_UP_MS).unref();
  }
}

/**
 * The rows in the same order across accounts, each account's put in nonce order in the places its
 * rows hold: a row signed again in its commit (the nonce it was signed with ahead was not the one
 * allocated: another process took it, or a group before it was smaller) carries a later time than
 * the nonces after it, and a higher nonce met first could hold back the lower ones that make room
 * for it.
 */
function inNonceOrderPerAccount(rows: OutboxRow[]): OutboxRow[] {
  const byAccount = new Map<string, OutboxRow[]>();
  for (const row of rows) {
    const key = rowAccountKey(row);
    const accountRows = byAccount.get(key);
    if (accountRows) accountRows.push(row);
    else byAccount.set(key, [row]);
  }
  for (const accountRows of byAccount.values()) accountRows.sort((a, b) => a.nonce - b.nonce);
  const taken = new Map<string, number>();
  return rows.map((row) => {
    const key = rowAccountKey(row);
    const index = taken.get(key) ?? 0;
    taken.set(key, index + 1);
    return byAccount.get(key)![index]!;
  });
}
