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
export const MintAnswer = Type.Object({
  hash: Type.String(),
  hashes: Type.Array(Type.String()),
  card_ids: Type.Array(Type.Union([Type.Integer(), Type.Null()])),
  minted_count: Type.Integer(),
  fail_count: Type.Integer(),
});
export type MintAnswer = Static<typeof MintAnswer>;

/** A9 answer. */
export const MintCountAnswer = Type.Object({ mint_count: Type.Integer() });
