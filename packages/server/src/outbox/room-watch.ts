import type { ChainRegistry } from '../chain/chains.ts';
import type { OutboxRow } from '../store/schema.ts';
import type { Broadcaster } from './broadcast.ts';
import { minedNonceCounts } from './receipts.ts';

/**
 * How often, while transactions wait for room in their account's send window, the chain's head is
 * looked at: a block mined makes room, and a pass (pollIntervalMs, and as long as recording a full
 * block's receipts takes) would learn of it too late to fill the next block.
 */
export const ROOM_WATCH_MS = 50;

/**
 * Between passes, reads the mined nonce counts of the accounts with transactions waiting for room
 * once their chain has a new block, so that those that now fit go at once. One eth_blockNumber a
 * chain per look while something waits, the counts only when the head moved; nothing otherwise.
 */
export class RoomWatch {
  /** The head last seen per chain, while something of it waits. */
  private readonly heads = new Map<string, bigint>();

  constructor(
    private readonly deps: {
      chains: Pick<ChainRegistry, 'get'>;
      broadcaster: Pick<Broadcaster, 'waitingAccounts' | 'minedCount'>;
    },
  ) {}

  async check(): Promise<void> {
    const { chains, broadcaster } = this.deps;
    const byChain = new Map<string, Array<Pick<OutboxRow, 'chain' | 'from_address'>>>();
    for (const account of broadcaster.waitingAccounts()) {
      const accounts = byChain.get(account.chain);
      if (accounts) accounts.push(account);
      else byChain.set(account.chain, [account]);
    }
    for (const name of this.heads.keys()) if (!byChain.has(name)) this.heads.delete(name);
    if (byChain.size === 0) return;
    const moved = await Promise.all(
      [...byChain].map(async ([name, accounts]) => {
        // A node that does not answer is the pass's business.
        const head = await chains.get(name).client.getBlockNumber({ cacheTime: 0 }).catch(() => undefined);
        if (head === undefined || head === this.heads.get(name)) return [];
        this.heads.set(name, head);
        return accounts;
      }),
    );
    const counts = await minedNonceCounts(chains, moved.flat());
    for (const [account, count] of counts) broadcaster.minedCount(account, count);
  }
}
