import { formatEther, type Address } from 'viem';
import type { ChainRegistry } from '../../chain/chains.ts';
import { CHAIN_NAMES, type Config } from '../../config/config.ts';
import type { KeyVault } from '../../custody/key-vault.ts';
import { AppError } from '../../errors/app-error.ts';
import { Errors } from '../../errors/codes.ts';
import { faucet } from '../../operator/faucet.ts';
import type { Operator } from '../../operator/operator.ts';
import type { TransactionOutbox } from '../../outbox/outbox.ts';
import type { Store } from '../../store/database.ts';
import type { UserRow } from '../../store/schema.ts';
import { recordChainAddresses } from '../../users/commands.ts';
import type { FaucetLimit } from './faucet-limit.ts';

/** The member's account on one EVM chain. */
export interface ChainAccount {
  chain: string;
  chain_id: number;
  address: string;
  /** Wei, decimal; null when the chain did not answer. */
  balance: string | null;
  /** The balance in coins (18 decimals); null when the chain did not answer. */
  coins: string | null;
  /** An embedded (development) chain: the faucet sends test coins here. */
  faucet: boolean;
}

export interface Home {
  chains: ChainAccount[];
  /** The addresses of the same phrase on the other chains; null until the member shows them once with the PIN. */
  other_chains: { bitcoin: string; solana: string; tron: string; xrpl: string } | null;
}

/** What the home screen shows: the address and coin balance on every configured EVM chain (main first), and the non-EVM addresses. */
export async function homeOf(deps: { chains: ChainRegistry }, member: UserRow): Promise<Home> {
  const address = member.main_address as Address;
  const chains = await Promise.all(
    [...deps.chains.all()].sort((a, b) => CHAIN_NAMES.indexOf(a.name) - CHAIN_NAMES.indexOf(b.name)).map(async (chain): Promise<ChainAccount> => {
      const balance = await chain.client.getBalance({ address }).catch(() => null);
      return {
        chain: chain.name,
        chain_id: chain.chainId,
        address: member.main_address,
        balance: balance === null ? null : balance.toString(),
        coins: balance === null ? null : formatEther(balance),
        faucet: chain.managed,
      };
    }),
  );
  return { chains, other_chains: otherChains(member) };
}

function otherChains(member: UserRow): Home['other_chains'] {
  const { bitcoin_address: bitcoin, solana_address: solana, tron_address: tron, xrpl_address: xrpl } = member;
  return bitcoin && solana && tron && xrpl ? { bitcoin, solana, tron, xrpl } : null;
}

/** Derives and keeps the non-EVM addresses with the member's PIN (4006 wrong, 403 locked), then the home. */
export async function revealOtherChains(deps: { store: Store; vault: KeyVault; chains: ChainRegistry }, member: UserRow, pinHash: string): Promise<Home> {
  return homeOf(deps, await recordChainAddresses(deps, member, pinHash.toLowerCase()));
}

/** Thrown when the member asked for test coins too soon. */
export class FaucetWaitError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(Errors.TooManyRequests, { detail: `test coins once every interval; try again in ${retryAfterSeconds} s` });
  }
}

/**
 * Sends `walletApp.faucetCoins` test coins from the operator's account (funded on embedded chains) to
 * the member on an embedded chain and waits for the receipt. An external chain has no faucet (6417);
 * a member asks once per `walletApp.faucetIntervalSeconds` per chain (429, FaucetWaitError).
 */
export async function sendTestCoins(
  deps: { config: Readonly<Config>; chains: ChainRegistry; outbox: TransactionOutbox; operator: Operator; faucetLimit: FaucetLimit },
  member: UserRow,
  chainName: string,
): Promise<{ chain: string; transaction_hash: string; coins: string; balance: string }> {
  const chain = deps.chains.get(chainName);
  if (!chain.managed) throw new AppError(Errors.ChainNotSupported, { detail: `chain ${chain.name} is an external chain: it has no faucet` });
  const key = `${member.id} ${chain.name}`;
  const wait = deps.faucetLimit.take(key);
  if (wait > 0) throw new FaucetWaitError(wait);
  const coins = String(deps.config.walletApp.faucetCoins);
  try {
    const transaction = await faucet(deps, { to: member.main_address, amount: coins, chain: chain.name });
    const balance = await chain.client.getBalance({ address: member.main_address as Address });
    return { chain: chain.name, transaction_hash: transaction.txHash, coins, balance: balance.toString() };
  } catch (error) {
    deps.faucetLimit.release(key);
    throw error;
  }
}
