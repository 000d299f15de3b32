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
 * Until a chain is checked, nothing may be sent to it (`maySend`) once its node has left a call
 * unanswered or was restarted (`suspect`): a node back from a crash without its newest blocks
 * would otherwise mine a transaction that depends on one it lost (a member's send of a card whose
 * mint is gone) before the lost one is replayed, and the dependent one would revert. Such a chain
 * is checked at the next pass, not at the next interval. A node this process supervises reports
 * its own restarts (ManagedNode's `exited` and `restarted`); its check is a full `onRewind`.
 */
export class ChainRewindWatch {
  private readonly seen = new Map<string, { number: bigint; hash: Hash; checkedAt: number }>();
  /** Per chain: its unanswered calls when a check last cleared it (none yet: as many as now). */
  private readonly cleared = new Map<string, number>();
  /** Chains restarted or down since their last check, and how many times they were reported so. */
  private readonly suspects = new Map<string, number>();

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
    const unanswered = chain.unanswered.count;
    if (!chain.node) {
      const latest = await chain.client.getBlock({ blockTag: 'latest' });
      if (latest.number !== null && latest.hash !== null) this.seen.set(chain.name, { number: latest.number, hash: latest.hash, checkedAt: now });
    }
    this.cleared.set(chain.name, unanswered);
    this.suspects.delete(chain.name);
  }

  /** The node may have lost blocks (it was restarted, or is down): nothing is sent to it until it is checked. */
  suspect(chain: string): void {
    this.suspects.set(chain, (this.suspects.get(chain) ?? 0) + 1);
  }

  /** Whether transactions may be sent to the chain: its node answered every call since it was last checked. */
  maySend(chain: ChainContext): boolean {
    return !this.suspects.has(chain.name) && (this.cleared.get(chain.name) ?? chain.unanswered.count) === chain.unanswered.count;
  }

  /**
   * One check of each chain that is suspect, or whose last check is REWIND_CHECK_MS old (a
   * supervised node only when suspect); a node that does not answer is checked again next time.
   */
  async check(chains: ChainContext[], now = Date.now()): Promise<void> {
    await Promise.all(
      chains
        .filter((chain) => !this.maySend(chain) || (!chain.node && now - (this.seen.get(chain.name)?.checkedAt ?? 0) >= REWIND_CHECK_MS))
        .map(async (chain) => {
          // Held until the check passes; calls left unanswered, or a restart reported, during the
          // check keep it held.
          const unanswered = chain.unanswered.count;
          const suspected = this.suspects.get(chain.name);
          try {
            if (chain.node) await this.deps.onRewind(chain);
            else await this.checkChain(chain, now);
          } catch {
            return; // The node is down or the check failed: checked again at the next pass.
          }
          this.cleared.set(chain.name, unanswered);
          if (this.suspects.get(chain.name) === suspected) this.suspects.delete(chain.name);
        }),
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
