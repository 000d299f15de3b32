import type { Insertable } from 'kysely';
import type { Db } from '../store/database.ts';
import type { EscrowClaimTable } from '../store/schema.ts';

export async function insertEscrowClaims(db: Db, claims: Array<Insertable<EscrowClaimTable>>): Promise<void> {
  await db.insertInto('escrow_claims').values(claims).execute();
}

/** The claims of a deposit with these ids (the key guards against removing another deposit's rows). */
export async function deleteEscrowClaims(db: Db, depositKey: string, ids: string[]): Promise<void> {
  await db.deleteFrom('escrow_claims').where('deposit_key', '=', depositKey).where('id', 'in', ids).execute();
}
