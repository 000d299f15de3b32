import Type from 'typebox';

/** Schemas shared by routes of several resources. */

/** SHA-256 hex as clients send passwords and PINs (either case). */
export const Sha256Hex = Type.String({ pattern: '^[0-9a-fA-F]{64}$' });
