import { zeroAddress } from 'viem';
import { confirmedHeight } from '../../chain/confirmations.ts';
import { encodeCardCursor, type CardIndex } from '../../card-index/index.ts';
import type { Db } from '../../store/database.ts';
import type { CardOwnershipReader, ListOwnedCardsInput, OwnedCard } from './ownership.ts';
import { mintingAccounts } from './store.ts';

const INDEX_WAIT_MS = 3_000;

/**
 * The card query over the card index: keyset reads of the store instead of the chain's whole log
 * history. Contracts the index does not follow (any other NFT contract a BApp asks about) are read
 * from the chain by the fallback reader.
 */
export class IndexedCardOwnershipReader implements CardOwnershipReader {
  constructor(
    private readonly index: CardIndex,
    private readonly db: Db,
    private readonly fallback: CardOwnershipReader,
    /** Told why a followed contract was read from the chain after all (the index not there in time, a read failed). */
    private readonly onFallback: (error: Error) => void = () => {},
  ) {}

  async listOwnedCards(input: ListOwnedCardsInput): Promise<{ cards: OwnedCard[]; hasMore: boolean }> {
    const contract = input.contract.toLowerCase();
    const followed = await this.index.follows(input.chain.name, contract);
    if (!followed) return this.fallback.listOwnedCards(input);
    // Answer as of the chain's confirmed head now: a card sent a moment ago, once final, is already where it went.
    try {
      const confirmed = await confirmedHeight(input.chain);
      if (confirmed >= 0n) await this.index.waitUntilIndexed(input.chain.name, confirmed, { timeoutMs: INDEX_WAIT_MS });
    } catch (error) {
      this.onFallback(error as Error);
      return this.fallback.listOwnedCards(input);
    }

    const page = await this.index.listByOwner({
      chain: input.chain.name,
      owner: input.owner,
      contract,
      limit: input.limit,
      ...(input.afterCardId !== null
        ? { cursor: encodeCardCursor({ contract, tokenId: Number(input.afterCardId) }) }
        : {}),
    });
    const minters = await mintingAccounts(this.db, page.cards.flatMap((card) => (card.sender === zeroAddress && card.mintTxHash ? [card.mintTxHash] : [])));
    const cards = page.cards.map<OwnedCard>((card) => ({
      cardId: BigInt(card.tokenId),
      owner: card.owner,
      // A card never transferred came from whoever minted it, as the chain reader answers.
      sender: card.sender === zeroAddress && card.mintTxHash ? (minters.get(card.mintTxHash) ?? zeroAddress) : card.sender,
      mintTransactionHash: card.mintTxHash ?? card.lastTxHash,
      createdAt: card.mintedAt ?? card.updatedAt,
      updatedAt: card.updatedAt,
    }));
    return { cards, hasMore: page.nextCursor !== '' };
  }
}
