import Type from 'typebox';
import { secret } from '../../lib/secret.ts';

/** The region a national phone number is written in, as the wallet app's country picker sends it. */
export const PhoneCountry = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 region of a national phone number (`010-1234-5678` with KR); default `phoneDefaultCountry`' });

/** The regions the country picker offers, and the service's default. */
export const PhoneCountries = Type.Object({
  default_country: Type.String({ description: '`phoneDefaultCountry`: the region a phone without one is read in' }),
  countries: Type.Array(Type.Object({ country: Type.String({ description: 'ISO 3166-1 alpha-2' }), calling_code: Type.String({ description: 'without the +' }) })),
});

const Sha256Hex = (description: string) => Type.String({ pattern: '^[0-9a-fA-F]{64}$', description });

/** Sign-up in the wallet app. */
export const SignUpBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'legal name' }),
  phone: Type.String({ minLength: 4, maxLength: 32, description: 'E.164, or national in `phone_country` (else `phoneDefaultCountry`)' }),
  phone_country: Type.Optional(PhoneCountry),
  email: Type.String({ minLength: 3, maxLength: 254 }),
  password: secret(Sha256Hex('SHA-256 hex of the password')),
  birth: Type.String({ maxLength: 10, description: 'YYYY-MM-DD' }),
  pin: secret(Sha256Hex('SHA-256 hex of the 6-digit PIN')),
});

/** A PIN change: both as SHA-256 hex. */
export const PinChangeBody = Type.Object({ old_pin: secret(Sha256Hex('SHA-256 hex of the current PIN')), new_pin: secret(Sha256Hex('SHA-256 hex of the new PIN')) });

export const PinState = Type.Object({
  failures: Type.Integer({ description: 'wrong PINs in a row' }),
  max_failures: Type.Integer({ description: 'wrong PINs in a row that lock signing' }),
  locked: Type.Boolean({ description: 'signing is locked (403) until the operator runs `user unlock --email E`' }),
});
