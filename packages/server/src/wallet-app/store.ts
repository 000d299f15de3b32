/** Queries of the confirmation screen's facts (request-facts.ts). */
import type { Db } from '../store/database.ts';

/** Card contracts this service deployed among `addresses` (lower-case) on `chain`, with the partner's name. */
export function findDeployedCardContracts(db: Db, chain: string, addresses: string[]) {
  if (addresses.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('nft_contracts as c')
    .innerJoin('partners as p', 'p.id', 'c.partner_id')
    .select(['c.address', 'c.name', 'p.name as partner_name'])
    .where('c.chain', '=', chain)
    .where('c.address', 'in', addresses)
    .execute();
}

/** The escrow contract the operator deployed on `chain`, if any (operator/escrow.ts writes the setting). */
export async function findEscrowAddress(db: Db, chain: string): Promise<string | null> {
  const row = await db.selectFrom('service_settings').select('value').where('key', '=', `escrow_address:${chain}`).executeTakeFirst();
  return row ? row.value.toLowerCase() : null;
}

/** Whether `from` (lower-case) ever had a transaction to `to` (lower-case) signed on `chain`. */
export async function hasSentTo(db: Db, chain: string, from: string, to: string): Promise<boolean> {
  const row = await db
    .selectFrom('outbox_transactions')
    .select('id')
    .where('from_address', '=', from)
    .where('chain', '=', chain)
    .where('to_address', '=', to)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
