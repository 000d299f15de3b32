import { randomUUID } from 'node:crypto';
import { erc20Abi, formatUnits, parseEther, type Address } from 'viem';
import type { ChainContext, ChainRegistry } from '../../chain/chains.ts';
import { CHAIN_NAMES, type Config } from '../../config/config.ts';
import { chainDisplay } from '../../config/chains.ts';
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
import { tokensSeenBy } from './store.ts';
import { takeTransferKey } from '../transfers/store.ts';

/** An ERC-20 balance of the member. */
export interface TokenBalance {
  contract: string;
  symbol: string;
  decimals: number;
  /** Smallest units, decimal. */
  units: string;
  /** The exact balance in tokens. */
  amount: string;
  /** On the chain's configured list (`tokens`): shown even at 0. */
  listed: boolean;
}

/** The member's account on one EVM chain. */
export interface ChainAccount {
  chain: string;
  chain_id: number;
  /** The chain and its coin as people know them (config `displayName`, `ticker`, `decimals`). */
  display_name: string;
  ticker: string;
  decimals: number;
  address: string;
  /** Smallest units (wei), decimal; null when the chain did not answer. */
  balance: string | null;
  /** The exact balance in coins; null when the chain did not answer. */
  coins: string | null;
  /** An embedded (development) chain: the faucet sends test coins here. */
  faucet: boolean;
  /** Configured tokens, and tokens seen in the member's transfers that she still holds. */
  tokens: TokenBalance[];
}

export interface Home {
  chains: ChainAccount[];
  /** The addresses of the same phrase on the other chains; null until the member shows them once with the PIN. */
  other_chains: { bitcoin: string; solana: string; tron: string; xrpl: string } | null;
}

/**
 * What the home screen shows: the address, coin balance and token balances on every configured EVM
 * chain (main first), and the non-EVM addresses. A chain that does not answer shows null, not an error.
 */
export async function homeOf(deps: { config: Readonly<Config>; store: Store; chains: ChainRegistry }, member: UserRow): Promise<Home> {
  const address = member.main_address as Address;
  const seen = await tokensSeenBy(deps.store.db, member.id);
  const chains = await Promise.all(
    [...deps.chains.all()].sort((a, b) => CHAIN_NAMES.indexOf(a.name) - CHAIN_NAMES.indexOf(b.name)).map(async (chain): Promise<ChainAccount> => {
      const display = chainDisplay(chain.name, deps.config.chains[chain.name]);
      const [balance, tokens] = await Promise.all([
        chain.client.getBalance({ address }).catch(() => null),
        tokenBalances(chain, address, display.tokens, seen.filter((token) => token.chain === chain.name).map((token) => token.contract)),
      ]);
      return {
        chain: chain.name,
        chain_id: chain.chainId,
        display_name: display.displayName,
        ticker: display.ticker,
        decimals: display.decimals,
        address: member.main_address,
        balance: balance === null ? null : balance.toString(),
        coins: balance === null ? null : formatUnits(balance, display.decimals),
        faucet: chain.managed,
        tokens,
      };
    }),
  );
  return { chains, other_chains: otherChains(member) };
}

/**
 * Balances read on chain: every listed token, and each seen one the member still holds. A seen
 * contract that does not answer as an ERC-20 (or a chain that does not answer) is left out.
 */
async function tokenBalances(chain: ChainContext, holder: Address, listed: Array<{ address: string; symbol: string; decimals: number }>, seen: string[]): Promise<TokenBalance[]> {
  const listedAddresses = new Set(listed.map((token) => token.address.toLowerCase()));
  const others = [...new Set(seen)].filter((contract) => !listedAddresses.has(contract));
  const read = async (contract: string, known?: { symbol: string; decimals: number }): Promise<TokenBalance | null> => {
    try {
      const address = contract as Address;
      const [units, symbol, decimals] = await Promise.all([
        chain.client.readContract({ address, abi: erc20Abi, functionName: 'balanceOf', args: [holder] }),
        known ? known.symbol : chain.client.readContract({ address, abi: erc20Abi, functionName: 'symbol' }),
        known ? known.decimals : chain.client.readContract({ address, abi: erc20Abi, functionName: 'decimals' }).then(Number),
      ]);
      if (!known && units === 0n) return null;
      return { contract: contract.toLowerCase(), symbol, decimals, units: units.toString(), amount: formatUnits(units, decimals), listed: Boolean(known) };
    } catch {
      return null;
    }
  };
  const balances = await Promise.all([...listed.map((token) => read(token.address.toLowerCase(), token)), ...others.map((contract) => read(contract))]);
  return balances.filter((balance): balance is TokenBalance => balance !== null);
}

function otherChains(member: UserRow): Home['other_chains'] {
  const { bitcoin_address: bitcoin, solana_address: solana, tron_address: tron, xrpl_address: xrpl } = member;
  return bitcoin && solana && tron && xrpl ? { bitcoin, solana, tron, xrpl } : null;
}

/** Derives and keeps the non-EVM addresses with the member's PIN (4006 wrong, 403 locked), then the home. */
export async function revealOtherChains(deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry }, member: UserRow, pinHash: string): Promise<Home> {
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
  deps: { config: Readonly<Config>; store: Store; chains: ChainRegistry; outbox: TransactionOutbox; operator: Operator; faucetLimit: FaucetLimit },
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
    // Kept with the member's sends, so her activity lists the test coins.
    const outboxKey = `faucet:${randomUUID()}`;
    await takeTransferKey(deps.store.db, {
      id: randomUUID(),
      user_id: member.id,
      idempotency_key: outboxKey,
      request_hash: '',
      kind: 'faucet',
      chain: chain.name,
      token: null,
      to_address: member.main_address.toLowerCase(),
      units: parseEther(coins).toString(),
      outbox_key: outboxKey,
      created_ms: Date.now(),
    });
    const transaction = await faucet(deps, { to: member.main_address, amount: coins, chain: chain.name, idempotencyKey: outboxKey });
    const balance = await chain.client.getBalance({ address: member.main_address as Address });
    return { chain: chain.name, transaction_hash: transaction.txHash, coins, balance: balance.toString() };
  } catch (error) {
    deps.faucetLimit.release(key);
    throw error;
  }
}
