import Type, { type Static } from 'typebox';

import { Sha256Hex } from '../../http/schema.ts';

/** A1 body. */
export const SignInBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254 }),
    /** SHA-256 hex of the sign-up password. */
    password: Sha256Hex,
  },
  { additionalProperties: true },
);
export type SignInBody = Static<typeof SignInBody>;

/** A1 answer: the partner account object of the specification. */
export const PartnerAccount = Type.Object({
  email: Type.String(),
  main_address: Type.String(),
  contract_address: Type.String(),
  name: Type.String(),
  phone: Type.String(),
  service_name: Type.String(),
  access_token: Type.String(),
  status: Type.Integer(),
  mint_limit: Type.Integer(),
  mint_count: Type.Integer(),
});
export type PartnerAccount = Static<typeof PartnerAccount>;
