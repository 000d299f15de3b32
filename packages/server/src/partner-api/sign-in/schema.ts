import Type, { type Static } from 'typebox';

import { failureText, Sha256Hex } from '../../http/schema.ts';
import { secret } from '../../lib/secret.ts';

/** A1 body. */
export const SignInBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254 }),
    /** SHA-256 hex of the sign-up password. */
    password: secret(Sha256Hex),
  },
  { additionalProperties: true },
);
export type SignInBody = Static<typeof SignInBody>;

/** A1 answer: the partner account object of the specification. */
export const PartnerAccount = Type.Object(
  {
  email: Type.String(),
  main_address: Type.String(),
  contract_address: Type.String(),
  name: Type.String(),
  phone: Type.String(),
  service_name: Type.String(),
  access_token: secret(Type.String()),
  status: Type.Integer(),
  mint_limit: Type.Integer(),
  mint_count: Type.Integer(),
  },
  {
    examples: [
      {
        email: 'partner@example.com',
        main_address: '0x5b38da6a701c568545dcfcb03fcb875f56beddc4',
        contract_address: '0xab8483f64d9c6d1ecf9b849ae677dd3315835cb2',
        name: 'Example Corp.',
        phone: '+82-2-0000-0000',
        service_name: 'Example BApp',
        access_token: 'eyJhbGciOiJFUzI1NiJ9.…',
        status: 1,
        mint_limit: 10000,
        mint_count: 120,
      },
    ],
  },
);
export type PartnerAccount = Static<typeof PartnerAccount>;

/** A1's failure outside the listed codes. */
export const SignInFailure = failureText('failed to sign in');
