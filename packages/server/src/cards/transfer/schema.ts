import Type from 'typebox';
import { Sha256Hex } from '../../http/schema.ts';
import { Address } from '../mint/payload.ts';
import { CardId } from '../ids.ts';
import { secret } from '../../lib/secret.ts';

/** A10 body. `card_name` is required by the specification; it names the card in messages. */
export const SendCardBody = Type.Object(
  { pin: secret(Sha256Hex), to_address: Address, card_name: Type.String({ minLength: 1, maxLength: 255 }) },
  { additionalProperties: true },
);

/** A14 body. */
export const DeleteCardBody = Type.Object(
  { pin: secret(Sha256Hex), card_id: CardId, contract_address: Address },
  { additionalProperties: true },
);

/** A10, A11 and A14 answer the transaction hash, like A7. */
export const HashAnswer = Type.Object({ hash: Type.String() });
