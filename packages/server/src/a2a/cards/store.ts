import type { Address, Hex } from 'viem';
import type { Db } from '../../store/database.ts';

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
