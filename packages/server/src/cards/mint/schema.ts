import Type, { type Static } from 'typebox';
import { Address, MintDesignFields } from './payload.ts';

/** A7 body: the card mint payload with `to_address`. */
export function mintToAddressBody(maxRecipients: number) {
  return Type.Object(
    { ...MintDesignFields, to_address: Type.Array(Address, { minItems: 1, maxItems: maxRecipients }) },
    { additionalProperties: true },
  );
}
export type MintToAddressBody = Static<ReturnType<typeof mintToAddressBody>>;

/**
 * A7/A8 answer. `hash` as the specification has it (the first mint transaction), then what a
 * partial failure needs: every transaction, the card id per recipient (null where not minted),
 * and the counts. `fail_count` > 0 says the mint failed part of the way.
 */
export const MintAnswer = Type.Object(
  {
    hash: Type.String(),
    hashes: Type.Array(Type.String()),
    card_ids: Type.Array(Type.Union([Type.Integer(), Type.Null()])),
    minted_count: Type.Integer(),
    fail_count: Type.Integer(),
  },
  {
    examples: [
      {
        hash: '0x9f0c4b3ad1e5f2a7c8b6d4e2f1a3c5b7d9e0f2a4c6b8d0e2f4a6c8b0d2e4f6a8',
        hashes: ['0x9f0c4b3ad1e5f2a7c8b6d4e2f1a3c5b7d9e0f2a4c6b8d0e2f4a6c8b0d2e4f6a8'],
        card_ids: [101, 102],
        minted_count: 2,
        fail_count: 0,
      },
    ],
  },
);
export type MintAnswer = Static<typeof MintAnswer>;

/** A9 answer. */
export const MintCountAnswer = Type.Object({ mint_count: Type.Integer() });
