import type { Address } from 'viem';
import { clearAccountPool, isNextNonceQueued, mineStalledPool, type ChainRegistry } from './chains.ts';

/** How long a sent transaction may sit unmined on an automining embedded node before a block is mined by hand. */
export const STALLED_MS = 300;
/** How long an account's lowest unmined transaction may stay the lowest, resent, before the embedded node's pool is emptied of that account (see clearAccountPool). */
const STUCK_MS = 1_500;

/** What the workaround needs to know of a sent, unmined transaction. */
export interface PooledTransaction {
  id: string;
  chain: string;
  from_address: string;
  nonce: number;
}

export interface EmbeddedNodePoolOptions<T extends PooledTransaction> {
  chains: Pick<ChainRegistry, 'get'>;
  /** Sends the transaction's stored bytes again. */
  send(transaction: T): Promise<void>;
  /** When this process last sent the transaction, if it did. */
  lastSentAt(id: string): number | undefined;
  log?: { info(message: string): void } | undefined;
}

/**
 * An automining embedded node should mine what it is sent at once. When a transaction sent
 * STALLED_MS ago is still unmined, each such account's lowest nonce goes again (anvil can drop
 * one under load, holding back every later nonce), and a block is mined if the pool holds ready
 * transactions (anvil's automine can stop with them waiting: see mineStalledPool). An account
 * whose stalled lowest transaction the node keeps queued though it is the next nonce, or whose
 * lowest transaction is still the same STUCK_MS later, has its transactions taken out of the
 * node's pool and sent again in nonce order (see clearAccountPool).
 *
 * Answers the function to call on each pass with the unmined transactions in the order they were
 * stored, those sent in this pass, and the pass's time.
 */
export function embeddedNodeUnsticker<T extends PooledTransaction>(
  options: EmbeddedNodePoolOptions<T>,
): (unmined: T[], sentNow: Set<T>, now: number) => Promise<void> {
  const { chains, send, lastSentAt, log } = options;
  /** Per chain:account with stalled transactions on an automining embedded node: its lowest unmined transaction, and since when it has been the lowest. */
  const stalledLowest = new Map<string, { id: string; since: number }>();

  return async (unmined, sentNow, now) => {
    const stalled = unmined.filter(
      (row) => !sentNow.has(row) && chains.get(row.chain).automine && now - (lastSentAt(row.id) ?? now) > STALLED_MS,
    );
    const lowest = lowestOf(stalled);
    // Whether an account is stuck is judged on its lowest unmined row, resent this pass or not; an
    // account leaves the watch once all of its rows are mined.
    const watched = new Set([...lowest.keys(), ...stalledLowest.keys()]);
    const lowestUnmined = lowestOf(unmined.filter((row) => watched.has(accountOf(row))));
    for (const key of stalledLowest.keys()) if (!lowestUnmined.has(key)) stalledLowest.delete(key);
    const stuck: T[] = [];
    for (const [key, row] of lowestUnmined) {
      const seen = stalledLowest.get(key);
      if (seen?.id !== row.id) stalledLowest.set(key, { id: row.id, since: now });
      // A queued next nonce shows in the node's pool as soon as the account stalls; STUCK_MS is
      // for whatever else keeps it back.
      const queuedNext = lowest.has(key) && (await isNextNonceQueued(chains.get(row.chain), row.from_address as Address, row.nonce).catch(() => false));
      if (queuedNext || (seen?.id === row.id && now - seen.since > STUCK_MS)) stuck.push(row);
    }
    const stuckAccounts = new Set(stuck.map(accountOf));
    // One after another in the order they were stored (lowest keeps unmined's order): one account's
    // transaction may depend on another's stored before it (a claim on its deposit), and an
    // automining node mines each as it comes.
    for (const [key, row] of lowest) if (!stuckAccounts.has(key)) await send(row);
    for (const name of new Set(stalled.map((row) => row.chain))) {
      if (await mineStalledPool(chains.get(name))) log?.info(`outbox: mined a block for transactions the ${name} node held back`);
    }
    for (const row of stuck) {
      const key = accountOf(row);
      const chain = chains.get(row.chain);
      log?.info(`outbox: the ${chain.name} node keeps nonce ${row.nonce} of ${row.from_address} back; sending its transactions again into an empty pool`);
      await clearAccountPool(chain, row.from_address as Address);
      // One at a time: the node must see them in nonce order.
      const rows = unmined.filter((other) => accountOf(other) === key).sort((a, b) => a.nonce - b.nonce);
      for (const other of rows) await send(other);
      stalledLowest.delete(key);
    }
  };
}

/** Each chain:account's transaction of the lowest nonce. */
function lowestOf<T extends PooledTransaction>(rows: T[]): Map<string, T> {
  const lowest = new Map<string, T>();
  for (const row of rows) {
    const key = accountOf(row);
    if ((lowest.get(key)?.nonce ?? Infinity) > row.nonce) lowest.set(key, row);
  }
  return lowest;
}

function accountOf(row: PooledTransaction): string {
  return `${row.chain}:${row.from_address}`;
}
