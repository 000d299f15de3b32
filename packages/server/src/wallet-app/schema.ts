import Type from 'typebox';

/** Member sign-in. */
export const SignInBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 254 }),
  password: Type.String({ description: 'SHA-256 hex of the password' }),
});
/** A PIN that is not SHA-256 hex is a client's mistake (400), not a guess: it is not counted. */
export const ApproveBody = Type.Object({ pin: Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'SHA-256 hex of the PIN' }) });
export const RequestKeyParams = Type.Object({ request_key: Type.String() });
