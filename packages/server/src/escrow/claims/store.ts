import type { Db } from '../../store/database.ts';
import type { EscrowClaimRow } from '../../store/schema.ts';

export function findEscrowClaim(db: Db, claimId: string): Promise<EscrowClaimRow | undefined> {
  return db.selectFrom('escrow_claims').selectAll().where('id', '=', claimId).executeTakeFirst();
}

export async function findPartnerServiceName(db: Db, partnerId: string): Promise<string | undefined> {
  const row = await db.selectFrom('partners').select('service_name').where('id', '=', partnerId).executeTakeFirst();
  return row?.service_name;
}

/** Holds an unclaimed link for the member; a link someone already holds is left as it is. */
export async function holdEscrowClaim(db: Db, claimId: string, member: { id: string; claimedTo: string }): Promise<void> {
  await db
    .updateTable('escrow_claims')
    .set({ claimed_by: member.id, claimed_to: member.claimedTo, updated_ms: Date.now() })
    .where('id', '=', claimId)
    .where('claimed_by', 'is', null)
    .execute();
}

/** Frees a link the member holds. */
export async function releaseEscrowClaim(db: Db, claimId: string, memberId: string): Promise<void> {
  await db
    .updateTable('escrow_claims')
    .set({ claimed_by: null, claimed_to: null, updated_ms: Date.now() })
    .where('id', '=', claimId)
    .where('claimed_by', '=', memberId)
    .execute();
}

/** Moves a link from `attempt` to the next; no change when another call moved it already. */
export async function advanceClaimAttempt(db: Db, claimId: string, attempt: number): Promise<void> {
  await db
    .updateTable('escrow_claims')
    .set({ claim_attempt: attempt + 1, updated_ms: Date.now() })
    .where('id', '=', claimId)
    .where('claim_attempt', '=', attempt)
    .execute();
}
