import Type from 'typebox';
import { SecurePayload } from '../mint/payload.ts';
import { CardMetadataDocument } from '../metadata/schema.ts';
import { secret } from '../../lib/secret.ts';

/** The holder's view of a card: its metadata with `secure`, and what its status_url says now (or why it could not be read). */
export const HeldCardView = Type.Object({
  nft_id: Type.Integer(),
  card_id: Type.Integer(),
  card_uri: Type.String(),
  transaction_hash: Type.String({ description: 'the minting transaction' }),
  bapp_name: Type.String({ description: "the BApp the card belongs to: its partner's service name, as the card lists group it" }),
  metadata: CardMetadataDocument,
  secure: secret(Type.Union([SecurePayload, Type.Null()], { description: 'shown only to the holder' })),
  status: Type.Optional(
    Type.Object({ valid: Type.Boolean(), attributes: Type.Optional(Type.Array(Type.Unknown())) }, { description: "the status_url's answer" }),
  ),
  status_error: Type.Optional(Type.String({ description: 'why the status_url could not be read' })),
});
