import type { Address, Hash } from 'viem';
import type { ChainRegistry, ChainContext } from '../chain/chains.ts';
import type { Db } from '../store/database.ts';
import type { ScrapeGauges } from './registry.ts';
import { cardIndexPositions, oldestPending, outboxDepth, pendingAccountNonces } from './store.ts';

/** A scrape waits at most this long for a chain; a chain that does not answer keeps its last values. */
const CHAIN_TIMEOUT_MS = 2_000;
/** Accounts reported with a nonce lag (those with pending transactions, in address order). */
const NONCE_LAG_ACCOUNTS = 100;

/**
 * Reads the outbox and card index from the store and the heads of the chains into the gauges: one
 * group of queries per scrape, and per chain a block number, the mined nonce of each account with
 * pending transactions and the receipt of the oldest pending transaction (all batched by viem).
 */
export function storeAndChainCollector(
  deps: {
    db: Db;
    chains: ChainRegistry;
    /** Per chain, the transactions this process holds until their account's send window has room (the outbox's memory, not the store's). */
    waitingForRoom(): ReadonlyMap<string, number>;
  },
  gauges: ScrapeGauges,
): () => Promise<void> {
  return async () => {
    const [depth, oldest, nonces, positions] = await Promise.all([
      outboxDepth(deps.db),
      oldestPending(deps.db),
      pendingAccountNonces(deps.db, NONCE_LAG_ACCOUNTS),
      cardIndexPositions(deps.db),
    ]);
    const now = Date.now();
    gauges.outboxTransactions.reset();
    gauges.outboxOldestPendingAge.reset();
    gauges.nonceLag.reset();
    const waiting = deps.waitingForRoom();
    for (const chain of deps.chains.all()) {
      for (const state of ['unsent', 'sent', 'unconfirmed', 'failed'] as const) gauges.outboxTransactions.set({ chain: chain.name, state }, 0);
      gauges.outboxOldestPendingAge.set({ chain: chain.name }, 0);
      gauges.outboxWindowWaiting.set({ chain: chain.name }, waiting.get(chain.name) ?? 0);
    }
    for (const row of depth) gauges.outboxTransactions.set({ chain: row.chain, state: row.state }, row.count);
    for (const row of oldest) gauges.outboxOldestPendingAge.set({ chain: row.chain }, Math.max(0, (now - row.createdMs) / 1000));

    await Promise.allSettled(
      deps.chains.all().map((chain) =>
        withTimeout(
          collectChain(chain, gauges, {
            oldestPendingHash: oldest.find((row) => row.chain === chain.name)?.txHash,
            accounts: nonces.filter((row) => row.chain === chain.name),
            cardIndexBlock: positions.find((row) => row.chain === chain.name)?.lastBlock,
          }),
        ),
      ),
    );
  };
}

async function collectChain(
  chain: ChainContext,
  gauges: ScrapeGauges,
  known: { oldestPendingHash: string | undefined; accounts: Array<{ address: string; nextNonce: number }>; cardIndexBlock: number | undefined },
): Promise<void> {
  const [head, receipt, minedNonces] = await Promise.all([
    chain.client.getBlockNumber({ cacheTime: 0 }),
    known.oldestPendingHash ? chain.client.getTransactionReceipt({ hash: known.oldestPendingHash as Hash }).catch(() => undefined) : undefined,
    Promise.all(known.accounts.map((account) => chain.client.getTransactionCount({ address: account.address as Address, blockTag: 'latest' }))),
  ]);
  const labels = { chain: chain.name };
  gauges.chainHead.set(labels, Number(head));
  gauges.receiptLag.set(labels, receipt ? Math.max(0, Number(head - receipt.blockNumber)) : 0);
  // No cursor yet (no card contract on this chain): nothing to index, nothing behind.
  gauges.cardIndexLag.set(labels, known.cardIndexBlock === undefined ? 0 : Math.max(0, Number(head) - known.cardIndexBlock));
  known.accounts.forEach((account, index) => {
    gauges.nonceLag.set({ chain: chain.name, account: account.address }, Math.max(0, account.nextNonce - minedNonces[index]!));
  });
}

function withTimeout(work: Promise<void>): Promise<void> {
  return Promise.race([
    work,
    new Promise<void>((_, reject) => setTimeout(() => reject(new Error('timed out')), CHAIN_TIMEOUT_MS).unref()),
  ]);
}
