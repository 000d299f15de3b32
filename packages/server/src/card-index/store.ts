import type { Db, DbTransaction } from '../store/database.ts';
import { applyTransfer, cardKey, cardStateOfRow, rowOfCardState, type CardState } from './card-state.ts';
import type { CardTransfer } from './transfer-logs.ts';
import { isAddress, type Address, type Hex } from 'viem';
import type { IndexedCardRow } from '../store/schema.ts';
import {
  decodeCardCursor,
  decodeContractCursor,
  encodeCardCursor,
  encodeContractCursor,
  InvalidCardCursorError,
} from './page-cursor.ts';

/** Rows per multi-row statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const ROWS_PER_STATEMENT = 500;
/** Block hashes kept below the newest one: a fork deeper than this re-indexes the chain from scratch. */
export const KEPT_BLOCK_HASHES_DEPTH = 4096;

export interface AppliedRange {
  chain: string;
  contracts: string[];
  fromBlock: number;
  toBlock: number;
  toBlockHash: string;
  transfers: CardTransfer[];
}

/**
 * Applies the Transfer logs of [fromBlock, toBlock] of `contracts` and moves their cursors to
 * toBlock, in one DB transaction: the cursor is never ahead of what is applied, whatever crashes
 * when. Returns false (and changes nothing that matters) when a cursor is no longer at
 * fromBlock - 1: another process applied the range, or a rewind moved it back.
 */
export async function applyTransferRange(db: Db, range: AppliedRange): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    // A write first: it takes SQLite's write lock at once (no lock upgrade later) and locks the
    // cursor rows on PostgreSQL, so two processes never apply one range at the same time.
    await lockCursors(trx, range.chain, range.contracts);
    const cursors = await trx
      .selectFrom('card_index_cursors')
      .select(['contract', 'last_block'])
      .where('chain', '=', range.chain)
      .where('contract', 'in', range.contracts)
      .execute();
    if (cursors.length !== range.contracts.length || cursors.some((cursor) => Number(cursor.last_block) !== range.fromBlock - 1)) {
      return false;
    }

    for (let start = 0; start < range.transfers.length; start += ROWS_PER_STATEMENT) {
      await trx
        .insertInto('indexed_card_transfers')
        .values(
          range.transfers.slice(start, start + ROWS_PER_STATEMENT).map((transfer) => ({
            chain: range.chain,
            block_number: transfer.blockNumber,
            log_index: transfer.logIndex,
            contract: transfer.contract,
            token_id: transfer.tokenId,
            from_address: transfer.from,
            to_address: transfer.to,
            tx_hash: transfer.txHash,
            block_time: transfer.blockTime,
          })),
        )
        .onConflict((conflict) => conflict.columns(['chain', 'block_number', 'log_index']).doNothing())
        .execute();
    }

    const before = await loadCards(trx, range.chain, range.transfers);
    const after = new Map(before);
    for (const transfer of range.transfers) {
      const key = cardKey(transfer.contract, transfer.tokenId);
      const next = applyTransfer(after.get(key), transfer);
      if (next) after.set(key, next);
    }
    await writeCards(
      trx,
      range.chain,
      [...after.entries()].filter(([key, card]) => before.get(key) !== card).map(([key, card]) => ({ before: before.get(key), after: card })),
    );

    await trx
      .updateTable('card_index_cursors')
      .set({ last_block: range.toBlock, last_block_hash: range.toBlockHash, updated_ms: Date.now() })
      .where('chain', '=', range.chain)
      .where('contract', 'in', range.contracts)
      .execute();
    await trx
      .insertInto('card_index_blocks')
      .values({ chain: range.chain, block_number: range.toBlock, block_hash: range.toBlockHash })
      .onConflict((conflict) => conflict.columns(['chain', 'block_number']).doUpdateSet({ block_hash: range.toBlockHash }))
      .execute();
    await trx
      .deleteFrom('card_index_blocks')
      .where('chain', '=', range.chain)
      .where('block_number', '<', range.toBlock - KEPT_BLOCK_HASHES_DEPTH)
      .execute();
    return true;
  });
}

