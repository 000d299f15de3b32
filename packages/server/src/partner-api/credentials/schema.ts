import Type, { type Static } from 'typebox';
import { failureText, Sha256Hex } from '../../http/schema.ts';

/** A2 and A3 answer an empty object. */
export { EmptyAnswer } from '../../http/schema.ts';
import { secret } from '../../lib/secret.ts';

/** A2 query: `opt=password` is the only option. */
export const PasswordChangeQuery = Type.Object({ opt: Type.Literal('password') }, { additionalProperties: true });

/** A2 body: old and new password, SHA-256 hex as in A1. */
export const PasswordChangeBody = Type.Object(
  { old_password: secret(Sha256Hex), new_password: secret(Sha256Hex) },
  { additionalProperties: true },
);
export type PasswordChangeBody = Static<typeof PasswordChangeBody>;

/** A3 body: old and new PIN, 64-character SHA-256 hex. */
export const PinChangeBody = Type.Object({ old_pin: secret(Sha256Hex), new_pin: secret(Sha256Hex) }, { additionalProperties: true });
export type PinChangeBody = Static<typeof PinChangeBody>;

/** A2's and A3's failures outside the listed codes. */
export const PasswordChangeFailure = failureText('failed to change password');
export const PinChangeFailure = failureText('failed to change PIN');
