import type { Insertable } from 'kysely';
import type { Db, DbTransaction } from '../../store/database.ts';
import type { A2aFeeCredentialTable, OutboxRow } from '../../store/schema.ts';

export async function insertFeeCredential(db: Db | DbTransaction, row: Insertable<A2aFeeCredentialTable>): Promise<void> {
  await db.insertInto('a2a_fee_credentials').values(row).execute();
}

/** Deletes the credential and its fee payer's key together. */
export async function deleteFeeCredential(db: Db, id: string, keyId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('a2a_fee_credentials').where('id', '=', id).execute();
    await trx.deleteFrom('signing_keys').where('id', '=', keyId).execute();
  });
}

/** Marks the credential revoked; false when it was already revoked or does not exist. */
export async function markFeeCredentialRevoked(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('a2a_fee_credentials')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function findFeeCredentialByHash(db: Db, lookupHash: string): Promise<{ id: string; chain: string; revoked_at: number | null } | undefined> {
  return db.selectFrom('a2a_fee_credentials').select(['id', 'chain', 'revoked_at']).where('lookup_hash', '=', lookupHash).executeTakeFirst();
}

/** The fee payer's key and chain of a credential; throws when there is no such credential. */
export async function getFeeCredential(db: Db, id: string): Promise<{ key_id: string; chain: string; revoked_at: number | null }> {
  return db.selectFrom('a2a_fee_credentials').select(['key_id', 'chain', 'revoked_at']).where('id', '=', id).executeTakeFirstOrThrow();
}

/** Records what the fee payer advanced (wei, decimal) for a request. */
export async function recordFeeAdvance(db: Db, requestKey: string, wei: string): Promise<void> {
  await db.updateTable('a2a_requests').set({ fee_advance_wei: wei }).where('request_key', '=', requestKey).execute();
}

/** The fee-delegation state of a request. */
export async function findFeeState(
  db: Db,
  requestKey: string,
): Promise<{ fee_credential_id: string | null; fee_settled_at: number | null; chain: string } | undefined> {
  return db
    .selectFrom('a2a_requests')
    .select(['fee_credential_id', 'fee_settled_at', 'chain'])
    .where('request_key', '=', requestKey)
    .executeTakeFirst();
}

/** The outbox row with this idempotency key (a request's transaction, or a fee leg of it). */
export async function findOutboxTransaction(db: Db, idempotencyKey: string): Promise<OutboxRow | undefined> {
  return db.selectFrom('outbox_transactions').selectAll().where('idempotency_key', '=', idempotencyKey).executeTakeFirst();
}

export async function markFeeSettled(db: Db, requestKey: string, now: number): Promise<void> {
  await db
    .updateTable('a2a_requests')
    .set({ fee_settled_at: now })
    .where('request_key', '=', requestKey)
    .where('fee_settled_at', 'is', null)
    .execute();
}

/** Keys of completed fee-delegated requests finished after `since` whose fee is not settled yet, at most `limit`. */
export async function listUnsettledFees(db: Db, since: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('a2a_requests')
    .select('request_key')
    .where('fee_credential_id', 'is not', null)
    .where('fee_settled_at', 'is', null)
    .where('status', '=', 'completed')
    .where('finished_at', '>', since)
    .limit(limit)
    .execute();
  return rows.map((row) => row.request_key);
}