/**
 * Undoes everything the index took from blocks after `forkBlock` (-1: everything), in one DB
 * transaction. The journal of applied logs makes this exact: journal rows after the fork are
 * deleted, and every card they touched is derived again from its remaining journal rows (none
 * left: the card's mint vanished, so the card goes). Cursors past the fork go back to it, so the
 * next pass reads the chain's new blocks from there; whatever is mined again (the outbox replays
 * what a node lost) comes back through the normal path.
 */
export async function rewindCardIndex(db: Db, chain: string, forkBlock: number, forkBlockHash: string | null): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await lockCursors(trx, chain);
    const touched = await trx
      .selectFrom('indexed_card_transfers')
      .select(['contract', 'token_id'])
      .distinct()
      .where('chain', '=', chain)
      .where('block_number', '>', forkBlock)
      .execute();
    await trx.deleteFrom('indexed_card_transfers').where('chain', '=', chain).where('block_number', '>', forkBlock).execute();

    const byContract = groupTokenIds(touched.map((row) => ({ contract: row.contract, tokenId: Number(row.token_id) })));
    for (const [contract, tokenIds] of byContract) {
      for (let start = 0; start < tokenIds.length; start += ROWS_PER_STATEMENT) {
        const chunk = tokenIds.slice(start, start + ROWS_PER_STATEMENT);
        const before = await loadCards(trx, chain, chunk.map((tokenId) => ({ contract, tokenId })));
        const journal = await trx
          .selectFrom('indexed_card_transfers')
          .selectAll()
          .where('chain', '=', chain)
          .where('contract', '=', contract)
          .where('token_id', 'in', chunk)
          .orderBy('block_number')
          .orderBy('log_index')
          .execute();
        const after = new Map<string, CardState>();
        for (const row of journal) {
          const key = cardKey(contract, Number(row.token_id));
          const next = applyTransfer(after.get(key), {
            contract,
            tokenId: Number(row.token_id),
            from: row.from_address,
            to: row.to_address,
            txHash: row.tx_hash,
            blockNumber: Number(row.block_number),
            logIndex: Number(row.log_index),
            blockTime: Number(row.block_time),
          });
          if (next) after.set(key, next);
        }
        await writeCards(
          trx,
          chain,
          chunk.map((tokenId) => {
            const key = cardKey(contract, tokenId);
            return { before: before.get(key), after: after.get(key) };
          }),
        );
      }
    }

    await trx
      .updateTable('card_index_cursors')
      .set({ last_block: forkBlock, last_block_hash: forkBlockHash, updated_ms: Date.now() })
      .where('chain', '=', chain)
      .where('last_block', '>', forkBlock)
      .execute();
    await trx.deleteFrom('card_index_blocks').where('chain', '=', chain).where('block_number', '>', forkBlock).execute();
    return touched.length;
  });
}

async function lockCursors(trx: DbTransaction, chain: string, contracts?: string[]): Promise<void> {
  let update = trx.updateTable('card_index_cursors').set({ updated_ms: Date.now() }).where('chain', '=', chain);
  if (contracts) update = update.where('contract', 'in', contracts);
  await update.execute();
}

/** The stored cards among `keys`, by cardKey. */
async function loadCards(
  trx: DbTransaction,
  chain: string,
  keys: ReadonlyArray<{ contract: string; tokenId: number }>,
): Promise<Map<string, CardState>> {
  const cards = new Map<string, CardState>();
  for (const [contract, tokenIds] of groupTokenIds(keys)) {
    for (let start = 0; start < tokenIds.length; start += ROWS_PER_STATEMENT) {
      const rows = await trx
        .selectFrom('indexed_cards')
        .selectAll()
        .where('chain', '=', chain)
        .where('contract', '=', contract)
        .where('token_id', 'in', tokenIds.slice(start, start + ROWS_PER_STATEMENT))
        .execute();
      for (const row of rows) cards.set(cardKey(row.contract, Number(row.token_id)), cardStateOfRow(row));
    }
  }
  return cards;
}

