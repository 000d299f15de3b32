import type { Services } from '../services.ts';

/** How long a reader waits for the card index to reach the chain's head before answering from what it has. */
const INDEX_WAIT_MS = 3_000;

/**
 * Lets the card index reach the chain's current head first (one pass of the indexer at most), so a
 * card whose mint or transfer receipt the caller has just seen is already where it went. Mints and
 * sends answer once mined, without waiting for the index; what reads the index (the lists, the
 * holder's secure files) calls this instead. When the node or the index is slow, the reader
 * answers from what the index holds.
 */
export async function catchUpWithChain(services: Services, chainName: string): Promise<void> {
  try {
    const head = await services.chains.get(chainName).client.getBlockNumber({ cacheTime: 0 });
    await services.cardIndex.waitUntilIndexed(chainName, head, { timeoutMs: INDEX_WAIT_MS });
  } catch (error) {
    services.log.warn(`card index on ${chainName} read as it stands: ${(error as Error).message}`);
  }
}
