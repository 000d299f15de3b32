import { isAddress, type Address, type Hex } from 'viem';
import type { Db } from '../store/database.ts';
import type { IndexedCardRow } from '../store/schema.ts';
import {
  decodeCardCursor,
  decodeContractCursor,
  encodeCardCursor,
  encodeContractCursor,
  InvalidCardCursorError,
} from './page-cursor.ts';

/** Largest page a list query serves. */
export const MAX_PAGE_SIZE = 1000;

/** A card as the index knows it. Times are epoch seconds of blocks; addresses lower-case. */
export interface IndexedCard {
  chain: string;
  contract: Address;
  tokenId: number;
  /** The zero address once burned. */
  owner: Address;
  /** The previous owner; the zero address for a card that was never transferred. */
  sender: Address;
  /** Null only when the mint precedes the block the contract was followed from. */
  mintTxHash: Hex | null;
  /** The transaction of the latest transfer (the mint, for a card never transferred). */
  lastTxHash: Hex;
  mintedAt: number | null;
  mintedBlock: number | null;
  updatedAt: number;
  updatedBlock: number;
  burned: boolean;
}

export interface CardPage {
  cards: IndexedCard[];
  /** Cursor of the next page; '' when this page is the last. */
  nextCursor: string;
}

/** A contract an owner holds cards of. */
export interface HeldContract {
  contract: Address;
  cardCount: number;
}

export interface HeldContractPage {
  contracts: HeldContract[];
  /** Cursor of the next page; '' when this page is the last. */
  nextCursor: string;
}

export interface ListCardsByOwnerInput {
  chain: string;
  owner: string;
  /** Only the cards of this contract. */
  contract?: string | undefined;
  /** Only the cards that came to the owner from this address (escrow deposits of one partner). */
  sender?: string | undefined;
  /** nextCursor of the previous page; absent or '' for the first page. */
  cursor?: string | undefined;
  limit: number;
}

/**
 * The unburned cards `owner` holds, ordered by (contract, token id), one keyset page at a time: the
 * cursor is the last position shown, so a page costs the same however deep it is, and cards minted
 * or moved while paging never make another card appear twice or not at all. Throws
 * InvalidCardCursorError for a cursor it did not issue, or one of another contract.
 * @example
 * const first = await listCardsByOwner(db, { chain: 'main', owner, limit: 100 });
 * const second = await listCardsByOwner(db, { chain: 'main', owner, cursor: first.nextCursor, limit: 100 });
 */
export async function listCardsByOwner(db: Db, input: ListCardsByOwnerInput): Promise<CardPage> {
  const owner = addressArgument(input.owner, 'owner');
  const contract = input.contract === undefined ? undefined : addressArgument(input.contract, 'contract');
  const limit = pageSize(input.limit);
  const after = input.cursor ? decodeCardCursor(input.cursor) : undefined;
  if (after && contract && after.contract !== contract) throw new InvalidCardCursorError('cursor of another contract');

  // The owner is matched as a range ending at the owner, and is the first sort key, instead of
  // `owner = ?`: PostgreSQL drops a column compared with `=` from the sort, after which the primary
  // key (which has no owner) gives the same order, and it may walk that key filtering by owner:
  // cheap on average, ruinous for an owner holding many cards late in id order. As a range, only
  // the owner indexes give the order. The page's lower bound is `owner >= ?` on the first page and
  // the keyset tuple after it; in exactly this shape both stores use it as an index bound.
  const sortColumns = contract ? (['owner', 'token_id'] as const) : (['owner', 'contract', 'token_id'] as const);
  let query = db
    .selectFrom('indexed_cards')
    .selectAll()
    .where('chain', '=', input.chain)
    .where('owner', '<=', owner)
    .where('burned', '=', 0);
  if (contract) query = query.where('contract', '=', contract);
  if (input.sender !== undefined) query = query.where('sender', '=', addressArgument(input.sender, 'sender'));
  if (!after) query = query.where('owner', '>=', owner);
  else if (contract) query = query.where((eb) => eb(eb.refTuple('owner', 'token_id'), '>', eb.tuple(owner, after.tokenId)));
  else query = query.where((eb) => eb(eb.refTuple('owner', 'contract', 'token_id'), '>', eb.tuple(owner, after.contract, after.tokenId)));
  for (const column of sortColumns) query = query.orderBy(column);
  const rows = await query.limit(limit + 1).execute();
  const cards = rows.slice(0, limit).map(cardOfRow);
  const last = cards.at(-1);
  return { cards, nextCursor: rows.length > limit && last ? encodeCardCursor({ contract: last.contract, tokenId: last.tokenId }) : '' };
}

export interface ListContractsHeldByInput {
  chain: string;
  owner: string;
  cursor?: string | undefined;
  limit: number;
}

/**
 * The contracts `owner` holds unburned cards of, with how many, ordered by contract address, one
 * keyset page at a time (the grouping of A12). Throws InvalidCardCursorError for a bad cursor.
 */
export async function listContractsHeldBy(db: Db, input: ListContractsHeldByInput): Promise<HeldContractPage> {
  const owner = addressArgument(input.owner, 'owner');
  const limit = pageSize(input.limit);
  const after = input.cursor ? decodeContractCursor(input.cursor) : undefined;
  let query = db
    .selectFrom('indexed_card_holdings')
    .select(['contract', 'card_count'])
    .where('chain', '=', input.chain)
    .where('owner', '=', owner)
    .where('card_count', '>', 0);
  if (after) query = query.where('contract', '>', after);
  const rows = await query.orderBy('contract').limit(limit + 1).execute();
  const contracts = rows.slice(0, limit).map((row) => ({ contract: row.contract as Address, cardCount: Number(row.card_count) }));
  const last = contracts.at(-1);
  return { contracts, nextCursor: rows.length > limit && last ? encodeContractCursor(last.contract) : '' };
}

/** One card, burned or not; undefined when the index has never seen it. */
export async function getIndexedCard(db: Db, chain: string, contract: string, tokenId: number | bigint): Promise<IndexedCard | undefined> {
  const id = Number(tokenId);
  if (!Number.isSafeInteger(id) || id < 0) return undefined;
  const row = await db
    .selectFrom('indexed_cards')
    .selectAll()
    .where('chain', '=', chain)
    .where('contract', '=', addressArgument(contract, 'contract'))
    .where('token_id', '=', id)
    .executeTakeFirst();
  return row && cardOfRow(row);
}

function cardOfRow(row: IndexedCardRow): IndexedCard {
  return {
    chain: row.chain,
    contract: row.contract as Address,
    tokenId: Number(row.token_id),
    owner: row.owner as Address,
    sender: row.sender as Address,
    mintTxHash: row.mint_tx_hash as Hex | null,
    lastTxHash: row.last_tx_hash as Hex,
    mintedAt: row.minted_at === null ? null : Number(row.minted_at),
    mintedBlock: row.minted_block === null ? null : Number(row.minted_block),
    updatedAt: Number(row.updated_at),
    updatedBlock: Number(row.updated_block),
    burned: Number(row.burned) === 1,
  };
}

function addressArgument(value: string, name: string): string {
  if (!isAddress(value, { strict: false })) throw new TypeError(`${name} must be an address`);
  return value.toLowerCase();
}

function pageSize(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) throw new RangeError(`limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  return limit;
}
