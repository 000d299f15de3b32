import type { Insertable } from 'kysely';
import type { Db } from '../store/database.ts';
import type { EscrowClaimRow, EscrowClaimTable } from '../store/schema.ts';

export async function insertEscrowClaims(db: Db, claims: Array<Insertable<EscrowClaimTable>>): Promise<void> {
  await db.insertInto('escrow_claims').values(claims).execute();
}

/** The claims of a deposit with these ids (the key guards against removing another deposit's rows). */
export async function deleteEscrowClaims(db: Db, depositKey: string, ids: string[]): Promise<void> {
  await db.deleteFrom('escrow_claims').where('deposit_key', '=', depositKey).where('id', 'in', ids).execute();
}

/** Every claim of a deposit (one never sent: see depositCards). */
export async function deleteDepositClaims(db: Db, depositKey: string): Promise<void> {
  await db.deleteFrom('escrow_claims').where('deposit_key', '=', depositKey).execute();
}

/** The claims of a deposit with their sealed secrets (escrow_claims.sealed_secret). */
export function findDepositClaimSecrets(db: Db, depositKey: string): Promise<Array<Pick<EscrowClaimRow, 'id' | 'token_id' | 'sealed_secret' | 'secret_master_key_id'>>> {
  return db.selectFrom('escrow_claims').select(['id', 'token_id', 'sealed_secret', 'secret_master_key_id']).where('deposit_key', '=', depositKey).execute();
}
