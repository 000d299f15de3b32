import type { Address } from 'viem';
import { accountQueue, clearAccountPool, mineStalledPool, queuedNonces, type ChainContext, type ChainRegistry } from './chains.ts';
import { isNodeUnreachable } from './node-errors.ts';

/** How long a sent transaction may sit unmined on an automining node before a block is mined by hand. */
export const STALLED_MS = 300;
/** How long an account's lowest unmined transaction may stay the lowest, resent, before the node's pool is emptied of that account (see clearAccountPool). */
const STUCK_MS = 1_500;

/** What the workaround needs to know of a sent, unmined transaction. */
export interface PooledTransaction {
  id: string;
  chain: string;
  from_address: string;
  nonce: number;
}

export interface AutominingPoolOptions<T extends PooledTransaction> {
  chains: Pick<ChainRegistry, 'get'>;
  /** Whether the chain's node mines each transaction as it arrives (see nodeAutomines). */
  automines(chain: ChainContext): Promise<boolean>;
  /** Sends the transaction's stored bytes again. */
  send(transaction: T): Promise<void>;
  /** When this process last sent the transaction, if it did. */
  lastSentAt(id: string): number | undefined;
  log?: { info(message: string): void } | undefined;
}

/**
 * An automining node should mine what it is sent at once. When a transaction sent STALLED_MS ago
 * is still unmined, each such account's lowest nonce goes again (anvil can drop one under load,
 * holding back every later nonce), and a block is mined if the pool holds ready transactions
 * (anvil's automine can stop with them waiting: see mineStalledPool). An account whose stalled
 * lowest transaction the node keeps queued though it is the next nonce, or whose lowest
 * transaction is still the same STUCK_MS later, has its transactions taken out of the node's pool
 * and sent again in nonce order (see clearAccountPool). An embedded node automines by its
 * settings; an external one when it says so (an anvil run by the operator is as subject to these
 * stalls, and several instances sharing an account send out of nonce order), asked only while
 * something of it has stalled. Other instances may send to an external node, so there only what
 * cannot change the order they send in is done: a block mined for ready transactions, and an
 * account's queued transactions sent again when its next nonce is among them.
 *
 * Answers the function to call on each pass with the unmined transactions in the order they were
 * stored, those sent in this pass, and the pass's time.
 */
export function automineUnsticker<T extends PooledTransaction>(
  options: AutominingPoolOptions<T>,
): (unmined: T[], sentNow: Set<T>, now: number) => Promise<void> {
  const { chains, automines, send, lastSentAt, log } = options;
  /** Per chain:account with stalled transactions on an automining node: its lowest unmined transaction, and since when it has been the lowest. */
  const stalledLowest = new Map<string, { id: string; since: number }>();

  return async (unmined, sentNow, now) => {
    const unmovedFor = unmined.filter((row) => !sentNow.has(row) && now - (lastSentAt(row.id) ?? now) > STALLED_MS);
    const automining = new Set<string>();
    for (const name of new Set(unmovedFor.map((row) => row.chain))) if (await automines(chains.get(name))) automining.add(name);
    const stalled = unmovedFor.filter((row) => automining.has(row.chain));
    const lowest = lowestOf(stalled);
    // Whether an account is stuck is judged on its lowest unmined row, resent this pass or not; an
    // account leaves the watch once all of its rows are mined.
    const watched = new Set([...lowest.keys(), ...stalledLowest.keys()]);
    const lowestUnmined = lowestOf(unmined.filter((row) => watched.has(accountOf(row))));
    for (const key of stalledLowest.keys()) if (!lowestUnmined.has(key)) stalledLowest.delete(key);
    const stuck: Array<{ row: T; queued: Set<number> }> = [];
    // A chain's pool is read once a pass, whatever the number of its stalled accounts.
    const pools = new Map<string, ReturnType<typeof queuedNonces>>();
    const poolOf = (chain: ChainContext) => pools.get(chain.name) ?? pools.set(chain.name, queuedNonces(chain)).get(chain.name)!;
    for (const [key, row] of lowestUnmined) {
      const seen = stalledLowest.get(key);
      if (seen?.id !== row.id) stalledLowest.set(key, { id: row.id, since: now });
      const chain = chains.get(row.chain);
      // A queued next nonce shows in the node's pool as soon as the account stalls; STUCK_MS is
      // for whatever else keeps it back, on an embedded node only (see below).
      const queue = lowest.has(key) ? await accountQueue(chain, row.from_address as Address, poolOf(chain)).catch(() => undefined) : undefined;
      const queuedNext = queue?.next === row.nonce && queue.queued.has(row.nonce);
      if (queuedNext || (chain.managed && seen?.id === row.id && now - seen.since > STUCK_MS)) stuck.push({ row, queued: queue?.queued ?? new Set() });
    }
    const stuckAccounts = new Set(stuck.map(({ row }) => accountOf(row)));
    // One after another in the order they were stored (lowest keeps unmined's order): one account's
    // transaction may depend on another's stored before it (a claim on its deposit), and an
    // automining node mines each as it comes. Only to an embedded node, which this process alone
    // sends to: on an external one, what another instance stored before these (a deposit it sent
    // before a restart of the node lost it) is not among this process's stalled rows, and would
    // come after them; there the passes send again, in the order stored across instances.
    for (const [key, row] of lowest) if (!stuckAccounts.has(key) && chains.get(row.chain).managed) await send(row);
    // Ready transactions are what an automining node would have mined at once: mining them sends nothing.
    for (const name of new Set(stalled.map((row) => row.chain))) {
      if (await mineStalledPool(chains.get(name))) log?.info(`outbox: mined a block for transactions the ${name} node held back`);
    }
    for (const { row, queued } of stuck) {
      const key = accountOf(row);
      const chain = chains.get(row.chain);
      log?.info(`outbox: the ${chain.name} node keeps nonce ${row.nonce} of ${row.from_address} back; sending its transactions again into an empty pool`);
      await clearAccountPool(chain, row.from_address as Address);
      // One at a time: the node must see them in nonce order. To an external node, only those it
      // held: it had them, so sending them again changes no order another instance relies on.
      const rows = unmined
        .filter((other) => accountOf(other) === key && (chain.managed || queued.has(other.nonce)))
        .sort((a, b) => a.nonce - b.nonce);
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

/**
 * Answers whether a chain's node mines each transaction as it arrives. An embedded node's setting
 * is known; an external node is asked each time (`anvil_getAutomine`: automine can be switched at
 * run time), and one that answers the method with an error (not anvil: Hardhat, geth, a provider)
 * is not asked again. A node that does not answer counts as not automining this time.
 */
export function nodeAutomines(): (chain: ChainContext) => Promise<boolean> {
  const notAnvil = new Set<string>();
  return async (chain) => {
    if (chain.managed) return chain.automine;
    if (notAnvil.has(chain.name)) return false;
    try {
      return (await chain.client.request({ method: 'anvil_getAutomine' as never })) === true;
    } catch (error) {
      if (!isNodeUnreachable(error)) notAnvil.add(chain.name);
      return false;
    }
  };
}
