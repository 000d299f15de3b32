import type { Db } from '../../store/database.ts';

/** The member's latest App2App requests (those the member opened), newest first. */
export async function listMemberRequests(db: Db, userId: string, limit: number) {
  return db.selectFrom('a2a_requests').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').limit(limit).execute();
}

/** The latest indexed card transfers from or to `address` (lower-case), newest first, with the nft_id of contracts of this service. */
export async function listCardTransfersOf(db: Db, address: string, limit: number) {
  return db
    .selectFrom('indexed_card_transfers as t')
    .leftJoin('nft_contracts as c', (join) => join.onRef('c.chain', '=', 't.chain').onRef('c.address', '=', 't.contract'))
    .select(['t.chain', 't.contract', 't.token_id', 't.from_address', 't.to_address', 't.tx_hash', 't.block_time', 'c.id as nft_id'])
    .where((eb) => eb.or([eb('t.from_address', '=', address), eb('t.to_address', '=', address)]))
    .orderBy('t.block_time', 'desc')
    .orderBy('t.log_index', 'desc')
    .limit(limit)
    .execute();
}

/** The latest card sends `address` signed through the outbox (their idempotency keys start with `card-send:`), newest first. */
export async function listCardSendsBy(db: Db, address: string, limit: number) {
  return db
    .selectFrom('outbox_transactions as o')
    .leftJoin('nft_contracts as c', (join) => join.onRef('c.chain', '=', 'o.chain').onRef('c.address', '=', 'o.to_address'))
    .select(['o.chain', 'o.to_address', 'o.data', 'o.tx_hash', 'o.status', 'o.receipt_status', 'o.created_ms', 'c.id as nft_id'])
    .where('o.from_address', '=', address)
    .where('o.idempotency_key', 'like', 'card-send:%')
    .orderBy('o.created_ms', 'desc')
    .limit(limit)
    .execute();
}
