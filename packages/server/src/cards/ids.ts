import Type from 'typebox';

/** Largest nft_id: the store keeps card contracts' ids as 32-bit integers (PostgreSQL `integer`). */
export const MAX_NFT_ID = 2_147_483_647;

/**
 * A card id in a request: a positive integer that a JSON number holds exactly. Larger ids would be
 * rounded to another card before anything could check them (the service mints ids from 1 upwards).
 */
export const CardId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

/** An nft_id in a path: the id of a card contract in the store. */
export const NftId = Type.Integer({ minimum: 1, maximum: MAX_NFT_ID });

/** The `:nft_id/:card_id` of a card's paths (A10, A11, its metadata, the holder's view). */
export const CardPath = Type.Object({ nft_id: NftId, card_id: CardId });
