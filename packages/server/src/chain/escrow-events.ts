import { parseEventLogs, type Address, type Hex } from 'viem';
import { cardEscrowAbi } from '@wallet-service/contracts';
import type { ChainRegistry } from './chains.ts';
import { finalReceipt } from './final-receipt.ts';

/**
 * The card ids an escrow transaction moved for one card contract, as its receipt's `Deposited` or
 * `Canceled` logs from that escrow say (the escrow skips cards it refuses, so the call's list may be longer).
 */
export async function escrowedTokenIds(
  deps: { chains: Pick<ChainRegistry, 'get'> },
  input: { chain: string; txHash: Hex; escrow: string; contract: string; eventName: 'Deposited' | 'Canceled' },
): Promise<Set<number>> {
  const receipt = await finalReceipt(deps.chains.get(input.chain), input.txHash);
  const escrow = input.escrow.toLowerCase();
  const logs = receipt.logs.filter((log) => log.address.toLowerCase() === escrow);
  const events = parseEventLogs({ abi: cardEscrowAbi, logs, eventName: input.eventName });
  return new Set(events.filter((event) => (event.args.nft as Address).toLowerCase() === input.contract.toLowerCase()).map((event) => Number(event.args.tokenId)));
}
