import type { Static } from 'typebox';
import { decodeFunctionData, erc20Abi, type Address } from 'viem';
import { cardNftAbi } from '@wallet-service/contracts';
import type { Logger } from 'pino';
import type { Config } from '../../config/config.ts';
import { chainDisplay, CHAIN_NAMES, type ChainName } from '../../config/chains.ts';
import type { Store } from '../../store/database.ts';
import { epochSeconds } from '../../store/database.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { CardIndex } from '../../card-index/index.ts';
import { catchUpWithChain } from '../../cards/index-freshness.ts';
import type { A2aRequestRow, UserRow } from '../../store/schema.ts';
import type { Action } from '../../a2a/requests/actions.ts';
import { findMintedCardDesign } from '../../cards/metadata/designs.ts';
import { AppError } from '../../errors/app-error.ts';
import { Errors } from '../../errors/codes.ts';
import type { Operator } from '../../operator/operator.ts';
import { describeRequest } from '../request-view.ts';
import { impersonatesOperator, operatorNames } from '../request-facts.ts';
import { listCardTransfersOf, listMemberClaims, listMemberRequests, listMemberTransfers, listUnfinishedCardSendsBy, namesOf, type Position } from './store.ts';
import type { ActivityAnswer, ActivityCard, ActivityItem, ActivityRequest, Party } from './schema.ts';

/** Items a page shows unless the app asks for another number (at most 50). */
export const ACTIVITY_PAGE = 20;

type Item = Static<typeof ActivityItem>;
type Deps = { config: Readonly<Config>; store: Store; chains: ChainRegistry; cardIndex: CardIndex; operator: Operator; log: Logger };

/** The activity's lists; each is read newest first from its own position. */
const LISTS = ['requests', 'cards', 'card_sends', 'money', 'claims'] as const;
type ListName = (typeof LISTS)[number];
type Cursor = Partial<Record<ListName, Position>>;

/** A row of one list, ready to merge: when it happened (ms), where the list stands after it, and the item it makes. */
interface Entry {
  list: ListName;
  timeMs: number;
  position: Position;
  item: () => Promise<Item>;
}

/**
 * The member's activity, newest first, a page at a time: App2App requests in their true state,
 * card transfers (from the card index once mined, from the outbox while pending or when failed),
 * coins and tokens she sent, test coins sent to her, and claim links she claimed; addresses named
 * when the service knows them. The cursor holds where each list stands, so paging on while new
 * activity arrives neither repeats nor skips an item. 400 for a cursor this did not issue.
 */
