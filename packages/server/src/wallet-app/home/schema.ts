import Type from 'typebox';
import { secret } from '../../lib/secret.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const ChainAccount = Type.Object({
  chain: Type.String(),
  chain_id: Type.Integer(),
  address: Type.String(),
  balance: Type.Union([Type.String(), Type.Null()], { description: 'wei, decimal; null when the chain did not answer' }),
  coins: NullableString,
  faucet: Type.Boolean({ description: 'an embedded chain: POST /v2/wallet-app/faucet sends test coins' }),
});

export const Home = Type.Object({
  chains: Type.Array(ChainAccount),
  other_chains: Type.Union(
    [Type.Object({ bitcoin: Type.String(), solana: Type.String(), tron: Type.String(), xrpl: Type.String() }), Type.Null()],
    { description: 'null until shown once with the PIN (POST /v2/wallet-app/home/other-chains)' },
  ),
});

export const RevealBody = Type.Object({ pin: secret(Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'SHA-256 hex of the PIN' })) });

export const FaucetBody = Type.Object({ chain: Type.String({ maxLength: 32 }) });

export const FaucetSent = Type.Object({
  chain: Type.String(),
  transaction_hash: Type.String(),
  coins: Type.String({ description: 'coins sent' }),
  balance: Type.String({ description: 'the balance afterwards, wei' }),
});