/**
 * Stores new card states (after undefined: delete the card) and moves the per-owner counts by the
 * difference, so indexed_card_holdings always equals a count over indexed_cards.
 */
async function writeCards(
  trx: DbTransaction,
  chain: string,
  changes: ReadonlyArray<{ before: CardState | undefined; after: CardState | undefined }>,
): Promise<void> {
  const upserts = changes.flatMap((change) => (change.after ? [rowOfCardState(chain, change.after)] : []));
  for (let start = 0; start < upserts.length; start += ROWS_PER_STATEMENT) {
    await trx
      .insertInto('indexed_cards')
      .values(upserts.slice(start, start + ROWS_PER_STATEMENT))
      .onConflict((conflict) =>
        conflict.columns(['chain', 'contract', 'token_id']).doUpdateSet((eb) => ({
          owner: eb.ref('excluded.owner'),
          sender: eb.ref('excluded.sender'),
          mint_tx_hash: eb.ref('excluded.mint_tx_hash'),
          last_tx_hash: eb.ref('excluded.last_tx_hash'),
          minted_at: eb.ref('excluded.minted_at'),
          minted_block: eb.ref('excluded.minted_block'),
          updated_at: eb.ref('excluded.updated_at'),
          updated_block: eb.ref('excluded.updated_block'),
          updated_log_index: eb.ref('excluded.updated_log_index'),
          burned: eb.ref('excluded.burned'),
        })),
      )
      .execute();
  }
  const deletions = groupTokenIds(changes.flatMap((change) => (change.before && !change.after ? [change.before] : [])));
  for (const [contract, tokenIds] of deletions) {
    for (let start = 0; start < tokenIds.length; start += ROWS_PER_STATEMENT) {
      await trx
        .deleteFrom('indexed_cards')
        .where('chain', '=', chain)
        .where('contract', '=', contract)
        .where('token_id', 'in', tokenIds.slice(start, start + ROWS_PER_STATEMENT))
        .execute();
    }
  }

  const deltas = new Map<string, { owner: string; contract: string; delta: number }>();
  const count = (card: CardState | undefined, delta: number) => {
    if (!card || card.burned) return;
    const key = `${card.owner}:${card.contract}`;
    const entry = deltas.get(key) ?? { owner: card.owner, contract: card.contract, delta: 0 };
    entry.delta += delta;
    deltas.set(key, entry);
  };
  for (const change of changes) {
    count(change.before, -1);
    count(change.after, 1);
  }
  const moved = [...deltas.values()].filter((entry) => entry.delta !== 0);
  for (let start = 0; start < moved.length; start += ROWS_PER_STATEMENT) {
    await trx
      .insertInto('indexed_card_holdings')
      .values(
        moved.slice(start, start + ROWS_PER_STATEMENT).map((entry) => ({
          chain,
          owner: entry.owner,
          contract: entry.contract,
          card_count: entry.delta,
        })),
      )
      .onConflict((conflict) =>
        conflict
          .columns(['chain', 'owner', 'contract'])
          .doUpdateSet((eb) => ({ card_count: eb('indexed_card_holdings.card_count', '+', eb.ref('excluded.card_count')) })),
      )
      .execute();
  }
  const emptied = moved.filter((entry) => entry.delta < 0);
  for (let start = 0; start < emptied.length; start += ROWS_PER_STATEMENT) {
    const chunk = emptied.slice(start, start + ROWS_PER_STATEMENT);
    await trx
      .deleteFrom('indexed_card_holdings')
      .where('chain', '=', chain)
      .where('card_count', '<=', 0)
      .where((eb) => eb(eb.refTuple('owner', 'contract'), 'in', chunk.map((entry) => eb.tuple(entry.owner, entry.contract))))
      .execute();
  }
}

function groupTokenIds(keys: ReadonlyArray<{ contract: string; tokenId: number }>): Map<string, number[]> {
  const groups = new Map<string, Set<number>>();
  for (const key of keys) {
    const group = groups.get(key.contract) ?? new Set<number>();
    group.add(key.tokenId);
    groups.set(key.contract, group);
  }
  return new Map([...groups].map(([contract, tokenIds]) => [contract, [...tokenIds]]));
}

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