export async function listActivity(deps: Deps, member: Pick<UserRow, 'id' | 'main_address'>, input: { cursor?: string | undefined; limit?: number | undefined }): Promise<Static<typeof ActivityAnswer>> {
  const limit = input.limit ?? ACTIVITY_PAGE;
  const cursor = input.cursor ? decodeCursor(input.cursor) : {};
  const db = deps.store.db;
  if (!input.cursor) await Promise.all(deps.chains.all().map((chain) => catchUpWithChain(deps, chain.name)));
  const address = member.main_address.toLowerCase();

  const [requests, cards, cardSends, money, claims] = await Promise.all([
    listMemberRequests(db, member.id, limit, cursor.requests),
    listCardTransfersOf(db, address, limit, cursor.cards),
    listUnfinishedCardSendsBy(db, address, limit, cursor.card_sends),
    listMemberTransfers(db, member.id, limit, cursor.money),
    listMemberClaims(db, member.id, limit, cursor.claims),
  ]);
  const counterparties = new Set<string>();
  for (const row of cards) counterparties.add(row.from_address === address ? row.to_address : row.from_address);
  for (const row of money) counterparties.add(row.kind === 'faucet' ? (row.from_address ?? '') : row.to_address);
  const names = await namesOf(db, [...counterparties].filter(Boolean));
  const operator = deps.operator.address.toLowerCase();
  const party = (who: string): Static<typeof Party> => {
    if (who === operator) return { address: who, name: 'Test coins', kind: 'operator' };
    const known = names.get(who);
    return known ? { address: who, ...known } : { address: who, name: null, kind: 'unknown' };
  };
  const cardName = async (chain: string, contract: string, cardId: number) =>
    (await findMintedCardDesign(deps, { chain, address: contract as Address }, cardId).catch(() => undefined))?.metadata.name ?? null;

  const entries: Entry[] = [
    ...requests.map((row): Entry => ({
      list: 'requests',
      timeMs: Number(row.created_at) * 1000,
      position: [Number(row.created_at), row.request_key],
      item: async () => requestItem(deps.config, row, address as Address),
    })),
    ...cards.map((row): Entry => {
      const sent = row.from_address === address;
      return {
        list: 'cards',
        timeMs: Number(row.block_time) * 1000,
        position: [Number(row.block_time), row.tx_hash, Number(row.log_index)],
        item: async (): Promise<Static<typeof ActivityCard>> => ({
          kind: 'card',
          chain: row.chain,
          contract: row.contract,
          nft_id: row.nft_id === null ? null : Number(row.nft_id),
          card_id: Number(row.token_id),
          card_name: await cardName(row.chain, row.contract, Number(row.token_id)),
          bapp_name: row.bapp_name ?? null,
          direction: sent ? 'sent' : 'received',
          counterparty: party(sent ? row.to_address : row.from_address),
          tx_hash: row.tx_hash,
          state: 'mined',
          time: Number(row.block_time),
        }),
      };
    }),
    ...cardSends.flatMap((row): Entry[] => {
      if (!row.to_address) return [];
      let call;
      try {
        call = decodeFunctionData({ abi: cardNftAbi, data: row.data as `0x${string}` });
      } catch {
        return [];
      }
      if (call.functionName !== 'transferFrom') return [];
      const [, to, tokenId] = call.args as readonly [Address, Address, bigint];
      return [
        {
          list: 'card_sends',
          timeMs: Number(row.created_ms),
          position: [Number(row.created_ms), row.id],
          item: async (): Promise<Static<typeof ActivityCard>> => ({
            kind: 'card',
            chain: row.chain,
            contract: row.to_address!,
            nft_id: row.nft_id === null ? null : Number(row.nft_id),
            card_id: Number(tokenId),
            card_name: await cardName(row.chain, row.to_address!, Number(tokenId)),
            bapp_name: row.bapp_name ?? null,
            direction: 'sent',
            counterparty: party(to.toLowerCase()),
            tx_hash: row.tx_hash,
            // `included`: in a block the chain's confirmations do not count as final yet.
            state: row.status === 'signed' || row.status === 'included' ? 'pending' : 'failed',
            time: Math.floor(Number(row.created_ms) / 1000),
          }),
        },
      ];
    }),
    ...money.map((row): Entry => ({
      list: 'money',
      timeMs: Number(row.created_ms),
      position: [Number(row.created_ms), row.id],
      item: async () => {
        const display = CHAIN_NAMES.includes(row.chain as ChainName) ? chainDisplay(row.chain as ChainName, deps.config.chains[row.chain as ChainName]) : null;
        const token = row.token ? await tokenFacts(deps, row.chain, row.token) : null;
        const state = row.status === null || row.status === 'signed' || row.status === 'included' ? (row.tx_hash ? 'pending' : 'failed') : row.status === 'mined' && row.receipt_status === 'success' ? 'mined' : 'failed';
        return {
          kind: row.kind === 'faucet' ? 'test_coins' : row.kind,
          chain: row.chain,
          chain_name: display?.displayName ?? row.chain,
          token: row.token,
          symbol: token ? token.symbol : (display?.ticker ?? null),
          decimals: token ? token.decimals : (display?.decimals ?? 18),
          units: row.units,
          direction: row.kind === 'faucet' ? 'received' : 'sent',
          counterparty: party(row.kind === 'faucet' ? (row.from_address ?? operator) : row.to_address),
          tx_hash: row.tx_hash ?? null,
          state,
          time: Math.floor(Number(row.created_ms) / 1000),
        } as Item;
      },
    })),
    ...claims.map((row): Entry => ({
      list: 'claims',
      timeMs: Number(row.updated_ms),
      position: [Number(row.updated_ms), row.id],
      item: async () => ({
        kind: 'claim',
        claim_id: row.id,
        chain: row.chain,
        nft_id: Number(row.nft_id),
        card_id: Number(row.token_id),
        card_name: await cardName(row.chain, row.contract, Number(row.token_id)),
        bapp_name: row.bapp_name ?? null,
        time: Math.floor(Number(row.updated_ms) / 1000),
      }),
    })),
  ];
  // Newest first; ties in a fixed order, so a page boundary falls the same way every time.
  entries.sort((a, b) => b.timeMs - a.timeMs || LISTS.indexOf(a.list) - LISTS.indexOf(b.list));
  const page = entries.slice(0, limit);
  const next: Cursor = { ...cursor };
  for (const entry of page) next[entry.list] = entry.position;
  const full = [requests, cards, cardSends, money, claims].some((rows) => rows.length === limit);
  const more = entries.length > limit || full;
  return { items: await Promise.all(page.map((entry) => entry.item())), next_cursor: more ? encodeCursor(next) : '' };
}

