import { decodeFunctionData, erc20Abi, getAddress, isAddress, parseAbi, type Address, type Hex } from 'viem';
import type { Config } from '../config/config.ts';
import { chainDisplay, CHAIN_NAMES, type ChainName } from '../config/chains.ts';
import type { ChainRegistry } from '../chain/chains.ts';
import type { Store } from '../store/database.ts';
import { formatUnits } from '../a2a/prepare/amounts.ts';
import type { RequestView } from './request-view.ts';
import { findDeployedCardContracts, findEscrowAddress, hasSentTo } from './store.ts';

/** What a warning is about; the confirmation screen asks the member to acknowledge every one before the PIN. */
export type WarningKind = 'approval_for_all' | 'unlimited_approval' | 'moves_own_asset' | 'permit' | 'permit2' | 'new_contract';

export interface RequestWarning {
  kind: WarningKind;
  /** Why it is dangerous, in words, naming what is at stake. */
  reason: string;
}

/** A contract this service deployed that the request names: a partner's card contract, or the card escrow. */
export interface KnownContract {
  address: string;
  name: string;
  /** Who runs it: the partner's name, or this wallet for its own contracts. */
  operated_by: string;
}

/** What the confirmation screen shows beyond the request itself: read from the chain when it is shown. */
export interface RequestFacts {
  bapp: RequestView['bapp'] & { impersonates_operator: boolean };
  /** send_token of a token contract: its symbol and decimals as the contract answers (null symbol: it has none). */
  token?: { symbol: string | null; decimals: number };
  /** The fee the member pays, in wei (decimal): estimated gas times the chain's gas price now; null when the BApp pays it or nothing is sent. */
  estimated_fee: string | null;
  /** Contracts the request names that this service deployed, by name. */
  contracts: KnownContract[];
  /** Dangers the member must acknowledge before the PIN (none for a harmless request). */
  warnings: RequestWarning[];
  /** The chain's name and coin ticker as people see them (config). */
  chain_display: { name: string; ticker: string } | null;
  /** The member's coins (wei, decimal) now and after value and fee; null when the chain does not answer or nothing is sent. */
  coin_balance: { before: string; after: string } | null;
  /** send_token of a token contract: the member's units of it now and after the send. */
  token_balance?: { before: string; after: string } | null;
}

const symbolAbi = parseAbi(['function symbol() view returns (string)']);

/**
 * The view with its chain facts and the BApp name checked against the operator's. A chain that
 * does not answer leaves a fact out rather than failing the screen.
 */
export async function withRequestFacts(
  deps: { config: Readonly<Config>; chains: ChainRegistry; store: Store },
  view: RequestView,
  member: Address,
): Promise<Omit<RequestView, 'bapp'> & RequestFacts> {
  const chain = deps.chains.has(view.chain) ? deps.chains.get(view.chain) : undefined;
  const facts: RequestFacts = {
    bapp: { ...view.bapp, impersonates_operator: impersonatesOperator(view.bapp.name, operatorNames(deps.config)) },
    estimated_fee: null,
    contracts: [],
    warnings: [],
    coin_balance: null,
    chain_display: null,
  };
  if (CHAIN_NAMES.includes(view.chain as ChainName)) {
    const display = chainDisplay(view.chain as ChainName, deps.config.chains[view.chain as ChainName]);
    facts.chain_display = { name: display.displayName, ticker: display.ticker };
  }
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
    const before = await chain.client.readContract({ address: contract, abi: erc20Abi, functionName: 'balanceOf', args: [member] }).catch(() => null);
    facts.token_balance = before === null ? null : { before: before.toString(), after: (before - BigInt(view.type === 'send_token' ? unitsOf(tx.amount!, facts.token.decimals) : 0n)).toString() };
  }
  if (chain && tx) {
    const coins = await chain.client.getBalance({ address: member }).catch(() => null);
    if (coins !== null) facts.coin_balance = { before: coins.toString(), after: (coins - BigInt(tx.value) - BigInt(facts.estimated_fee ?? '0')).toString() };
  }
  if (chain) {
    const reader: ChainReader = {
      isCard: async (address) =>
        (await chain.client.readContract({ address, abi: erc165Abi, functionName: 'supportsInterface', args: [ERC721_INTERFACE] }).catch(() => false)) === true,
      balanceOf: (token, owner) => chain.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }).catch(() => null),
      token: async (address) => {
        const [symbol, decimals] = await Promise.all([
          chain.client.readContract({ address, abi: symbolAbi, functionName: 'symbol' }).catch(() => null),
          chain.client.readContract({ address, abi: erc20Abi, functionName: 'decimals' }).catch(() => 18),
        ]);
        return { symbol, decimals: Number(decimals) };
      },
    };
    facts.contracts = await knownContracts(deps.store, view);
    facts.warnings = await requestWarnings({ store: deps.store, chain: reader }, view, member, facts.contracts);
  }
  return { ...view, ...facts };
}