/** A followed contract's position: the last block whose logs are applied, and that block's hash. */
export interface IndexCursor {
  contract: string;
  lastBlock: number;
  lastBlockHash: string | null;
}

/** The lowest applied block over this chain's contracts, and how many contracts it follows. */
export async function lowestIndexedBlock(db: Db, chain: string): Promise<{ lowest: number; contracts: number }> {
  const row = await db
    .selectFrom('card_index_cursors')
    .select((eb) => [eb.fn.min('last_block').as('lowest'), eb.fn.countAll().as('contracts')])
    .where('chain', '=', chain)
    .executeTakeFirst();
  return { lowest: Number(row?.lowest ?? -1), contracts: Number(row?.contracts ?? 0) };
}

/** Follows these contracts from after `lastBlock` each (no-op for one followed already). */
export async function insertIndexCursors(db: Db, chain: string, cursors: ReadonlyArray<{ contract: string; lastBlock: number }>, nowMs: number): Promise<void> {
  if (cursors.length === 0) return;
  await db
    .insertInto('card_index_cursors')
    .values(cursors.map((cursor) => ({ chain, contract: cursor.contract.toLowerCase(), last_block: cursor.lastBlock, last_block_hash: null, updated_ms: nowMs })))
    .onConflict((conflict) => conflict.columns(['chain', 'contract']).doNothing())
    .execute();
}

export async function loadIndexCursors(db: Db, chain: string): Promise<IndexCursor[]> {
  const rows = await db.selectFrom('card_index_cursors').select(['contract', 'last_block', 'last_block_hash']).where('chain', '=', chain).execute();
  return rows.map((row) => ({ contract: row.contract, lastBlock: Number(row.last_block), lastBlockHash: row.last_block_hash }));
}

/** Up to `limit` kept block hashes below `below`, newest first (where a fork search looks). */
export async function keptBlocksBelow(db: Db, chain: string, below: number, limit: number): Promise<Array<{ block_number: number | string; block_hash: string }>> {
  return db
    .selectFrom('card_index_blocks')
    .select(['block_number', 'block_hash'])
    .where('chain', '=', chain)
    .where('block_number', '<', below)
    .orderBy('block_number', 'desc')
    .limit(limit)
    .execute();
}

/**
 * Whether the card index follows `contract` on `chain` (lower-case address): it has a cursor, or it
 * is a card contract the service deployed, which the index takes up at its next look (a moment
 * after the deployment there is no cursor yet; waiting for the index makes one).
 */
export async function isFollowedContract(db: Db, chain: string, contract: string): Promise<boolean> {
  const followed = await db
    .selectFrom('card_index_cursors')
    .select('contract')
    .where('chain', '=', chain)
    .where('contract', '=', contract)
    .union(db.selectFrom('nft_contracts').select((eb) => eb.ref('address').$notNull().as('contract')).where('chain', '=', chain).where('address', '=', contract))
    .executeTakeFirst();
  return followed !== undefined;
}

/** Deployed card contracts of a chain that have no cursor yet, with their deployment block when known. */
export async function unfollowedContracts(db: Db, chain: string): Promise<Array<{ address: string; deployBlock: number | null }>> {
  const rows = await db
    .selectFrom('nft_contracts as c')
    .leftJoin('outbox_transactions as o', 'o.idempotency_key', 'c.deploy_outbox_id')
    .select(['c.address as address', 'o.block_number as deployBlock'])
    .where('c.chain', '=', chain)
    .where('c.address', 'is not', null)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('card_index_cursors as k')
            .select('k.contract')
            .whereRef('k.chain', '=', 'c.chain')
            .whereRef('k.contract', '=', 'c.address'),
        ),
      ),
    )
    .execute();
  return rows.map((row) => ({ address: row.address!, deployBlock: row.deployBlock === null ? null : Number(row.deployBlock) }));
}
