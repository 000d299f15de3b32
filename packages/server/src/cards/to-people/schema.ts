import Type from 'typebox';
import { Sha256Hex } from '../../http/schema.ts';
import { MintDesignFields } from '../mint/payload.ts';
import { secret } from '../../lib/secret.ts';

/** One `[name, phone]` pair (either order when only one is a phone number; people/person.ts checks it). */
const PersonPair = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 2, maxItems: 2 });

/** A8 body: the card mint payload with `to_person`. */
export function mintToPersonBody(maxRecipients: number) {
  return Type.Object(
    { ...MintDesignFields, to_person: Type.Array(PersonPair, { minItems: 1, maxItems: maxRecipients }) },
    { additionalProperties: true },
  );
}

/** A11 body: `to_person` is one pair. */
export const SendToPersonBody = Type.Object(
  { pin: secret(Sha256Hex), to_person: PersonPair, card_name: Type.String({ minLength: 1, maxLength: 255 }) },
  { additionalProperties: true },
);