/** `amount` whole tokens in units of `decimals` (prepare checked its form). */
function unitsOf(amount: string, decimals: number): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole + fraction.padEnd(decimals, '0').slice(0, decimals));
}

/** What the warnings read from the chain; a chain that does not answer gives no fact rather than an error. */
export interface ChainReader {
  /** Whether the contract is an ERC-721 card contract (ERC-165). */
  isCard(address: Address): Promise<boolean>;
  balanceOf(token: Address, owner: Address): Promise<bigint | null>;
  token(address: Address): Promise<{ symbol: string | null; decimals: number }>;
}

const erc165Abi = parseAbi(['function supportsInterface(bytes4 interfaceId) view returns (bool)']);
const ERC721_INTERFACE = '0x80ac58cd';

/** Every address the request names: the contract called, the token or card contract, addresses among the call's and the typed data's values. */
function namedAddresses(view: RequestView): string[] {
  const found = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string' && isAddress(value, { strict: false })) found.add(value.toLowerCase());
    else if (Array.isArray(value)) value.forEach(add);
    else if (value && typeof value === 'object') Object.values(value).forEach(add);
  };
  const tx = view.transaction;
  if (tx) {
    add(tx.to);
    add(tx.contract);
    const call = decodeDangerous(tx.data as Hex);
    if (call) add(call.args);
  }
  if (view.typed_data) add(view.typed_data);
  return [...found];
}

/** The contracts of this service among those the request names: partners' card contracts by their names, and the card escrow. */
export async function knownContracts(store: Store, view: RequestView): Promise<KnownContract[]> {
  const addresses = namedAddresses(view);
  const cards = await findDeployedCardContracts(store.db, view.chain, addresses);
  const known: KnownContract[] = cards.map((row) => ({ address: row.address!, name: row.name, operated_by: row.partner_name }));
  const escrow = await findEscrowAddress(store.db, view.chain);
  if (escrow && addresses.includes(escrow)) known.push({ address: escrow, name: 'Card escrow', operated_by: 'this wallet' });
  return known;
}

/** The calls that give away or move what the member holds, decoded by their selectors whatever ABI the BApp gave. */
const DANGEROUS_FUNCTIONS = parseAbi([
  'function setApprovalForAll(address operator, bool approved)',
  'function approve(address spender, uint256 amountOrTokenId)',
  'function increaseAllowance(address spender, uint256 addedValue)',
  'function transferFrom(address from, address to, uint256 amountOrTokenId)',
  'function safeTransferFrom(address from, address to, uint256 tokenId)',
  'function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)',
  'function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data)',
  'function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] amounts, bytes data)',
]);

function decodeDangerous(data: Hex) {
  try {
    return decodeFunctionData({ abi: DANGEROUS_FUNCTIONS, data });
  } catch {
    return null;
  }
}

/** An allowance this large is no limit: wallets and dapps write "unlimited" as 2^256 - 1 or close to it. */
const UNLIMITED = 2n ** 255n;

const PERMIT2_TYPES = ['PermitSingle', 'PermitBatch', 'PermitTransferFrom', 'PermitBatchTransferFrom', 'PermitWitnessTransferFrom', 'PermitBatchWitnessTransferFrom'];

/**
 * The dangers of a request, as MetaMask and Rabby warn of them: giving an operator all of a card
 * contract, an unlimited (or above-balance) token allowance, a transferFrom that moves the member's
 * own card or tokens, an EIP-2612 permit or a Permit2 signature (which spend later without another
 * confirmation), and a call to a contract she has never sent a transaction to.
 */
