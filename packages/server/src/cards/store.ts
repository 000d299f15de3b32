import type { Db } from '../store/database.ts';

/** The partner's row of nft_contracts for its contract address (lower-case). */
export function findPartnerNftContract(db: Db, partnerId: string, address: string) {
  return db
    .selectFrom('nft_contracts')
    .select(['id', 'chain', 'address', 'name', 'partner_id'])
    .where('partner_id', '=', partnerId)
    .where('address', '=', address)
    .executeTakeFirst();
}

/** One row of nft_contracts by its nft_id. */
export function findNftContract(db: Db, nftId: number) {
  return db.selectFrom('nft_contracts').select(['id', 'chain', 'address', 'name', 'partner_id']).where('id', '=', nftId).executeTakeFirst();
}
