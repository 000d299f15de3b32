import { sql } from 'kysely';
import type { Db } from '../../store/database.ts';

/**
 * The design of the last minted batch of a contract that starts at or before `cardId`, with the
 * batch's range and mint transaction (batches of one contract never overlap).
 */
export function findMintedBatchDesign(db: Db, contract: { chain: string; address: string }, cardId: number) {
  return db
    .selectFrom('card_mint_batches as b')
    .innerJoin('card_designs as d', 'd.id', 'b.design_id')
    .selectAll('d')
    .select(['b.first_token_id', 'b.card_count', 'b.tx_hash'])
    .where('b.chain', '=', contract.chain)
    .where('b.contract', '=', contract.address.toLowerCase())
    .where('b.status', '=', 'minted')
    .where('b.first_token_id', '<=', cardId)
    .orderBy('b.first_token_id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Unburned cards the index says `address` holds whose design's secure files include `fileName`, `limit` at most. */
export function listIndexedCardsNaming(db: Db, address: string, fileName: string, limit: number) {
  return db
    .selectFrom('card_secure_files as f')
    .innerJoin('card_mint_batches as b', (join) => join.onRef('b.design_id', '=', 'f.design_id').on('b.status', '=', 'minted'))
    .innerJoin('indexed_cards as c', (join) =>
      join
        .onRef('c.chain', '=', 'b.chain')
        .onRef('c.contract', '=', 'b.contract')
        .on((eb) => eb('c.token_id', '>=', eb.ref('b.first_token_id')))
        .on((eb) => eb('c.token_id', '<', sql<number>`b.first_token_id + b.card_count`)),
    )
    .select(['c.chain', 'c.contract', 'c.token_id'])
    .where('f.file_name', '=', fileName)
    .where('c.owner', '=', address.toLowerCase())
    .where('c.burned', '=', 0)
    .limit(limit)
    .execute();
}