export async function requestWarnings(
  deps: { store: Store; chain: ChainReader },
  view: RequestView,
  member: Address,
  contracts: readonly KnownContract[],
): Promise<RequestWarning[]> {
  const nameOf = (address: string) => {
    const known = contracts.find((contract) => contract.address === address.toLowerCase());
    return known ? `${known.name} (${shortAddress(address)})` : shortAddress(address);
  };
  const self = member.toLowerCase();
  const warnings: RequestWarning[] = [];
  const tx = view.transaction;
  if (view.type === 'execute_contract' && tx) {
    const to = getAddress(tx.to);
    const call = decodeDangerous(tx.data as Hex);
    if (call) {
      const args = call.args as readonly unknown[];
      switch (call.functionName) {
        case 'setApprovalForAll':
          if (args[1] === true)
            warnings.push({
              kind: 'approval_for_all',
              reason: `This gives ${nameOf(args[0] as string)} control of all your cards and tokens of ${nameOf(to)}, and of those you receive later: it can move every one of them without asking you again.`,
            });
          break;
        case 'approve':
        case 'increaseAllowance': {
          if (await deps.chain.isCard(to)) break;
          const amount = args[1] as bigint;
          const token = await deps.chain.token(to);
          const unit = token.symbol ?? `tokens of ${nameOf(to)}`;
          const spender = nameOf(args[0] as string);
          if (amount >= UNLIMITED) {
            warnings.push({ kind: 'unlimited_approval', reason: `This lets ${spender} take any amount of your ${unit}, now and later, until you withdraw the permission.` });
            break;
          }
          const held = await deps.chain.balanceOf(to, member);
          if (held !== null && amount > held)
            warnings.push({
              kind: 'unlimited_approval',
              reason: `This lets ${spender} take up to ${formatUnits(amount, token.decimals)} ${unit}, more than the ${formatUnits(held, token.decimals)} you hold: it can also take what you receive later.`,
            });
          break;
        }
        case 'transferFrom':
        case 'safeTransferFrom':
        case 'safeBatchTransferFrom': {
          if (String(args[0]).toLowerCase() !== self) break;
          const recipient = nameOf(args[1] as string);
          let what: string;
          if (call.functionName === 'safeBatchTransferFrom') what = `your tokens ${(args[2] as bigint[]).map((id) => `#${id}`).join(', ')} of ${nameOf(to)}`;
          else if (args.length === 5) what = `${args[3]} of your token #${args[2]} of ${nameOf(to)}`;
          else if (call.functionName === 'safeTransferFrom' || (await deps.chain.isCard(to))) what = `your card #${args[2]} of ${nameOf(to)}`;
          else {
            const token = await deps.chain.token(to);
            what = `${formatUnits(args[2] as bigint, token.decimals)} ${token.symbol ?? 'tokens'} of yours (${nameOf(to)})`;
          }
          warnings.push({ kind: 'moves_own_asset', reason: `This moves ${what} out of your wallet to ${recipient}. It is not a payment to you: check that you mean to give it away.` });
          break;
        }
      }
    }
    if (!(await hasSentTo(deps.store.db, view.chain, self, tx.to.toLowerCase())))
      warnings.push({
        kind: 'new_contract',
        reason: `You have never used ${nameOf(to)} before. Approve only if you trust ${view.bapp.name} and expected this contract.`,
      });
  }
  const typed = view.typed_data as { primaryType?: unknown; domain?: Record<string, unknown>; message?: Record<string, unknown> } | undefined;
  if (view.type === 'sign_typedData_v4' && typed?.message) {
    const message = typed.message;
    const verifying = typeof typed.domain?.verifyingContract === 'string' ? nameOf(typed.domain.verifyingContract) : 'a contract it does not name';
    const spender = typeof message.spender === 'string' ? nameOf(message.spender) : 'the app';
    if (typed.primaryType === 'Permit') {
      const value = message.value ?? (message.allowed === true ? UNLIMITED : undefined);
      const units = bigintOf(value);
      const token = typeof typed.domain?.verifyingContract === 'string' && isAddress(typed.domain.verifyingContract, { strict: false }) ? await deps.chain.token(getAddress(typed.domain.verifyingContract)) : null;
      const unit = token?.symbol ? `${token.symbol} (${verifying})` : `tokens of ${verifying}`;
      const amount = units === null ? `your ${unit}` : units >= UNLIMITED ? `any amount of your ${unit}` : `${token ? formatUnits(units, token.decimals) : `${units} units`} of your ${unit}`;
      const until = message.deadline ?? message.expiry;
      warnings.push({
        kind: 'permit',
        reason: `Signing this permit lets ${spender} spend ${amount}${until !== undefined ? ` until ${deadline(until)}` : ''}, later and without asking you again. Signing costs nothing, so nothing on chain shows it until it is used.`,
      });
    } else if (typeof typed.primaryType === 'string' && PERMIT2_TYPES.includes(typed.primaryType)) {
      const tokens = new Set<string>();
      const collect = (value: unknown) => {
        if (Array.isArray(value)) value.forEach(collect);
        else if (value && typeof value === 'object') {
          const entry = value as Record<string, unknown>;
          if (typeof entry.token === 'string') tokens.add(nameOf(entry.token));
          Object.values(entry).forEach(collect);
        }
      };
      collect(message.details ?? message.permitted);
      warnings.push({
        kind: 'permit2',
        reason: `Signing this Permit2 ${typed.primaryType} lets ${spender} move your ${[...tokens].join(', ') || 'tokens'} through Permit2 (${verifying}), later and without asking you again. Signing costs nothing, so nothing on chain shows it until it is used.`,
      });
    }
  }
  return warnings;
}

function bigintOf(value: unknown): bigint | null {
  try {
    return typeof value === 'bigint' ? value : BigInt(String(value));
  } catch {
    return null;
  }
}

function shortAddress(address: string): string {
  const checksummed = isAddress(address, { strict: false }) ? getAddress(address) : address;
  return `${checksummed.slice(0, 6)}…${checksummed.slice(-4)}`;
}

/** A permit deadline (epoch seconds) as a date, or "no end" for one too far to be a date. */
function deadline(value: unknown): string {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds > 253_402_300_799) return 'no end date';
  return `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
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
