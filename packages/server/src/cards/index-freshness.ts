import type { ChainRegistry } from '../chain/chains.ts';
import { confirmedHeight } from '../chain/confirmations.ts';
import type { CardIndex } from '../card-index/index.ts';
import type { Logger } from 'pino';

/** How long a reader waits for the card index to reach the chain's head before answering from what it has. */
const INDEX_WAIT_MS = 3_000;

/**
 * Lets the card index reach the chain's confirmed head first (one pass of the indexer at most), so a
 * card whose mint or transfer the caller has just seen final is already where it went. Mints and
 * sends answer once mined, without waiting for the index; what reads the index (the lists, the
 * holder's secure files) calls this instead. When the node or the index is slow, the reader
 * answers from what the index holds.
 */
export async function catchUpWithChain(deps: { chains: ChainRegistry; cardIndex: CardIndex; log: Logger }, chainName: string): Promise<void> {
  try {
    const confirmed = await confirmedHeight(deps.chains.get(chainName));
    if (confirmed >= 0n) await deps.cardIndex.waitUntilIndexed(chainName, confirmed, { timeoutMs: INDEX_WAIT_MS });
  } catch (error) {
    deps.log.warn(`card index on ${chainName} read as it stands: ${(error as Error).message}`);
  }
}
