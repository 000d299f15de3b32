import Type, { type Static, type TSchema } from 'typebox';
import { MAX_NFT_ID } from '../ids.ts';

/** A card of the A12 and A13 lists: the Card table of the specification without owner and sender. */
export const ListedCard = Type.Object({
  /** Epoch seconds of the block that minted the card. */
  created_at: Type.Integer(),
  /** Epoch seconds of the block of the card's latest transfer (its mint, if it never moved). */
  updated_at: Type.Integer(),
  card_id: Type.Integer(),
  card_uri: Type.String(),
  /** The minting transaction. */
  transaction_hash: Type.String(),
});
export type ListedCard = Static<typeof ListedCard>;

/** A12 query. */
export const BappListQuery = Type.Object({
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
});

/** One entry of A12: a card contract of this service the partner holds cards of. */
export const BappEntry = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  bapp_img: Type.String(),
  category_id: Type.Integer(),
  nft_order_no: Type.Integer(),
  summary: Type.String(),
  card_count: Type.Integer(),
  nft_id: Type.Integer(),
  cards: Type.Array(ListedCard),
  cards_next_cursor: Type.String(),
});
export type BappEntry = Static<typeof BappEntry>;

/** A12 answer. */
export const BappListAnswer = Type.Object({
  bapps: Type.Array(BappEntry),
  next_cursor: Type.String(),
});
export type BappListAnswer = Static<typeof BappListAnswer>;

/** A13 path. Ids outside this range are answered 400, unknown ids in it 404. */
export const NftCardListParams = Type.Object({
  nft_id: Type.Integer({ minimum: 0, maximum: MAX_NFT_ID }),
});

/**
 * A13 query: `isAll` is `true` or `false` in any case (the specification writes `TRUE`; Python's
 * requests sends `True`), and `isAll=true` takes no cursor.
 */
export const NftCardListQuery = Type.Object({
  isAll: Type.Optional(Type.String({ pattern: '^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$' })),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page, or cards_next_cursor of A12' })),
});

/** A page of one card contract's cards (A13, A18): the contract's name and image, cards, next_cursor. */
export function contractCardPage<Card extends TSchema>(card: Card) {
  return Type.Object({
    name: Type.String(),
    symbol_img: Type.String(),
    cards: Type.Array(card),
    next_cursor: Type.String(),
  });
}

/** A13 answer. */
export const NftCardListAnswer = contractCardPage(ListedCard);
export type NftCardListAnswer = Static<typeof NftCardListAnswer>;