function requestItem(config: Readonly<Config>, row: A2aRequestRow, viewer: Address): Static<typeof ActivityRequest> {
  const outcome = row.result ? (JSON.parse(row.result) as { result?: { tx_hash?: unknown } }) : undefined;
  const txHash = outcome?.result?.tx_hash;
  return {
    kind: 'request',
    request_key: row.request_key,
    type: row.type,
    chain: row.chain,
    status: row.status,
    state: requestState(config, row),
    bapp_name: row.bapp_name,
    summary: describeRequest(row, JSON.parse(row.action) as Action, viewer).summary,
    time: Number(row.created_at),
    finished_at: row.finished_at === null ? null : Number(row.finished_at),
    ...(typeof txHash === 'string' ? { tx_hash: txHash } : {}),
    ...(row.error_code !== null ? { error: { code: row.error_code, message: row.error_message ?? '' } } : {}),
  };
}

/** What became of a request: an unanswered one whose time is over expired, and one the app will not approve was refused. */
export function requestState(config: Readonly<Config>, row: Pick<A2aRequestRow, 'status' | 'bapp_name' | 'expiration_time' | 'error_code'>, now = epochSeconds()): Static<typeof ActivityRequest>['state'] {
  switch (row.status) {
    case 'completed':
      return 'approved';
    case 'canceled':
      return 'canceled';
    case 'error':
      return row.error_code === Errors.RequestKeyExpired ? 'expired' : 'failed';
    case 'prepared':
    case 'requested':
      if (impersonatesOperator(row.bapp_name, operatorNames(config))) return 'refused';
      if (Number(row.expiration_time) <= now) return 'expired';
      return row.status === 'prepared' ? 'not_opened' : 'waiting';
  }
}

const tokenCache = new Map<string, Promise<{ symbol: string | null; decimals: number }>>();

/** A token's symbol and decimals: the chain's configured list first, else the contract (read once per process). */
async function tokenFacts(deps: { config: Readonly<Config>; chains: ChainRegistry }, chainName: string, contract: string): Promise<{ symbol: string | null; decimals: number }> {
  const listed = CHAIN_NAMES.includes(chainName as ChainName)
    ? chainDisplay(chainName as ChainName, deps.config.chains[chainName as ChainName]).tokens.find((token) => token.address.toLowerCase() === contract)
    : undefined;
  if (listed) return { symbol: listed.symbol, decimals: listed.decimals };
  const key = `${chainName} ${contract}`;
  let facts = tokenCache.get(key);
  if (!facts) {
    facts = readToken(deps, chainName, contract as Address);
    tokenCache.set(key, facts);
    facts.catch(() => tokenCache.delete(key));
  }
  return facts;
}

async function readToken(deps: { chains: ChainRegistry }, chainName: string, contract: Address): Promise<{ symbol: string | null; decimals: number }> {
  const chain = deps.chains.get(chainName);
  const [symbol, decimals] = await Promise.all([
    chain.client.readContract({ address: contract, abi: erc20Abi, functionName: 'symbol' }).catch(() => null),
    chain.client.readContract({ address: contract, abi: erc20Abi, functionName: 'decimals' }),
  ]);
  return { symbol, decimals: Number(decimals) };
}

/** Each list's position: its ordering values, numbers (n) and strings (s). */
const POSITION_SHAPES: Record<ListName, Array<'n' | 's'>> = { requests: ['n', 's'], cards: ['n', 's', 'n'], card_sends: ['n', 's'], money: ['n', 's'], claims: ['n', 's'] };

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

/** A cursor encodeCursor made, or 400. */
function decodeCursor(text: string): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const valid =
    typeof parsed === 'object' &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    Object.entries(parsed).every(([list, position]) => {
      const shape = POSITION_SHAPES[list as ListName];
      return (
        shape !== undefined &&
        Array.isArray(position) &&
        position.length === shape.length &&
        position.every((value, index) => (shape[index] === 'n' ? Number.isSafeInteger(value) && value >= 0 : typeof value === 'string' && value.length <= 100))
      );
    });
  if (!valid) throw new AppError(Errors.BadRequest, { detail: 'cursor is not a next_cursor of the activity' });
  return parsed as Cursor;
}
