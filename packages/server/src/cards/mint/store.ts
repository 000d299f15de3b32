import { sql } from 'kysely';
import { epochSeconds, type Db, type DbTransaction } from '../../store/database.ts';
import { preparedQuery } from '../../store/prepared-query.ts';
import type { CardDesignRow, CardMintBatchRow } from '../../store/schema.ts';

/**
 * Counts `cards` against the partner's monthly limit, atomically: one guarded UPDATE that starts
 * the count afresh in a new month, so two processes can never together pass mint_limit. False when
 * the cards do not fit (nothing was counted).
 */
export async function reserveMintCount(trx: Db | DbTransaction, partnerId: string, cards: number, period: string): Promise<boolean> {
  const result = await reserveMintCountQuery(trx, { partnerId, cards, period });
  return result.numAffectedRows === 1n;
}
const reserveMintCountQuery = preparedQuery({ partnerId: true, cards: true, period: true }, (db, { partnerId, cards, period }: { partnerId: string; cards: number; period: string }) => {
  const counted = sql<number>`case when mint_period = ${period} then mint_count else 0 end`;
  return db
    .updateTable('partners')
    .set({ mint_count: sql`${counted} + ${cards}`, mint_period: period })
    .where('id', '=', partnerId)
    .where(sql<boolean>`${counted} + ${cards} <= mint_limit`);
});

/** Gives back cards that were counted but not minted (a failed batch), in the month they were counted in. */
export async function releaseMintCount(trx: Db | DbTransaction, partnerId: string, cards: number, period: string): Promise<void> {
  await trx
    .updateTable('partners')
    .set({ mint_count: sql`case when mint_count >= ${cards} then mint_count - ${cards} else 0 end` })
    .where('id', '=', partnerId)
    .where('mint_period', '=', period)
    .execute();
}

/** Stores a mint's design and the secure files it names (inside the mint's transaction). */
export async function insertMintDesign(trx: DbTransaction, design: CardDesignRow, secureFiles: string[]): Promise<void> {
  await insertDesignQuery(trx, design);
  if (secureFiles.length > 0) {
    await trx
      .insertInto('card_secure_files')
      .values(secureFiles.map((file_name) => ({ design_id: design.id, file_name })))
      .execute();
  }
}

const insertDesignQuery = preparedQuery(
  { id: true, partner_id: true, chain: true, contract: true, nft_id: true, name: true, metadata: true, secure: true, sendable: true, created_at: true, idempotency_key: true },
  (db, design: CardDesignRow) => db.insertInto('card_designs').values(design),
);

/**
 * Stores a mint's batches in one statement (a mint of 1,000 recipients has 10, each a round trip on
 * PostgreSQL), made before it returns (OutboxSubmission.alongsideStatements).
 */
export function insertMintBatches(trx: DbTransaction, batches: CardMintBatchRow[]): Promise<unknown> {
  return batches.length > 0 ? trx.insertInto('card_mint_batches').values(batches).execute() : Promise.resolve();
}

/**
 * `reserved` to `submitted`, with its outbox transaction; a batch already moved on is left as it
 * is. One statement, made before it returns (OutboxSubmission.alongsideStatements).
 */
export function markBatchSubmitted(db: Db | DbTransaction, batchId: string, transaction: { id: string; txHash: string }, updatedAt = epochSeconds()): Promise<unknown> {
  return db
    .updateTable('card_mint_batches')
    .set({ status: 'submitted', outbox_id: transaction.id, tx_hash: transaction.txHash, updated_at: updatedAt })
    .where('id', '=', batchId)
    .where('status', '=', 'reserved')
    .execute();
}

/** `submitted` to `minted`, with the id of its first card; true when this call moved it. */
export async function markBatchMinted(db: Db | DbTransaction, batchId: string, firstTokenId: number): Promise<boolean> {
  const moved = await markBatchMintedQuery(db, { batchId, firstTokenId, updatedAt: epochSeconds() });
  return moved.numAffectedRows === 1n;
}
const markBatchMintedQuery = preparedQuery({ batchId: true, firstTokenId: true, updatedAt: true }, (db, { batchId, firstTokenId, updatedAt }: { batchId: string; firstTokenId: number; updatedAt: number }) =>
  db.updateTable('card_mint_batches').set({ status: 'minted', first_token_id: firstTokenId, updated_at: updatedAt }).where('id', '=', batchId).where('status', '=', 'submitted'),
);

/** `reserved` or `submitted` to `failed`; true when this call moved it (so its cards are given back once). */
export async function markBatchFailed(trx: Db | DbTransaction, batchId: string, reason: string): Promise<boolean> {
  const moved = await trx
    .updateTable('card_mint_batches')
    // Node messages may carry raw revert bytes; PostgreSQL text takes no NUL.
    .set({ status: 'failed', error: reason.replace(/[\u0000-\u001f]+/g, ' ').slice(0, 500), updated_at: epochSeconds() })
    .where('id', '=', batchId)
    .where('status', 'in', ['reserved', 'submitted'])
    .executeTakeFirst();
  return moved.numUpdatedRows === 1n;
}

/** The oldest `limit` batches in `status`. */
export function listBatchesInStatus(db: Db, status: 'reserved' | 'submitted', limit: number): Promise<CardMintBatchRow[]> {
  return db.selectFrom('card_mint_batches').selectAll().where('status', '=', status).orderBy('created_at').limit(limit).execute();
}

/** Which of `names` are secure uploads of the partner. */
export async function findSecureUploadNames(db: Db, partnerId: string, names: string[]): Promise<string[]> {
  const found = await db
    .selectFrom('uploaded_files')
    .select('name')
    .where('name', 'in', names)
    .where('partner_id', '=', partnerId)
    .where('visibility', '=', 'secure')
    .execute();
  return found.map((row) => row.name);
}

/** The partner's mint accepted under this Idempotency-Key, if any. */
export function findDesignByIdempotencyKey(db: Db, partnerId: string, key: string): Promise<Pick<CardDesignRow, 'id'> | undefined> {
  return db.selectFrom('card_designs').select('id').where('partner_id', '=', partnerId).where('idempotency_key', '=', key).executeTakeFirst();
}

/** A design's batches in request order. */
export function listDesignBatches(db: Db, designId: string): Promise<CardMintBatchRow[]> {
  return db.selectFrom('card_mint_batches').selectAll().where('design_id', '=', designId).orderBy('sequence').execute();
}
