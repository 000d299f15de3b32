import Type from 'typebox';
import { secret } from '../../lib/secret.ts';

export const TokenBalance = Type.Object({
  contract: Type.String(),
  symbol: Type.String(),
  decimals: Type.Integer(),
  units: Type.String({ description: 'smallest units, decimal' }),
  amount: Type.String({ description: 'the exact balance in tokens' }),
  listed: Type.Boolean({ description: "on the chain's configured token list (shown at 0 too)" }),
});

export const ChainAccount = Type.Object({
  chain: Type.String(),
  chain_id: Type.Integer(),
  display_name: Type.String({ description: 'the chain as people know it (config `displayName`)' }),
  ticker: Type.String({ description: "the chain's coin (config `ticker`)" }),
  decimals: Type.Integer({ description: "the coin's decimals (config `decimals`)" }),
  address: Type.String(),
  balance: Type.Union([Type.String(), Type.Null()], { description: 'smallest units (wei), decimal; null when the chain did not answer' }),
  coins: Type.Union([Type.String(), Type.Null()], { description: 'the exact balance in coins; null when the chain did not answer' }),
  faucet: Type.Boolean({ description: 'an embedded chain: POST /v2/wallet-app/faucet sends test coins' }),
  tokens: Type.Array(TokenBalance, { description: 'the listed tokens, and tokens seen in her transfers that she holds' }),
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
