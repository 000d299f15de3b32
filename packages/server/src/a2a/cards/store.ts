import type { Address, Hex } from 'viem';
import type { Db } from '../../store/database.ts';

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

/** The sender of each minting transaction, from the outbox that sent it. */
export async function mintingAccounts(db: Db, hashes: Hex[]): Promise<Map<Hex, Address>> {
  if (hashes.length === 0) return new Map();
  const rows = await db
    .selectFrom('outbox_transactions')
    .select(['tx_hash', 'from_address'])
    .where('tx_hash', 'in', [...new Set(hashes.map((hash) => hash.toLowerCase()))])
    .execute();
  return new Map(rows.map((row) => [row.tx_hash as Hex, row.from_address as Address]));
}
