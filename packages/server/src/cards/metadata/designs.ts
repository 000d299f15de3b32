import { cardNftAbi } from '@wallet-service/contracts';
import type { Address } from 'viem';
import type { Store } from '../../store/database.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { CardDesignRow } from '../../store/schema.ts';
import type { CardMetadata, SecurePayload } from '../mint/payload.ts';
import { findMintedBatchDesign, listIndexedCardsNaming } from './store.ts';

export interface MintedCardDesign {
  design: CardDesignRow;
  metadata: CardMetadata;
  secure: SecurePayload | null;
  /** The mint transaction of the card. */
  mintTxHash: string;
}

/**
 * The design a card was minted with: the minted batch of its contract whose id range holds the
 * card (batches of one contract never overlap, so the last one starting at or before it is the
 * only candidate). Undefined for a card that no mint of ours made.
 */
export async function findMintedCardDesign(deps: { store: Store }, contract: { chain: string; address: string }, cardId: number): Promise<MintedCardDesign | undefined> {
  if (!Number.isSafeInteger(cardId) || cardId < 1) return undefined;
  const row = await findMintedBatchDesign(deps.store.db, contract, cardId);
  if (!row || row.first_token_id === null || cardId >= Number(row.first_token_id) + Number(row.card_count)) return undefined;
  const { first_token_id: _first, card_count: _count, tx_hash, ...design } = row;
  return {
    design,
    metadata: JSON.parse(design.metadata) as CardMetadata,
    secure: design.secure ? (JSON.parse(design.secure) as SecurePayload) : null,
    mintTxHash: tx_hash ?? '',
  };
}

/** The current holder of a card as the chain says (the source of truth); undefined when it does not exist (never minted or burned). */
export async function chainHolderOf(deps: { chains: ChainRegistry }, contract: { chain: string; address: string }, cardId: number): Promise<Address | undefined> {
  try {
    const owner = await deps.chains.get(contract.chain).client.readContract({
      address: contract.address as Address,
      abi: cardNftAbi,
      functionName: 'ownerOf',
      args: [BigInt(cardId)],
    });
    return owner.toLowerCase() as Address;
  } catch (error) {
    if ((error as Error).name === 'ContractFunctionExecutionError') return undefined;
    throw error;
  }
}

/**
 * Whether `address` holds, on chain, a card whose design's `secure` object names `fileName` (an
 * A6 upload). The index finds the candidate cards; the chain confirms the one that counts.
 */
export async function holdsCardNaming(deps: { store: Store; chains: ChainRegistry }, address: string, fileName: string): Promise<boolean> {
  const candidates = await listIndexedCardsNaming(deps.store.db, address, fileName, 5);
  for (const card of candidates) {
    const holder = await chainHolderOf(deps, { chain: card.chain, address: card.contract }, Number(card.token_id));
    if (holder === address.toLowerCase()) return true;
  }
  return false;
}
