import type { ChainConfirmations } from '../config/config.ts';
import type { ChainContext } from './chains.ts';

/**
 * Whether a chain counts a block as final as soon as it is mined (depth 0): its transactions are
 * final with their receipt, and nothing waits for blocks on top.
 *
 * @example isInstant({ depth: 0 }) // true
 */
export function isInstant(rule: ChainConfirmations): boolean {
  return 'depth' in rule && rule.depth === 0;
}

/**
 * The highest block number the chain's rule counts as final now: the head (`head` when the caller
 * has just read it) less the depth, or the node's `safe`/`finalized` block. A block at or below it is confirmed if it is still the chain's
 * block at its height (the caller compares hashes after this read: a block replaced in between
 * is then seen as replaced).
 *
 * @example await confirmedHeight(chains.get('ethereum')) // 21_400_117n
 */
export async function confirmedHeight(chain: Pick<ChainContext, 'client' | 'confirmations'>, head?: bigint): Promise<bigint> {
  const rule = chain.confirmations;
  if ('tag' in rule) {
    const block = await chain.client.getBlock({ blockTag: rule.tag });
    return block.number ?? -1n;
  }
  return (head ?? (await chain.client.getBlockNumber({ cacheTime: 0 }))) - BigInt(rule.depth);
}

/**
 * Whether a receipt from block `blockNumber` with hash `blockHash` is final by the chain's rule:
 * within the confirmed height, and its block still the chain's (not replaced by a reorg).
 *
 * @example await isConfirmed(chain, { blockNumber: 120n, blockHash: receipt.blockHash })
 */
export async function isConfirmed(chain: Pick<ChainContext, 'client' | 'confirmations'>, block: { blockNumber: bigint; blockHash: string }): Promise<boolean> {
  if (isInstant(chain.confirmations)) return true;
  if (block.blockNumber > (await confirmedHeight(chain))) return false;
  const now = await chain.client.getBlock({ blockNumber: block.blockNumber }).catch(() => undefined);
  return now?.hash === block.blockHash;
}
