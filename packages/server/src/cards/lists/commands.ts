import { InvalidCardCursorError, MAX_PAGE_SIZE, type CardPage, type IndexedCard, type ListCardsByOwnerInput } from '../../card-index/index.ts';
import { AppError } from '../../errors/app-error.ts';
import type { Config } from '../../config/config.ts';
import type { Db, Store } from '../../store/database.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { CardIndex } from '../../card-index/index.ts';
import type { Logger } from 'pino';
import type { PartnerRow } from '../../store/schema.ts';
import { cardUri } from '../card-uri.ts';
import { catchUpWithChain } from '../index-freshness.ts';
import { decodeBappCursor, encodeBappCursor } from './bapp-cursor.ts';
import { findNftContract } from '../store.ts';
import { countHeldBappsThrough, listHeldBapps } from './store.ts';
import type { BappEntry, BappListAnswer, ListedCard, NftCardListAnswer } from './schema.ts';
import { Errors } from '../../errors/codes.ts';

/** Page size of A12 (BApps, and cards per BApp) and A13. */
export const LIST_PAGE_SIZE = 100;

/**
 * A12: the card contracts of this service whose cards the holder's address holds (a partner's, or a member's in the wallet app), as the card
 * index says, by nft_id, `pageSize` (100) BApps a page. Each entry carries the first 100 of its
 * cards and, when more remain, `cards_next_cursor` to continue with A13. Cards in escrow are held by
 * the escrow contract, so they are not here (A18 lists them).
 */
export async function listPartnerBapps(
  deps: { config: Readonly<Config>; store: Store; chains: ChainRegistry; cardIndex: CardIndex; log: Logger },
  holder: Pick<PartnerRow, 'main_address'>,
  input: { cursor?: string | undefined; pageSize?: number },
): Promise<BappListAnswer> {
  const pageSize = input.pageSize ?? LIST_PAGE_SIZE;
  const afterNftId = input.cursor ? decodeBappCursor(input.cursor) : undefined;
  const chains = deps.chains.all().map((chain) => chain.name);
  await Promise.all(chains.map((chain) => catchUpWithChain(deps, chain)));

  const owner = holder.main_address.toLowerCase();
  // One moment's reads: each entry's card_count and its cards agree, as a card moved in between
  // would otherwise show a count beside a list it does not count.
  const { bapps, more, shownBefore, pages } = await deps.store.readSnapshot(async (db) => {
    const held = await listHeldBapps(db, { owner, chains, afterNftId, limit: pageSize });
    return {
      ...held,
      shownBefore: afterNftId === undefined ? 0 : await countHeldBappsThrough(db, { owner, chains, nftId: afterNftId }),
      pages: await Promise.all(held.bapps.map((bapp) => listCards(deps, { chain: bapp.chain, owner, contract: bapp.contract, limit: LIST_PAGE_SIZE }, db))),
    };
  });
  const entries = bapps.map((bapp, index): BappEntry => {
    const page = pages[index]!;
    return {
      id: bapp.nftId,
      name: bapp.serviceName,
      bapp_img: cardImage(deps, bapp.contract),
      category_id: 0,
      nft_order_no: shownBefore + index + 1,
      summary: bapp.serviceName,
      card_count: bapp.cardCount,
      nft_id: bapp.nftId,
      cards: page.cards.map((card) => listedCard(deps, bapp.nftId, card)),
      cards_next_cursor: page.nextCursor,
    };
  });
  const last = bapps.at(-1);
  return { bapps: entries, next_cursor: more && last ? encodeBappCursor(last.nftId) : '' };
}

/**
 * A13: the cards of card contract `nftId` that the holder's address holds (a partner's or a member's), as the card index
 * says, by card id ascending: 100 a page after `cursor` (A13's next_cursor or A12's
 * cards_next_cursor), or every one at once with `isAll` (then next_cursor is ''). Refusals: 404 for
 * an nft_id that is not a deployed card contract of this service; 400 for `isAll` with a cursor, and
 * for a cursor that is not a card cursor of this contract.
 */
export async function listPartnerNftCards(
  deps: { config: Readonly<Config>; store: Store; chains: ChainRegistry; cardIndex: CardIndex; log: Logger },
  holder: Pick<PartnerRow, 'main_address'>,
  input: { nftId: number; cursor?: string | undefined; isAll?: boolean | undefined },
): Promise<NftCardListAnswer> {
  const contract = await findNftContract(deps.store.db, input.nftId);
  if (!contract?.address || !deps.chains.has(contract.chain)) throw new AppError(Errors.NotFound);
  if (input.isAll && input.cursor) throw new AppError(Errors.BadRequest, { detail: 'isAll cannot be used with cursor' });
  await catchUpWithChain(deps, contract.chain);

  const query = { chain: contract.chain, owner: holder.main_address.toLowerCase(), contract: contract.address };
  let cards: IndexedCard[];
  let nextCursor: string;
  if (input.isAll) {
    // Every page as of one moment: a card moved between two pages' reads would show twice or not at all.
    cards = await deps.store.readSnapshot(async (db) => {
      const all: IndexedCard[] = [];
      let cursor: string | undefined;
      do {
        const page = await listCards(deps, { ...query, cursor, limit: MAX_PAGE_SIZE }, db);
        all.push(...page.cards);
        cursor = page.nextCursor;
      } while (cursor);
      return all;
    });
    nextCursor = '';
  } else {
    ({ cards, nextCursor } = await listCards(deps, { ...query, cursor: input.cursor, limit: LIST_PAGE_SIZE }));
  }
  return {
    name: contract.name,
    symbol_img: cardImage(deps, contract.address),
    cards: cards.map((card) => listedCard(deps, Number(contract.id), card)),
    next_cursor: nextCursor,
  };
}

/** The card index's keyset page (read through `db` when given: a snapshot the caller holds); its cursor refusals become 400. */
export async function listCards(deps: { cardIndex: CardIndex }, input: ListCardsByOwnerInput, db?: Db): Promise<CardPage> {
  try {
    return await deps.cardIndex.listByOwner(input, db);
  } catch (error) {
    if (error instanceof InvalidCardCursorError) throw new AppError(Errors.BadRequest, { detail: error.message, cause: error });
    throw error;
  }
}

export function listedCard(deps: { config: Readonly<Config> }, nftId: number, card: IndexedCard): ListedCard {
  return {
    created_at: card.mintedAt ?? card.updatedAt,
    updated_at: card.updatedAt,
    card_id: card.tokenId,
    card_uri: cardUri(deps.config.publicUrl, nftId, card.tokenId),
    transaction_hash: card.mintTxHash ?? card.lastTxHash,
  };
}

/** The image configured for a card contract (`a2a.cardImages`, shared with B4's symbol_img), or ''. */
export function cardImage(deps: { config: Readonly<Config> }, contract: string): string {
  return deps.config.a2a.cardImages[contract.toLowerCase()] ?? '';
}
