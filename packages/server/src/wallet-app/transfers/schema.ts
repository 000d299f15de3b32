import Type from 'typebox';
import { Address } from '../../cards/mint/payload.ts';
import { Sha256Hex } from '../../http/schema.ts';
import { secret } from '../../lib/secret.ts';
import { PhoneCountry } from '../members/schema.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** What to send: the chain's coin, or an ERC-20 (`token`), to an address or to a person by name and phone. */
export const TransferFields = {
  chain: Type.String({ maxLength: 32 }),
  token: Type.Optional(Type.Union([Address, Type.Null()], { description: "an ERC-20 contract; absent or null: the chain's coin" })),
  amount: Type.String({ pattern: '^[0-9]{1,40}(\\.[0-9]{1,36})?$', description: 'whole coins or tokens, decimal (`1.5`)' }),
  to_address: Type.Optional(Address),
  to_person: Type.Optional(
    Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), phone: Type.String({ minLength: 6, maxLength: 32 }), phone_country: Type.Optional(PhoneCountry) }),
  ),
};

export const QuoteBody = Type.Object(TransferFields);

export const SendBody = Type.Object({
  ...TransferFields,
  pin: secret(Sha256Hex),
  idempotency_key: Type.String({ minLength: 8, maxLength: 100, pattern: '^[A-Za-z0-9_.:-]+$', description: 'one per send the member means: a retry with the same key and body answers the same transaction; another body with it is 4090' }),
});

/** The checked send before the PIN: what leaves, the fee, and the balances after. */
export const Quote = Type.Object({
  chain: Type.String(),
  ticker: Type.String({ description: "the chain's coin, which pays the fee" }),
  decimals: Type.Integer({ description: "the chain's coin decimals" }),
  token: Type.Union([Type.Object({ contract: Type.String(), symbol: NullableString, decimals: Type.Integer() }), Type.Null()]),
  to_address: Type.String({ description: 'where it goes (a person: their member wallet, or the wallet kept for them)' }),
  units: Type.String({ description: 'the amount in smallest units, decimal' }),
  fee: Type.String({ description: 'the likely fee, wei: estimated gas times the gas price now' }),
  max_fee: Type.String({ description: 'the most the fee may cost, wei: what the balance must cover' }),
  balance: Type.String({ description: "the coin balance now, wei" }),
  token_balance: Type.Union([Type.String(), Type.Null()], { description: 'the token balance now, smallest units' }),
});

export const Sent = Type.Object({
  hash: Type.String({ description: 'the mined transaction' }),
  chain: Type.String(),
  token: NullableString,
  to_address: Type.String(),
  units: Type.String(),
});
