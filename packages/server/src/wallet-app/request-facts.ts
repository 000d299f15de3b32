import { erc20Abi, parseAbi, type Address } from 'viem';
import type { Config } from '../config/config.ts';
import type { ChainRegistry } from '../chain/chains.ts';
import type { RequestView } from './request-view.ts';

/** What the confirmation screen shows beyond the request itself: read from the chain when it is shown. */
export interface RequestFacts {
  bapp: RequestView['bapp'] & { impersonates_operator: boolean };
  /** send_token of a token contract: its symbol and decimals as the contract answers (null symbol: it has none). */
  token?: { symbol: string | null; decimals: number };
  /** The fee the member pays, in wei (decimal): estimated gas times the chain's gas price now; null when the BApp pays it or nothing is sent. */
  estimated_fee: string | null;
}

const symbolAbi = parseAbi(['function symbol() view returns (string)']);

/**
 * The view with its chain facts and the BApp name checked against the operator's. A chain that
 * does not answer leaves a fact out rather than failing the screen.
 */
export async function withRequestFacts(deps: { config: Readonly<Config>; chains: ChainRegistry }, view: RequestView): Promise<Omit<RequestView, 'bapp'> & RequestFacts> {
  const chain = deps.chains.has(view.chain) ? deps.chains.get(view.chain) : undefined;
  const facts: RequestFacts = {
    bapp: { ...view.bapp, impersonates_operator: impersonatesOperator(view.bapp.name, operatorNames(deps.config)) },
    estimated_fee: null,
  };
  const tx = view.transaction;
  if (chain && tx && !view.fee_delegated && view.estimated_gas !== null) {
    const gasPrice = await chain.client.getGasPrice().catch(() => undefined);
    if (gasPrice !== undefined) facts.estimated_fee = (gasPrice * BigInt(view.estimated_gas)).toString();
  }
  if (chain && view.type === 'send_token' && tx?.contract && !tx.native_coin) {
    const contract = tx.contract as Address;
    const [symbol, decimals] = await Promise.all([
      chain.client.readContract({ address: contract, abi: symbolAbi, functionName: 'symbol' }).catch(() => null),
      chain.client.readContract({ address: contract, abi: erc20Abi, functionName: 'decimals' }).catch(() => tx.decimals ?? 18),
    ]);
    facts.token = { symbol, decimals: Number(decimals) };
  }
  return { ...view, ...facts };
}

/** The names the operator's own screens go by: the app's ("Wallet") and the host names it is served at. */
export function operatorNames(config: Pick<Readonly<Config>, 'publicUrl'> & { a2a: { links: { webUrl: string | null } } }): string[] {
  const hosts = [config.publicUrl, config.a2a.links.webUrl].filter((url): url is string => url !== null).map((url) => new URL(url).hostname)
    // An address (127.0.0.1, [::1]) names no one.
    .filter((host) => /[a-z]/i.test(host.replace(/^\[.*\]$/, '')));
  return ['wallet', ...hosts];
}

/** Words that, with the operator's name, make a BApp name read as the operator speaking. */
const OFFICIAL_WORDS = ['official', 'support', 'security', 'team', 'admin', 'operator', 'service', 'verify', 'verification', 'help', 'staff', 'system'];

/**
 * Whether a BApp name (which the BApp gives itself) reads as the operator's: after folding look-alike
 * characters (NFKC, accents dropped, 0→o, 1→l, 3→e, 4→a, 5→s, $→s, @→a) and dropping everything
 * but letters, it is one of the operator's names, or holds one together with an official-sounding
 * word ("Wallet Support", "0fficial W4llet", "wallet.example.com security").
 */
export function impersonatesOperator(bappName: string, names: readonly string[]): boolean {
  const name = fold(bappName);
  const folded = names.map(fold).filter((value) => value.length > 0);
  if (folded.includes(name)) return true;
  return folded.some((operator) => name.includes(operator) && OFFICIAL_WORDS.some((word) => name.replace(operator, '').includes(word)));
}

const LOOK_ALIKES: Record<string, string> = { '0': 'o', '1': 'l', '3': 'e', '4': 'a', '5': 's', $: 's', '@': 'a', '|': 'l', '!': 'i' };

function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[01345$@|!]/g, (character) => LOOK_ALIKES[character] ?? character)
    .replace(/[^a-z]/g, '');
}
