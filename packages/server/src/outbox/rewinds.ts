import type { Hash } from 'viem';
import type { ChainContext } from '../chain/chains.ts';

/** How often each chain's head is compared with the one seen before. */
export const REWIND_CHECK_MS = 1_000;
/** Receipts recorded above the height seen last that one check compares with the chain; a full page is verified whole by `onRewind`. */
const RECORDED_PAGE = 500;

/** A receipt the store recorded: the block it was mined in. */
export interface RecordedBlock {
  block_number: number | null;
  block_hash: string | null;
}

/**
 * Notices a node that lost blocks the outbox recorded receipts from: an external node restarted
 * from an older state (a crash before its last state dump), or a reorganisation. The head seen last
 * is remembered; when the chain's block at that height is gone or another, or when a receipt
 * recorded since (by any process) names a block the chain no longer has, `onRewind` runs (it checks
 * the recorded receipts and replays what was lost).
 *
 * The second check matters: a node killed moments after the last check, restarted from a dump made
 * after it, keeps the block seen last but loses those mined since; by the next check it may have
 * mined past the height again, so only the receipts recorded from the lost blocks tell.
 *
 * A node this process supervises reports its restarts itself (ManagedNode's `restarted`), so only
 * other chains are watched.
 */
export class ChainRewindWatch {
  private readonly seen = new Map<string, { number: bigint; hash: Hash; checkedAt: number }>();

  constructor(
    private readonly deps: {
      onRewind(chain: ChainContext): Promise<unknown>;
      /** The blocks of the chain's receipts recorded above a height, at most `limit`. */
      recordedAbove(chain: string, blockNumber: number, limit: number): Promise<RecordedBlock[]>;
    },
  ) {}

  /**
   * Takes the chain's head as the one seen last, before the first full check of the recorded
   * receipts (TransactionOutbox.start): whatever the node loses from then on is noticed.
   */
  async remember(chain: ChainContext, now = Date.now()): Promise<void> {
    if (chain.node) return;
    const latest = await chain.client.getBlock({ blockTag: 'latest' });
    if (latest.number !== null && latest.hash !== null) this.seen.set(chain.name, { number: latest.number, hash: latest.hash, checkedAt: now });
  }

  /** One check of each chain whose last check is REWIND_CHECK_MS old; a node that does not answer is checked next time. */
  async check(chains: ChainContext[], now = Date.now()): Promise<void> {
    await Promise.all(
      chains
        .filter((chain) => !chain.node && now - (this.seen.get(chain.name)?.checkedAt ?? 0) >= REWIND_CHECK_MS)
        .map((chain) => this.checkChain(chain, now).catch(() => {})),
    );
  }

  private async checkChain(chain: ChainContext, now: number): Promise<void> {
    // The head is read first: a receipt recorded after this read is of a block at or below it, or
    // is checked at the next pass.
    const latest = await chain.client.getBlock({ blockTag: 'latest' });
    const before = this.seen.get(chain.name);
    let rewound = false;
    if (before && latest.number !== null && latest.hash !== null) {
      if (latest.number < before.number) rewound = true;
      else if (latest.number === before.number) rewound = latest.hash !== before.hash;
      else {
        const then = await chain.client.getBlock({ blockNumber: before.number }).catch(() => undefined);
        rewound = then?.hash !== before.hash;
      }
      if (!rewound) rewound = await this.lostSince(chain, before.number);
    }
    if (rewound) await this.deps.onRewind(chain);
    if (latest.number !== null && latest.hash !== null) this.seen.set(chain.name, { number: latest.number, hash: latest.hash, checkedAt: now });
  }

  /** Whether a receipt recorded above `height` names a block the chain no longer has (the blocks up to it are known intact). */
  private async lostSince(chain: ChainContext, height: bigint): Promise<boolean> {
    const recorded = await this.deps.recordedAbove(chain.name, Number(height), RECORDED_PAGE);
    if (recorded.length >= RECORDED_PAGE) return true;
    const hashes = new Map<number, Set<string>>();
    for (const { block_number: number, block_hash: hash } of recorded) {
      if (number === null || hash === null) continue;
      hashes.set(Number(number), (hashes.get(Number(number)) ?? new Set()).add(hash));
    }
    const blocks = await Promise.all(
      [...hashes.keys()].map((number) => chain.client.getBlock({ blockNumber: BigInt(number) }).then((block) => block.hash, () => undefined)),
    );
    return [...hashes.values()].some((held, index) => [...held].some((hash) => hash !== blocks[index]));
  }
}
