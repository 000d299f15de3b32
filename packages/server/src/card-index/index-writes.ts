import type { Db, DbTransaction } from '../store/database.ts';
import { applyTransfer, cardKey, cardStateOfRow, rowOfCardState, type CardState } from './card-state.ts';
import type { CardTransfer } from './transfer-logs.ts';

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
